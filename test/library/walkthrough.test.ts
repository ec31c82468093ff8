import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedPrints, runShellBlocks, shellBlocksOfSection } from '../support/doc-commands.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { checkedPreview, checkedThumbnail } from '../support/model-checks.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';
import { libraryClient } from './model-support.js';

const PAGE = path.resolve(import.meta.dirname, '../../docs/asset-library.md');

/**
 * docs/asset-library.md's walk-through, run as written in a scratch directory: only the address
 * of the embedded default is replaced by the test server's.
 */
describe('the asset library walk-through in docs/asset-library.md', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t);
    siteId = await createSite(org);
  });
  afterAll(() => t?.close());

  it('creates, uploads, finalizes, finds by tag and downloads a model, printing what it says', async () => {
    const { client } = await libraryClient(
      org,
      'Organization Administrator',
      undefined,
      'read:basic read:assetlibrary write:assetlibrary download:assetlibrary read:hierarchy write:hierarchy',
    );
    const blocks = shellBlocksOfSection(PAGE, '### Walk-through').map((block) =>
      block.replaceAll('http://127.0.0.1:8080', t.origin),
    );
    expect(blocks.length).toBe(5);
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-library-walk-'));
    try {
      const run = await runShellBlocks(blocks, { TOKEN: client.token ?? '', SITE_ID: siteId }, cwd);
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout.trimEnd().split('\n')).toEqual(expectedPrints(blocks));
      expect(fs.readdirSync(cwd)).toEqual([]);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
    // What the page says happened did happen: a preview the Khronos validator passes, a shaded
    // thumbnail, and the model placed with the turn and the scale.
    const [model] = (await client.get('/v1/asset-library/models?includeDownloadLinks=true')).body;
    expect(model).toMatchObject({
      name: 'Pump P-101',
      status: 'ready',
      previewable: true,
      file: { name: 'pump.obj', format: 'obj' },
    });
    const preview = Buffer.from(await (await fetch(model.downloadLinks.preview.url)).arrayBuffer());
    const json = await checkedPreview(preview);
    expect(json.accessors[json.meshes[0]!.primitives[0]!.indices!]!.count).toBe(12);
    const thumbnail = await fetch(model.thumbnailUrl, { headers: { authorization: `Bearer ${client.token}` } });
    checkedThumbnail(Buffer.from(await thumbnail.arrayBuffer()));
    expect((await client.get(`/v1/twin/${siteId}/model-assets`)).body).toMatchObject([
      {
        libraryModelId: model.id,
        position: { x: 14, y: 3, z: 0 },
        rotation: { x: 0, y: 0, z: expect.closeTo(Math.SQRT1_2, 6), w: expect.closeTo(Math.SQRT1_2, 6) },
        scale: { x: 2, y: 2, z: 2 },
      },
    ]);
  });
});
