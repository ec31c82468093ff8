import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/adapters/db/schema.js';
import { createTree, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** A subtree of thousands of nodes moves and goes to the trash whole (on SQLite the writer runs in a worker thread). */
describe('moving and trashing a subtree of thousands of nodes', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;
  let otherDivisionId: string;
  const FOLDERS = 5;
  const ITEMS = 1000;

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    tree = await createTree(org);
    otherDivisionId = (await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'Other' })).body.id;
    const db = t.platform.regions[org.region].store.db;
    const site = (await db.selectFrom('nodes').selectAll().where('id', '=', tree.siteId).executeTakeFirst()) as NodeRow;
    const now = new Date().toISOString();
    const row = (parent: NodeRow, kind: string, name: string): NodeRow => {
      const id = randomUUID();
      return {
        ...parent,
        id,
        parent_id: parent.id,
        kind,
        name,
        name_key: name.toLowerCase(),
        address: null,
        path: `${parent.path}${id}/`,
        depth: parent.depth + 1,
        created_at: now,
        updated_at: now,
      };
    };
    for (let f = 0; f < FOLDERS; f += 1) {
      const folder = row(site, 'folder', `Level ${f}`);
      const items = Array.from({ length: ITEMS }, (_, i) => row(folder, 'pointCloud', `Scan ${f}-${i}`));
      await db.insertInto('nodes').values(folder).execute();
      for (let i = 0; i < items.length; i += 100)
        await db
          .insertInto('nodes')
          .values(items.slice(i, i + 100))
          .execute();
    }
  });

  const subtree = () =>
    t.platform.regions[org.region].store.db
      .selectFrom('nodes')
      .selectAll()
      .where('site_id', '=', tree.siteId)
      .where('kind', '!=', 'site')
      .execute();

  it('moves every node of the subtree: paths, depths and site context', async () => {
    const moved = await org.admin.request('PATCH', `/v1/nodes/${tree.siteId}/move/${otherDivisionId}`);
    expect(moved.status).toBe(200);
    const sitePath = `/${org.orgId}/${otherDivisionId}/${tree.siteId}/`;
    const rows = await subtree();
    expect(rows).toHaveLength(FOLDERS * (ITEMS + 1) + 1);
    for (const row of rows) {
      expect(row.path.startsWith(sitePath)).toBe(true);
      expect(row.depth).toBe(row.path.split('/').filter(Boolean).length - 1);
    }
    const old = await t.platform.regions[org.region].store.db
      .selectFrom('nodes')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('path', 'like', `/${org.orgId}/${tree.divisionId}/${tree.siteId}/%`)
      .executeTakeFirst();
    expect(Number(old?.count)).toBe(0);
  });

  it('trashes every node of the subtree', async () => {
    expect((await org.admin.delete(`/v1/nodes/${tree.siteId}`)).status).toBe(204);
    const rows = await subtree();
    expect(rows.every((row) => row.trashed_at !== null && row.trash_root_id === tree.siteId)).toBe(true);
    expect((await org.admin.patch(`/v1/nodes/${tree.siteId}/restore`)).status).toBe(200);
    expect((await subtree()).every((row) => row.trashed_at === null)).toBe(true);
  });
});
