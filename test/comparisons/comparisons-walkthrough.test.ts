import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeScans } from '../support/comparison-scans.js';
import { expectedPrints, runShellBlocks, shellBlocksOfSection } from '../support/doc-commands.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { startPlatform, type TestPlatform } from '../support/start-platform.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = path.join(ROOT, 'docs/comparisons.md');

/**
 * docs/comparisons.md's walk-through, run as written: only the address of the embedded default
 * is replaced by the test server's. Each `# prints:` line must be what its command printed.
 */
describe('the walk-through in docs/comparisons.md', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  let referenceId: string;
  let comparedId: string;
  let dir: string;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t, { storageQuota: 100 * 1024 * 1024 });
    const tree = await createTree(org);
    siteId = tree.siteId;
    dir = await mkdtemp(path.join(tmpdir(), 'rdp-comparisons-walkthrough-'));
    const scans = await writeScans(dir);
    const upload = async (file: string) =>
      (await processedPointCloud(org, tree.folderId, { name: path.basename(file), bytes: await readFile(file) })).bundleId;
    referenceId = await upload(scans.reference);
    comparedId = await upload(scans.compared);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prices, starts, waits, reads the figures, the CSV and the tiles, makes a layer and deletes, printing what it says', async () => {
    const blocks = shellBlocksOfSection(PAGE, '## A walk-through').map((block) =>
      block.replaceAll('http://127.0.0.1:8080', t.origin),
    );
    expect(blocks.length).toBe(5);
    const run = await runShellBlocks(
      blocks,
      { TOKEN: org.admin.token ?? '', SITE_ID: siteId, REFERENCE_ID: referenceId, COMPARED_ID: comparedId },
      ROOT,
    );
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual(expectedPrints(blocks));
    // What the page says happened did happen: the comparison is gone.
    expect((await org.admin.get(`/v1/twin/${siteId}/comparisons`)).body).toEqual([]);
  }, 120_000);
});
