import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

/** Runs one statement on the server's maintenance database (CREATE and DROP DATABASE need another). */
async function onServer(statement: string): Promise<void> {
  const url = new URL(databaseUrl as string);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Fuzzy search keeps closeness >= 0.3 whatever the server's pg_trgm.similarity_threshold: the `%`
 * operator that finds candidates in the index uses that setting, so the platform sets it on its
 * connections. Here the database's default is 0.9, where "pmp 101" (0.5 to "Pump P-101") is no match.
 */
describe.skipIf(!databaseUrl)("business-object fuzzy search on a server whose pg_trgm threshold is not pg_trgm's default", () => {
  const database = `rdp_trgm_${randomBytes(5).toString('hex')}`;
  let t: TestPlatform;
  let org: OrgFixture;

  beforeAll(async () => {
    await onServer(`CREATE DATABASE ${database}`);
    await onServer(`ALTER DATABASE ${database} SET pg_trgm.similarity_threshold = 0.9`);
    const url = new URL(databaseUrl as string);
    url.pathname = `/${database}`;
    t = await startPlatform({ RDP_DATABASE_URL: url.toString() });
    org = await createOrg(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('finds a name of closeness 0.5', async () => {
    const siteId = await createSite(org);
    const created = await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, {
      name: 'Pump P-101',
      position: { x: 0, y: 0, z: 0 },
    });
    expect(created.status).toBe(201);
    const found = await org.admin.get('/v1/business-objects?searchNameQuery=pmp%20101&searchNameMatch=fuzzy');
    expect(found.status).toBe(200);
    expect(found.body.items.map((item: { name: string; closeness: number }) => [item.name, item.closeness])).toEqual([
      ['Pump P-101', 0.5],
    ]);
  });
});
