import { describe, expect, it } from 'vitest';
import { type ApiClient, createNode, type OrgFixture } from '../support/fixtures.js';
import { insertGroup, serviceApp, signedInPerson } from '../support/people-users.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** GET /v1/users/me/places and browsing towards places (docs/design/places.md). */
describe('places: GET /v1/users/me/places and browsing towards them', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let surveyor: string;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    const created = await org.admin.post('/v1/roles', { name: 'Surveyor', permissions: ['read', 'upload'] });
    surveyor = created.body.id;
  });

  const give = async (nodeId: string, principalId: string, roleId: string) => {
    const response = await org.admin.request('PUT', `/v1/nodes/${nodeId}/memberships/${principalId}`, { roleId });
    expect(response.status).toBe(200);
  };
  /** The node as the administrator's browse of its parent answers it. */
  const browsed = async (parentId: string, nodeId: string) => {
    const listing = await org.admin.get(`/v1/nodes/${parentId}/browse?limit=500`);
    return listing.body.find((node: { id: string }) => node.id === nodeId);
  };
  const ids = (body: { id: string }[]) => body.map((node) => node.id);
  const placeIds = async (client: ApiClient) => {
    const response = await client.get('/v1/users/me/places');
    expect(response.status).toBe(200);
    return response.body.items.map((item: { node: { id: string } }) => item.node.id);
  };

  it('lists the one division where a person holds a custom role; browse of the organization answers only that division', async () => {
    const divisionId = await createNode(org, org.orgId, 'division', 'Alpha');
    const otherId = await createNode(org, org.orgId, 'division', 'Beta');
    const otherSite = await createNode(org, otherId, 'site', 'Elsewhere');
    const person = await signedInPerson(t, org);
    await give(divisionId, person.id, surveyor);

    const places = await person.client.get('/v1/users/me/places');
    expect(places.status).toBe(200);
    expect(places.body).toEqual({
      items: [{ node: await browsed(org.orgId, divisionId), roleId: surveyor, roleName: 'Surveyor', inherited: false }],
      page: 0,
      limit: 100,
      total: 1,
    });

    const root = await person.client.get(`/v1/nodes/${org.orgId}/browse`);
    expect(root.status).toBe(200);
    expect(root.body).toEqual([await browsed(org.orgId, divisionId)]);

    // Nothing else of the organization or of the other division.
    expect((await person.client.get(`/v1/nodes/${org.orgId}`)).status).toBe(403);
    expect((await person.client.patch(`/v1/nodes/${org.orgId}`, { name: 'Mine' })).status).toBe(403);
    expect((await person.client.get(`/v1/nodes/${org.orgId}/memberships`)).status).toBe(403);
    expect((await person.client.post(`/v1/nodes/${org.orgId}/division`, { name: 'Mine' })).status).toBe(403);
    expect((await person.client.get(`/v1/nodes/${otherId}`)).status).toBe(403);
    expect((await person.client.get(`/v1/nodes/${otherId}/browse`)).status).toBe(403);
    expect((await person.client.get(`/v1/nodes/${otherSite}/browse`)).status).toBe(403);
    expect((await person.client.get(`/v1/nodes/${divisionId}/browse`)).status).toBe(200);
  });

  it('browses each node on the way (division, folder) to a deeper place: only the child that leads there', async () => {
    // Divisions do not nest (docs/design/hierarchy.md#node-kinds): the way down is division > folder > site.
    const outer = await createNode(org, org.orgId, 'division', 'Gamma');
    const folder = await createNode(org, outer, 'folder', 'Region');
    const inner = await createNode(org, folder, 'site', 'Inner');
    await createNode(org, folder, 'site', 'Beside');
    await createNode(org, outer, 'folder', 'Another');
    const second = await createNode(org, org.orgId, 'division', 'Delta');
    const holder = await serviceApp(t, org);
    await give(inner, holder.userId, surveyor);
    await give(second, holder.userId, org.roles.Viewer as string);

    expect(await placeIds(holder.client)).toEqual([second, inner]);
    const outerBrowse = await holder.client.get(`/v1/nodes/${outer}/browse`);
    expect(outerBrowse.status).toBe(200);
    expect(outerBrowse.body).toEqual([await browsed(outer, folder)]);
    expect(ids((await holder.client.get(`/v1/nodes/${folder}/browse`)).body)).toEqual([inner]);
    expect((await holder.client.get(`/v1/nodes/${outer}`)).status).toBe(403);
    expect((await holder.client.get(`/v1/nodes/${folder}`)).status).toBe(403);
    expect((await holder.client.get(`/v1/nodes/${inner}`)).status).toBe(200);

    // Two ways down from the organization, a page each.
    const first = await holder.client.get(`/v1/nodes/${org.orgId}/browse?limit=1`);
    expect(ids(first.body)).toEqual([second]);
    const cursor = first.headers.get('next-cursor');
    expect(cursor).toBeTruthy();
    const next = await holder.client.get(`/v1/nodes/${org.orgId}/browse?limit=1&cursor=${encodeURIComponent(cursor as string)}`);
    expect(next.status).toBe(200);
    expect(ids(next.body)).toEqual([outer]);
    expect(ids((await holder.client.get(`/v1/nodes/${org.orgId}/browse?limit=1&offset=1`)).body)).toEqual([outer]);
  });

  it('a way through a node restricted to another identity provider is refused as the place would be', async () => {
    const restricted = await createNode(org, org.orgId, 'division', 'Iota');
    const folder = await createNode(org, restricted, 'folder', 'Region');
    const siteId = await createNode(org, folder, 'site', 'Restricted plant');
    const person = await signedInPerson(t, org);
    await give(siteId, person.id, surveyor);
    // Before the person reads anything, so no access result of theirs is cached (docs/design/access.md).
    await t.platform.regions[org.region].store.db
      .updateTable('nodes')
      .set({ required_identity_provider: 'corporate-okta' })
      .where('id', '=', restricted)
      .execute();

    expect(await placeIds(person.client)).toEqual([siteId]);
    expect(ids((await person.client.get(`/v1/nodes/${org.orgId}/browse`)).body)).toEqual([restricted]);
    for (const nodeId of [restricted, folder, siteId]) {
      const response = await person.client.get(`/v1/nodes/${nodeId}/browse`);
      expect(response.status).toBe(403);
      expect(response.body.errorCode).toBe('SSORestrictedResource');
    }
  });

  it('lists a place held through a group', async () => {
    const divisionId = await createNode(org, org.orgId, 'division', 'Epsilon');
    const holder = await serviceApp(t, org);
    const groupId = await insertGroup(t, org, { members: [holder.userId] });
    await give(divisionId, groupId, org.roles.Viewer as string);

    const places = await holder.client.get('/v1/users/me/places');
    expect(places.body.items).toEqual([
      { node: await browsed(org.orgId, divisionId), roleId: org.roles.Viewer, roleName: 'Viewer', inherited: false },
    ]);
    expect(ids((await holder.client.get(`/v1/nodes/${org.orgId}/browse`)).body)).toEqual([divisionId]);
  });

  it('lists a division alone when the role is held on it and on a site below it; pages by limit and offset', async () => {
    const divisionId = await createNode(org, org.orgId, 'division', 'Zeta');
    const siteId = await createNode(org, divisionId, 'site', 'Plant');
    const otherId = await createNode(org, org.orgId, 'division', 'Eta');
    const person = await signedInPerson(t, org);
    await give(siteId, person.id, org.roles.Manager as string);
    await give(divisionId, person.id, org.roles.Viewer as string);
    await give(otherId, person.id, surveyor);

    expect(await placeIds(person.client)).toEqual([otherId, divisionId]);
    const second = await person.client.get('/v1/users/me/places?limit=1&offset=1');
    expect(second.body).toMatchObject({ page: 1, limit: 1, total: 2 });
    expect(second.body.items.map((item: { node: { id: string }; roleName: string }) => [item.node.id, item.roleName])).toEqual([
      [divisionId, 'Viewer'],
    ]);
    expect((await person.client.get('/v1/users/me/places?limit=0')).status).toBe(400);
  });

  it('answers an administrator the organization, and a caller without roles nothing; a trashed place is gone', async () => {
    const admin = await org.admin.get('/v1/users/me/places');
    expect(admin.body).toEqual({
      items: [
        {
          node: expect.objectContaining({ id: org.orgId, type: 'organization', parentId: null }),
          roleId: 'organization-administrator',
          roleName: 'Organization Administrator',
          inherited: false,
        },
      ],
      page: 0,
      limit: 100,
      total: 1,
    });

    const nobody = await signedInPerson(t, org);
    expect((await nobody.client.get('/v1/users/me/places')).body).toEqual({ items: [], page: 0, limit: 100, total: 0 });
    expect((await nobody.client.get(`/v1/nodes/${org.orgId}/browse`)).status).toBe(403);

    const divisionId = await createNode(org, org.orgId, 'division', 'Theta');
    await give(divisionId, nobody.id, surveyor);
    expect(await placeIds(nobody.client)).toEqual([divisionId]);
    expect((await org.admin.delete(`/v1/nodes/${divisionId}`)).status).toBe(204);
    expect(await placeIds(nobody.client)).toEqual([]);
    expect((await nobody.client.get(`/v1/nodes/${org.orgId}/browse`)).status).toBe(403);
  });
});
