import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/adapters/db/schema.js';
import { createNode, createOrg, insertDataNode, link, nodeRow, type OrgFixture, snapshot } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

/** Soft delete, the trash list and restore. */
describe('DELETE /v1/nodes/{nodeId}, GET /v1/trash and PATCH /v1/nodes/{nodeId}/restore', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let division: string;
  let site: string;
  beforeAll(async () => {
    t = await startPlatform();
  });
  beforeEach(async () => {
    org = await createOrg(t);
    division = await createNode(org, org.orgId, 'division');
    site = await createNode(org, division, 'site');
  });
  afterAll(() => t.close());

  const data = async (parentId: string, fields: Partial<NodeRow> = {}) =>
    (await insertDataNode(t, org, parentId, { kind: 'pointCloud', ...fields })).id;
  /** An id, with its path, that sorts before ('0') or after ('f') every random id under the parent. */
  const sortingId = async (parentId: string, end: '0' | 'f') => {
    const id = `${end.repeat(8)}${randomUUID().slice(8)}`;
    return { id, path: `${(await nodeRow(t, org, parentId))?.path}${id}/` };
  };
  const remove = (nodeId: string) => org.admin.delete(`/v1/nodes/${nodeId}`);
  const restore = (nodeId: string) => org.admin.patch(`/v1/nodes/${nodeId}/restore`);
  const status = async (path: string) => (await org.admin.get(path)).status;
  const childIds = async (parentId: string) =>
    ((await org.admin.get(`/v1/nodes/${parentId}/browse`)).body as { id: string }[]).map((node) => node.id);
  const trashIds = async () => ((await org.admin.get('/v1/trash')).body as { id: string }[]).map((node) => node.id);

  const refused = refuser(() => snapshot(t, org));

  describe('soft delete', () => {
    it('204; the subtree is gone from browse and get, and only its root is in the trash', async () => {
      const folder = await createNode(org, site, 'folder');
      const child = await createNode(org, folder, 'folder', 'Child');
      const item = await data(child);
      const kept = await createNode(org, site, 'folder', 'Kept');

      const response = await remove(folder);
      expect(response.status).toBe(204);
      expect(response.body).toBe('');
      expect(await childIds(site)).toEqual([kept]);
      for (const id of [folder, child, item]) {
        expect(await status(`/v1/nodes/${id}`)).toBe(404);
      }
      expect(await status(`/v1/nodes/${folder}/browse`)).toBe(404);
      const trash = (await org.admin.get('/v1/trash')).body as { id: string; trashedAt: string }[];
      expect(trash.map((node) => node.id)).toEqual([folder]);
      expect(trash[0]?.trashedAt).toEqual(expect.any(String));
      // A trashed node is not deleted a second time, nor its descendants.
      await refused(() => remove(folder), 404, 'Not Found');
      await refused(() => remove(item), 404, 'Not Found');
    });

    it('NodeHasDerivatives lists the derivatives outside the subtree; with them inside it goes', async () => {
      const folder = await createNode(org, site, 'folder');
      const source = await data(folder, { kind: 'dataBundle', name: 'Scan' });
      // Ids that sort before and after every other: subtree checks are path ranges, both ends count.
      const first = await data(folder, { ...(await sortingId(folder, '0')), kind: 'mesh', name: 'Scan mesh' });
      const last = await data(folder, { ...(await sortingId(folder, 'f')), name: 'Scan points' });
      const outside = await data(site, { ...(await sortingId(site, 'f')), name: 'Scan cloud' });
      for (const derivative of [first, last, outside]) await link(t, org, 'derivative', source, derivative);

      const { body } = await refused(() => remove(source), 409, 'NodeHasDerivatives');
      expect(body.derivatives).toEqual([
        { id: outside, name: 'Scan cloud' },
        { id: first, name: 'Scan mesh' },
        { id: last, name: 'Scan points' },
      ]);
      const ofFolder = (await refused(() => remove(folder), 409, 'NodeHasDerivatives')).body;
      expect(ofFolder.derivatives).toEqual([{ id: outside, name: 'Scan cloud' }]);

      // The derivative itself may go; then the folder may go too.
      expect((await remove(outside)).status).toBe(204);
      expect((await remove(folder)).status).toBe(204);
    });

    it('NodeNotInDeletableState reports isProcessing and isFailed, also from deep in a subtree', async () => {
      const processing = await data(site, { is_processing: 1 });
      const failed = await data(site, { is_failed: 1 });
      expect((await refused(() => remove(processing), 409, 'NodeNotInDeletableState')).body).toMatchObject({
        isProcessing: true,
        isFailed: false,
      });
      expect((await refused(() => remove(failed), 409, 'NodeNotInDeletableState')).body).toMatchObject({
        isProcessing: false,
        isFailed: true,
      });

      const folder = await createNode(org, site, 'folder');
      const deep = await createNode(org, await createNode(org, folder, 'folder'), 'folder');
      await data(deep, { is_processing: 1 });
      expect((await refused(() => remove(folder), 409, 'NodeNotInDeletableState')).body).toMatchObject({
        isProcessing: true,
        isFailed: false,
      });
      expect((await refused(() => remove(site), 409, 'NodeNotInDeletableState')).body).toMatchObject({
        isProcessing: true,
        isFailed: true,
      });
    });

    it('NodeHasBundleDependants when a dependant lies outside the subtree', async () => {
      const holder = await createNode(org, site, 'folder', 'Holder');
      const bundle = await data(holder, { kind: 'dataBundle' });
      const before = await data(site, { ...(await sortingId(site, '0')), kind: 'planningProject' });
      const after = await data(holder, { ...(await sortingId(holder, 'f')), kind: 'twin' });
      await link(t, org, 'dependant', bundle, before);
      await refused(() => remove(holder), 409, 'NodeHasBundleDependants');
      await refused(() => remove(bundle), 409, 'NodeHasBundleDependants');
      // The dependant sorting after the bundle blocks on its own.
      await link(t, org, 'dependant', bundle, after);
      expect((await remove(before)).status).toBe(204);
      await refused(() => remove(bundle), 409, 'NodeHasBundleDependants');
      // Bundle and dependant leave together.
      expect((await remove(site)).status).toBe(204);
    });

    it('DeleteNodeFailed for the organization node', async () => {
      await refused(() => remove(org.orgId), 409, 'DeleteNodeFailed');
    });
  });

  describe('restore', () => {
    it('brings the whole subtree back and empties the trash entry', async () => {
      const folder = await createNode(org, site, 'folder');
      const child = await createNode(org, folder, 'folder', 'Child');
      const item = await data(child);
      expect((await remove(folder)).status).toBe(204);

      const restored = await restore(folder);
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ id: folder, parentId: site, trashedAt: null });
      expect(await childIds(site)).toEqual([folder]);
      expect(await childIds(child)).toEqual([item]);
      expect((await org.admin.get(`/v1/nodes/${item}`)).body.trashedAt).toBeNull();
      expect(await trashIds()).toEqual([]);
    });

    it('StorageLimitExceeded when the restored bytes do not fit; fits again once space is freed', async () => {
      org = await createOrg(t, { storageQuota: 1000 });
      const quotaSite = await createNode(org, await createNode(org, org.orgId, 'division'), 'site');
      const first = await data(quotaSite, { name: 'First', size_bytes: 600 });
      expect((await remove(first)).status).toBe(204);
      const second = await data(quotaSite, { name: 'Second', size_bytes: 600 });

      const { body } = await refused(() => restore(first), 409, 'StorageLimitExceeded');
      expect(body.statusCode).toBe(409);
      expect(await trashIds()).toEqual([first]);

      expect((await remove(second)).status).toBe(204);
      expect((await restore(first)).status).toBe(200);

      // With the quota lowered below what is in use, a restore adding bytes is refused, an empty folder comes back.
      await t.admin.setOrganizationLimits(org.orgId, { storageQuota: 500 });
      const empty = await createNode(org, quotaSite, 'folder', 'Empty');
      const tiny = await data(quotaSite, { name: 'Tiny', size_bytes: 1 });
      for (const id of [empty, tiny]) expect((await remove(id)).status).toBe(204);
      await refused(() => restore(tiny), 409, 'StorageLimitExceeded');
      expect((await restore(empty)).status).toBe(200);
    });

    it('RestoreNodeFailed for an active node, a descendant trashed with its root, and under a trashed parent', async () => {
      const folder = await createNode(org, site, 'folder');
      const child = await createNode(org, folder, 'folder', 'Child');
      const alone = await createNode(org, folder, 'folder', 'Alone');
      await refused(() => restore(folder), 409, 'RestoreNodeFailed');

      // Trashed on its own first, then its parent went to the trash too.
      expect((await remove(alone)).status).toBe(204);
      expect((await remove(folder)).status).toBe(204);
      await refused(() => restore(child), 409, 'RestoreNodeFailed');
      await refused(() => restore(alone), 409, 'RestoreNodeFailed');
      expect((await trashIds()).sort()).toEqual([folder, alone].sort());

      // Restoring the parent leaves the separately trashed child in the trash.
      expect((await restore(folder)).status).toBe(200);
      expect(await childIds(folder)).toEqual([child]);
      expect((await restore(alone)).status).toBe(200);
      expect(await childIds(folder)).toEqual([alone, child]);
    });
  });
});
