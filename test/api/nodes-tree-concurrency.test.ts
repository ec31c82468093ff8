import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/**
 * Tree changes racing each other. On SQLite writers are serialized anyway; on PostgreSQL the
 * row locks must keep a subtree from moving into (or being restored under) a parent that a
 * concurrent soft delete is putting in the trash.
 */
describe('concurrent move, soft delete and restore', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform();
  });
  beforeEach(async () => {
    org = await createOrg(t);
  });
  afterAll(() => t.close());

  /** Active nodes whose parent is in the trash: what a lost race leaves behind. */
  async function orphans() {
    const db = t.platform.regions[org.region].store.db;
    return db
      .selectFrom('nodes as n')
      .innerJoin('nodes as p', 'p.id', 'n.parent_id')
      .select(['n.id', 'n.name'])
      .where('n.org_id', '=', org.orgId)
      .where('n.trashed_at', 'is', null)
      .where('p.trashed_at', 'is not', null)
      .execute();
  }

  /** Every path is its parent's path and its own id: no cycle, no stale prefix. */
  async function expectTruePaths() {
    const rows = await t.platform.regions[org.region].store.db
      .selectFrom('nodes')
      .selectAll()
      .where('org_id', '=', org.orgId)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const row of rows) {
      const parent = row.parent_id ? byId.get(row.parent_id) : undefined;
      expect(row.path).toBe(parent ? `${parent.path}${row.id}/` : `/${row.id}/`);
    }
  }

  it('a move into a subtree being trashed either lands in the trash with it or is refused', async () => {
    const division = await createNode(org, org.orgId, 'division');
    for (let round = 0; round < 12; round += 1) {
      const doomed = await createNode(org, division, 'folder', `Doomed ${round}`);
      const target = await createNode(org, await createNode(org, doomed, 'folder'), 'folder', 'Target');
      const moved = await createNode(org, division, 'folder', `Moved ${round}`);
      await createNode(org, moved, 'folder', 'Inside');
      const [move, trash] = await Promise.all([
        org.admin.patch(`/v1/nodes/${moved}/move/${target}`),
        org.admin.delete(`/v1/nodes/${doomed}`),
      ]);
      expect([200, 409]).toContain(move.status);
      expect([204, 409]).toContain(trash.status);
      expect(await orphans()).toEqual([]);
    }
  });

  it('a folder created while an ancestor moves or goes to the trash keeps a true path', async () => {
    const division = await createNode(org, org.orgId, 'division');
    const elsewhere = await createNode(org, org.orgId, 'division', 'Elsewhere');
    for (let round = 0; round < 12; round += 1) {
      const moved = await createNode(org, division, 'folder', `Moved ${round}`);
      const doomed = await createNode(org, division, 'folder', `Doomed ${round}`);
      const [underMoved, underDoomed] = await Promise.all(
        [moved, doomed].map(async (id) => createNode(org, await createNode(org, id, 'folder'), 'folder')),
      );
      const [move, trash, ...creations] = await Promise.all([
        org.admin.patch(`/v1/nodes/${moved}/move/${elsewhere}`),
        org.admin.delete(`/v1/nodes/${doomed}`),
        org.admin.post(`/v1/nodes/${underMoved}/folder`, { name: 'New' }),
        org.admin.post(`/v1/nodes/${underDoomed}/folder`, { name: 'New' }),
      ]);
      expect([move.status, trash.status]).toEqual([200, 204]);
      for (const created of creations) expect([201, 404]).toContain(created.status);
      expect(await orphans()).toEqual([]);
      await expectTruePaths();
    }
  });

  it('two folders moved into each other at once never form a cycle', async () => {
    const division = await createNode(org, org.orgId, 'division');
    for (let round = 0; round < 12; round += 1) {
      const left = await createNode(org, division, 'folder', `Left ${round}`);
      const right = await createNode(org, division, 'folder', `Right ${round}`);
      const underLeft = await createNode(org, left, 'folder');
      const underRight = await createNode(org, right, 'folder');
      const [first, second] = await Promise.all([
        org.admin.patch(`/v1/nodes/${left}/move/${underRight}`),
        org.admin.patch(`/v1/nodes/${right}/move/${underLeft}`),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
      await expectTruePaths();
    }
  });

  it('a restore under a parent being trashed either lands in the trash with it or is refused', async () => {
    const division = await createNode(org, org.orgId, 'division');
    for (let round = 0; round < 12; round += 1) {
      const doomed = await createNode(org, division, 'folder', `Doomed ${round}`);
      const parent = await createNode(org, doomed, 'folder', 'Parent');
      const restored = await createNode(org, parent, 'folder', `Restored ${round}`);
      await createNode(org, restored, 'folder', 'Inside');
      expect((await org.admin.delete(`/v1/nodes/${restored}`)).status).toBe(204);
      const [restore, trash] = await Promise.all([
        org.admin.patch(`/v1/nodes/${restored}/restore`),
        org.admin.delete(`/v1/nodes/${doomed}`),
      ]);
      expect([200, 409]).toContain(restore.status);
      expect([204, 409]).toContain(trash.status);
      expect(await orphans()).toEqual([]);
    }
  });
});
