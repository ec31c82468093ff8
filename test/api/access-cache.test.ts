import SQLite from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTree, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, usingPostgres, withPlatformAndOrg } from '../support/platform.js';
import { rdpAdmin } from '../support/rdp-cli.js';

/**
 * Access results are cached while the store is unchanged (SQLite's data_version). A change made
 * by another process must be seen by the very next request, in both directions.
 */
describe('access checks after another process changes memberships', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  /** Deletes memberships through a connection of its own, as another process would. */
  async function revokeElsewhere(principalId: string) {
    const { config } = t.platform;
    if (usingPostgres) {
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      await client.query(`DELETE FROM "${config.databaseSchemaPrefix}_region_eu".memberships WHERE principal_id = $1`, [
        principalId,
      ]);
      await client.end();
    } else {
      const db = new SQLite(`${config.dataDir}/region_eu.sqlite`);
      db.prepare('DELETE FROM memberships WHERE principal_id = ?').run(principalId);
      db.close();
    }
  }

  it('a grant by the rdp command and a revocation by another connection take effect on the next request', async () => {
    const tree = await createTree(org);
    const viewer = await org.serviceClient({ scopes: 'read:hierarchy' });
    const path = `/v1/nodes/${tree.siteId}/browse`;
    for (let i = 0; i < 3; i += 1) expect((await viewer.client.get(path)).status).toBe(403);

    await rdpAdmin(
      t,
      'membership',
      'grant',
      '--node',
      tree.siteId,
      '--principal',
      viewer.userId,
      '--role',
      org.roles.Viewer as string,
    );
    expect((await viewer.client.get(path)).status).toBe(200);
    expect((await viewer.client.get(path)).status).toBe(200);

    await revokeElsewhere(viewer.userId);
    expect((await viewer.client.get(path)).status).toBe(403);
  });
});
