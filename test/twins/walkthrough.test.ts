import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedPrints, runShellBlocks, shellBlocksOfSection } from '../support/doc-commands.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { createSite } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = path.join(ROOT, 'docs/twins.md');

/**
 * docs/twins.md's walk-through, run as written: only the address of the embedded default is
 * replaced by the test server's. Each `# prints:` line must be what its command printed.
 */
describe('the twins walk-through in docs/twins.md', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  let bundleId: string;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t);
    siteId = await createSite(org);
    const bytes = await sampleBytes((file) => writeLas(file, 2000));
    ({ bundleId } = await processedPointCloud(org, siteId, { name: 'scan.las', bytes }));
  }, 120_000);
  afterAll(() => t?.close());

  it('runs from a site and a processed bundle to a published draft and a search, printing what it says', async () => {
    const blocks = shellBlocksOfSection(PAGE, '## Walk-through').map((block) =>
      block.replaceAll('http://127.0.0.1:8080', t.origin),
    );
    expect(blocks.length).toBeGreaterThan(3);
    const run = await runShellBlocks(blocks, { TOKEN: org.admin.token ?? '', SITE_ID: siteId, BUNDLE_ID: bundleId }, ROOT);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual(expectedPrints(blocks));

    // What the page says happened did happen.
    const pois = (await org.admin.get(`/v1/twin/${siteId}/points-of-interest?includeMetadata=true`)).body;
    expect(pois).toMatchObject([
      { name: 'Pump P-101', position: { x: 14 }, metadata: { Maintenance: { 'Serial number': 'SN-4711', Power: 7.5 } } },
    ]);
    expect((await org.admin.get(`/v1/twin/${siteId}/assets`)).body).toEqual([]);
    expect((await org.admin.get(`/v1/twin/${siteId}`)).body.layers).toMatchObject([{ bundleId }]);
  });
});
