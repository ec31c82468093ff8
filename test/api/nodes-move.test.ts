import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNode, createOrg, nodeRow, type OrgFixture, snapshot } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

/** The move route of the spec, with force in the body, the query, or not at all. */
function move(org: OrgFixture, nodeId: string, targetId: string, force?: 'body' | 'query') {
  if (force === 'query') return org.admin.patch(`/v1/nodes/${nodeId}/move/${targetId}?force=true`);
  return org.admin.patch(`/v1/nodes/${nodeId}/move/${targetId}`, force === 'body' ? { force: true } : undefined);
}

const childIds = async (org: OrgFixture, parentId: string) =>
  ((await org.admin.get(`/v1/nodes/${parentId}/browse`)).body as { id: string }[]).map((node) => node.id);

describe('PATCH /v1/nodes/{nodeId}/move/{newParentId}', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform();
  });
  beforeEach(async () => {
    org = await createOrg(t);
  });
  afterAll(() => t.close());
  const refused = refuser(() => snapshot(t, org));

  it('moves a subtree: browse, get, paths, depths and site context follow', async () => {
    const division = await createNode(org, org.orgId, 'division');
    const fromSite = await createNode(org, division, 'site', 'From');
    const toSite = await createNode(org, division, 'site', 'To');
    const folder = await createNode(org, fromSite, 'folder', 'Moved');
    const child = await createNode(org, folder, 'folder', 'Child');
    const grandchild = await createNode(org, child, 'folder', 'Grandchild');

    const moved = await move(org, folder, toSite);
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: folder, parentId: toSite, type: 'folder', name: 'Moved' });
    expect(await childIds(org, toSite)).toEqual([folder]);
    expect(await childIds(org, fromSite)).toEqual([]);
    expect(await childIds(org, folder)).toEqual([child]);
    const got = await org.admin.get(`/v1/nodes/${grandchild}`);
    expect(got.status).toBe(200);
    expect(got.body.parentId).toBe(child);

    const site = await nodeRow(t, org, toSite);
    const rows = await Promise.all([folder, child, grandchild].map((id) => nodeRow(t, org, id)));
    expect(rows.map((row) => row?.path)).toEqual([
      `${site?.path}${folder}/`,
      `${site?.path}${folder}/${child}/`,
      `${site?.path}${folder}/${child}/${grandchild}/`,
    ]);
    expect(rows.map((row) => row?.depth)).toEqual([3, 4, 5]);
    expect(rows.map((row) => row?.site_id)).toEqual([toSite, toSite, toSite]);
  });

  it('a folder leaving a site for a division leaves the site context, and a move to the current parent changes nothing', async () => {
    const division = await createNode(org, org.orgId, 'division');
    const site = await createNode(org, division, 'site');
    const folder = await createNode(org, site, 'folder');
    const child = await createNode(org, folder, 'folder');
    expect((await move(org, folder, division)).status).toBe(200);
    expect((await nodeRow(t, org, child))?.site_id).toBeNull();
    // Now outside a site, the folder may hold a site.
    expect((await org.admin.post(`/v1/nodes/${child}/site`, { name: 'Inner', address: 'x' })).status).toBe(201);

    const before = await snapshot(t, org);
    const again = await move(org, folder, division);
    expect(again.status).toBe(200);
    expect(again.body.parentId).toBe(division);
    expect(await snapshot(t, org)).toEqual(before);
  });

  describe('AccessRightsChangeRequired', () => {
    let from: string;
    let guarded: string;
    let folder: string;
    beforeEach(async () => {
      from = await createNode(org, org.orgId, 'division', 'From');
      guarded = await createNode(org, org.orgId, 'division', 'Guarded');
      folder = await createNode(org, from, 'folder');
      await createNode(org, folder, 'folder', 'Inside');
      // A membership of its own makes the guarded division a permission boundary.
      await org.serviceClient({ roleName: 'Viewer', nodeId: guarded });
    });

    it('is refused without force and changes nothing', async () => {
      const { body } = await refused(() => move(org, folder, guarded), 409, 'AccessRightsChangeRequired');
      expect(body.message).toMatch(/access/);
      await refused(
        () => org.admin.patch(`/v1/nodes/${folder}/move/${guarded}`, { force: false }),
        409,
        'AccessRightsChangeRequired',
      );
    });

    it('goes ahead with force true in the body', async () => {
      const moved = await move(org, folder, guarded, 'body');
      expect(moved.status).toBe(200);
      expect(await childIds(org, guarded)).toEqual([folder]);
    });

    it('goes ahead with ?force=true, in both directions across the boundary', async () => {
      expect((await move(org, folder, guarded, 'query')).status).toBe(200);
      await refused(() => move(org, folder, from), 409, 'AccessRightsChangeRequired');
      expect((await move(org, folder, from, 'query')).status).toBe(200);
      expect(await childIds(org, from)).toEqual([folder]);
    });

    it('is not asked when the nearest boundary stays the same', async () => {
      const open = await createNode(org, org.orgId, 'division', 'Open');
      expect((await move(org, folder, open)).status).toBe(200);
    });
  });

  describe('NodeHaveMembershipsAttached', () => {
    it('refuses a subtree with memberships across a boundary, even with force', async () => {
      const from = await createNode(org, org.orgId, 'division', 'From');
      const guarded = await createNode(org, org.orgId, 'division', 'Guarded');
      const open = await createNode(org, org.orgId, 'division', 'Open');
      const folder = await createNode(org, from, 'folder');
      const inner = await createNode(org, folder, 'folder', 'Inner');
      await org.serviceClient({ roleName: 'Viewer', nodeId: guarded });
      await org.serviceClient({ roleName: 'Viewer', nodeId: inner });

      await refused(() => move(org, folder, guarded), 409, 'NodeHaveMembershipsAttached');
      await refused(() => move(org, folder, guarded, 'body'), 409, 'NodeHaveMembershipsAttached');
      await refused(() => move(org, folder, guarded, 'query'), 409, 'NodeHaveMembershipsAttached');
      // Within the same permission scope the memberships travel along.
      expect((await move(org, folder, open)).status).toBe(200);
    });
  });

  it('CircularityFound: into itself, its child or a deeper descendant', async () => {
    const division = await createNode(org, org.orgId, 'division');
    const folder = await createNode(org, division, 'folder');
    const child = await createNode(org, folder, 'folder');
    const grandchild = await createNode(org, child, 'folder');
    for (const target of [folder, child, grandchild]) {
      await refused(() => move(org, folder, target), 409, 'CircularityFound');
    }
  });

  it('NodesInDifferentRegions: the target belongs to an organization of another region', async () => {
    const folder = await createNode(org, await createNode(org, org.orgId, 'division'), 'folder');
    const elsewhere = await createOrg(t, { region: 'us' });
    const foreignDivision = await createNode(elsewhere, elsewhere.orgId, 'division');
    const foreignBefore = await snapshot(t, elsewhere);
    await refused(() => move(org, folder, foreignDivision), 409, 'NodesInDifferentRegions');
    expect(await snapshot(t, elsewhere)).toEqual(foreignBefore);
  });

  it('NodeCannotBeMoved: a division or the organization, even to where it already is', async () => {
    const division = await createNode(org, org.orgId, 'division');
    const other = await createNode(org, org.orgId, 'division', 'Other');
    await refused(() => move(org, division, other), 409, 'NodeCannotBeMoved');
    await refused(() => move(org, division, org.orgId), 409, 'NodeCannotBeMoved');
    await refused(() => move(org, org.orgId, division), 409, 'NodeCannotBeMoved');
  });

  it('MoveNodeFailed: the target parent is in the trash', async () => {
    const division = await createNode(org, org.orgId, 'division');
    const folder = await createNode(org, division, 'folder');
    const trashed = await createNode(org, division, 'folder', 'Trashed');
    expect((await org.admin.delete(`/v1/nodes/${trashed}`)).status).toBe(204);
    await refused(() => move(org, folder, trashed), 409, 'MoveNodeFailed');
    await refused(() => move(org, folder, trashed, 'body'), 409, 'MoveNodeFailed');
  });

  it('404 for an unknown node, an unknown target, a trashed node and another organization’s node', async () => {
    const division = await createNode(org, org.orgId, 'division');
    const folder = await createNode(org, division, 'folder');
    const trashed = await createNode(org, division, 'folder', 'Trashed');
    expect((await org.admin.delete(`/v1/nodes/${trashed}`)).status).toBe(204);
    const neighbour = await createOrg(t);
    const theirs = await createNode(neighbour, neighbour.orgId, 'division');
    await refused(() => move(org, randomUUID(), division), 404, 'Not Found');
    await refused(() => move(org, folder, randomUUID()), 404, 'Not Found');
    await refused(() => move(org, trashed, division), 404, 'Not Found');
    await refused(() => move(org, folder, theirs), 404, 'Not Found');
  });

  it('403 Forbidden resource when the caller may edit the node but not the target', async () => {
    const own = await createNode(org, org.orgId, 'division', 'Own');
    const foreign = await createNode(org, org.orgId, 'division', 'Foreign');
    const folder = await createNode(org, own, 'folder');
    const sibling = await createNode(org, own, 'folder', 'Sibling');
    const { client } = await org.serviceClient({ roleName: 'Contributor', nodeId: own });
    const { body } = await refused(() => client.patch(`/v1/nodes/${folder}/move/${foreign}`), 403, 'Forbidden');
    expect(body.message).toBe('Forbidden resource');
    // The same caller may move within the division it can edit.
    expect((await client.patch(`/v1/nodes/${folder}/move/${sibling}`)).status).toBe(200);
  });
});

describe('MaxDepthExceeded with RDP_MAX_HIERARCHY_DEPTH=4', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform({ RDP_MAX_HIERARCHY_DEPTH: '4' });
    org = await createOrg(t);
  });
  afterAll(() => t.close());
  const refused = refuser(() => snapshot(t, org));

  it('refuses a move that would place any node of the subtree below depth 4', async () => {
    const division = await createNode(org, org.orgId, 'division'); // depth 1
    const level2 = await createNode(org, division, 'folder', 'L2');
    const level3 = await createNode(org, level2, 'folder', 'L3');
    const level4 = await createNode(org, level3, 'folder', 'L4');
    const parent = await createNode(org, division, 'folder', 'Parent'); // depth 2
    const child = await createNode(org, parent, 'folder', 'Child'); // depth 3

    // A leaf under a depth 4 node would sit at 5.
    await refused(() => move(org, child, level4), 409, 'MaxDepthExceeded');
    // A node that fits itself, but whose child would sit at 5.
    await refused(() => move(org, parent, level3), 409, 'MaxDepthExceeded');
    // Exactly at the maximum is allowed.
    expect((await move(org, parent, level2)).status).toBe(200);
    expect((await nodeRow(t, org, child))?.depth).toBe(4);
  });
});
