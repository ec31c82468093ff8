import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedPrints, runShellBlocks, shellBlocksOfSection } from '../support/doc-commands.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = path.join(ROOT, 'docs/twins.md');

/**
 * docs/twins.md's measurements walk-through, run as written: only the address of the embedded
 * default is replaced by the test server's. Each `# prints:` line must be what its command printed.
 */
describe('the measurements walk-through in docs/twins.md', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;

  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
    siteId = await createSite(org);
  });
  afterAll(() => t?.close());

  it('creates a distance and an area, lists, patches, is refused, deletes, printing what it says', async () => {
    const blocks = shellBlocksOfSection(PAGE, '## Measurements').map((block) =>
      block.replaceAll('http://127.0.0.1:8080', t.origin),
    );
    expect(blocks.length).toBe(4);
    const run = await runShellBlocks(blocks, { TOKEN: org.admin.token ?? '', SITE_ID: siteId }, ROOT);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual(expectedPrints(blocks));

    // What the page says happened did happen: the door is a height now, the roof is gone.
    const measurements = (await org.admin.get(`/v1/twin/${siteId}/measurements`)).body;
    expect(measurements).toMatchObject([{ name: 'Door clearance', kind: 'height', value: 2.75, unit: 'm' }]);
  });
});
