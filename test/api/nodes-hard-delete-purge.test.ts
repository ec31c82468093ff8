import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/nodes/delete.js';
import { purgeTrash } from '../../src/jobs/housekeeping.js';
import { createNode, insertDataNode, link, type OrgFixture, requestBetweenSnapshots } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

/** The rows that hang off the given nodes, in every table a hard delete must clear. */
async function rowsOf(t: TestPlatform, org: OrgFixture, ids: string[]) {
  const db = t.platform.regions[org.region].store.db;
  const [nodes, memberships, links, thumbnails] = await Promise.all([
    db.selectFrom('nodes').select('id').where('id', 'in', ids).execute(),
    db.selectFrom('memberships').select('node_id').where('node_id', 'in', ids).execute(),
    db
      .selectFrom('node_links')
      .select(['from_id', 'to_id'])
      .where((eb) => eb.or([eb('from_id', 'in', ids), eb('to_id', 'in', ids)]))
      .execute(),
    db.selectFrom('node_thumbnails').select('node_id').where('node_id', 'in', ids).execute(),
  ]);
  return { nodes: nodes.length, memberships: memberships.length, links: links.length, thumbnails: thumbnails.length };
}

/**
 * A site holding a folder subtree with a membership, thumbnails and links (one from a bundle
 * outside it), and a sibling folder with the same kinds of rows that must survive.
 */
async function buildSubtree(t: TestPlatform, org: OrgFixture) {
  const site = await createNode(org, await createNode(org, org.orgId, 'division'), 'site');
  const folder = await createNode(org, site, 'folder', 'Doomed');
  const child = await createNode(org, folder, 'folder', 'Child');
  const source = (await insertDataNode(t, org, child, { kind: 'dataBundle' })).id;
  const derivative = (await insertDataNode(t, org, child, { kind: 'pointCloud' })).id;
  const outsideBundle = (await insertDataNode(t, org, site, { kind: 'dataBundle' })).id;
  await link(t, org, 'derivative', source, derivative);
  await link(t, org, 'dependant', outsideBundle, derivative);
  const sibling = await createNode(org, site, 'folder', 'Kept');
  for (const id of [folder, derivative, sibling]) {
    const put = await org.admin.request('PUT', `/v1/nodes/${id}/thumbnail`, PNG, { 'content-type': 'image/png' });
    expect(put.status).toBe(200);
  }
  for (const nodeId of [folder, sibling]) await org.serviceClient({ roleName: 'Viewer', nodeId });
  return { site, folder, child, sibling, outsideBundle, subtree: [folder, child, source, derivative] };
}

describe('DELETE /v1/nodes/{nodeId}/hard', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  it('204, and the rows of the subtree are gone from nodes, memberships, links and thumbnails', async () => {
    const tree = await buildSubtree(t, org);
    expect(await rowsOf(t, org, tree.subtree)).toEqual({ nodes: 4, memberships: 1, links: 2, thumbnails: 2 });
    const survivors = [tree.site, tree.sibling, tree.outsideBundle];
    const survivorRows = await rowsOf(t, org, survivors);

    expect((await org.admin.delete(`/v1/nodes/${tree.folder}`)).status).toBe(204);
    const removed = await org.admin.delete(`/v1/nodes/${tree.folder}/hard`);
    expect(removed.status).toBe(204);
    expect(await rowsOf(t, org, tree.subtree)).toEqual({ nodes: 0, memberships: 0, links: 0, thumbnails: 0 });
    expect(await rowsOf(t, org, survivors)).toEqual({ ...survivorRows, links: 0 });
    expect((await org.admin.get('/v1/trash')).body).toEqual([]);
    for (const send of [
      () => org.admin.patch(`/v1/nodes/${tree.folder}/restore`),
      () => org.admin.delete(`/v1/nodes/${tree.folder}/hard`),
    ]) {
      const { response, before, after } = await requestBetweenSnapshots(t, org, send);
      expect(response.status).toBe(404);
      expect(after).toEqual(before);
    }
  });

  it('409 NoNodeRemoved for an active node and for a descendant trashed only with its root', async () => {
    const tree = await buildSubtree(t, org);
    for (const id of [tree.folder, tree.child]) {
      const { response, before, after } = await requestBetweenSnapshots(t, org, () => org.admin.delete(`/v1/nodes/${id}/hard`));
      expect(response.body).toMatchObject({ statusCode: 409, error: 'NoNodeRemoved' });
      expect(after).toEqual(before);
    }
    expect((await org.admin.delete(`/v1/nodes/${tree.folder}`)).status).toBe(204);
    const { response, before, after } = await requestBetweenSnapshots(t, org, () =>
      org.admin.delete(`/v1/nodes/${tree.child}/hard`),
    );
    expect(response.body).toMatchObject({ statusCode: 409, error: 'NoNodeRemoved' });
    expect(response.status).toBe(409);
    expect(after).toEqual(before);
    expect(await rowsOf(t, org, tree.subtree)).toMatchObject({ nodes: 4, memberships: 1 });
  });
});

describe('the trash purge (purgeTrash, as the scheduler runs it)', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  // Moving the clock days ahead expires access tokens: each step takes a fresh one.
  const renewToken = async () => {
    org = { ...org, admin: (await org.serviceClient({ roleName: 'Organization Administrator' })).client };
  };

  it('removes what was trashed more than 30 days ago and keeps what was trashed 29 days ago', async () => {
    const old = await buildSubtree(t, org);
    expect((await org.admin.delete(`/v1/nodes/${old.folder}`)).status).toBe(204);
    t.clock.advance(2 * DAY_MS);

    await renewToken();
    const recent = await buildSubtree(t, org);
    expect((await org.admin.delete(`/v1/nodes/${recent.folder}`)).status).toBe(204);
    const restoredInTime = await createNode(org, recent.site, 'folder', 'Restored in time');
    expect((await org.admin.delete(`/v1/nodes/${restoredInTime}`)).status).toBe(204);
    t.clock.advance(29 * DAY_MS);

    await renewToken();
    expect((await org.admin.patch(`/v1/nodes/${restoredInTime}/restore`)).status).toBe(200);
    // 31 days for the old subtree, 29 for the recent one.
    expect(await purgeTrash(t.platform)).toEqual({ ca: 0, us: 0, eu: 1, au: 0 });
    expect(await rowsOf(t, org, old.subtree)).toEqual({ nodes: 0, memberships: 0, links: 0, thumbnails: 0 });
    expect(await rowsOf(t, org, recent.subtree)).toEqual({ nodes: 4, memberships: 1, links: 2, thumbnails: 2 });
    expect(await rowsOf(t, org, [old.sibling, old.site])).toMatchObject({ nodes: 2, memberships: 1, thumbnails: 1 });
    expect(((await org.admin.get('/v1/trash')).body as { id: string }[]).map((node) => node.id)).toEqual([recent.folder]);
    expect((await org.admin.get(`/v1/nodes/${restoredInTime}`)).status).toBe(200);

    // A second run finds nothing new; two days later the recent subtree goes as well.
    expect(await purgeTrash(t.platform)).toEqual({ ca: 0, us: 0, eu: 0, au: 0 });
    t.clock.advance(2 * DAY_MS);
    expect(await purgeTrash(t.platform)).toEqual({ ca: 0, us: 0, eu: 1, au: 0 });
    expect(await rowsOf(t, org, recent.subtree)).toEqual({ nodes: 0, memberships: 0, links: 0, thumbnails: 0 });
    expect((await rowsOf(t, org, [restoredInTime])).nodes).toBe(1);
  });
});
