import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedPrints, runShellBlocks, shellBlocksOfSection } from '../support/doc-commands.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { libraryClient } from './model-support.js';

const PAGE = path.resolve(import.meta.dirname, '../../docs/asset-library.md');

/**
 * docs/asset-library.md's walk-through, run as written in a scratch directory: only the address
 * of the embedded default is replaced by the test server's.
 */
describe('the asset library walk-through in docs/asset-library.md', () => {
  let t: TestPlatform;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
  });
  afterAll(() => t?.close());

  it('creates, uploads, finalizes, finds by tag and downloads a model, printing what it says', async () => {
    const { client } = await libraryClient(org, 'Organization Administrator');
    const blocks = shellBlocksOfSection(PAGE, '### Walk-through').map((block) =>
      block.replaceAll('http://127.0.0.1:8080', t.origin),
    );
    expect(blocks.length).toBe(3);
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-library-walk-'));
    try {
      const run = await runShellBlocks(blocks, { TOKEN: client.token ?? '' }, cwd);
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout.trimEnd().split('\n')).toEqual(expectedPrints(blocks));
      expect(fs.readdirSync(cwd)).toEqual([]);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
    const [model] = (await client.get('/v1/asset-library/models')).body;
    expect(model).toMatchObject({ name: 'Pump P-101', status: 'processing', file: { name: 'pump.obj', format: 'obj' } });
  });
});
