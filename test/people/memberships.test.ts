import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { createNode, createOrg, createTree, insertDataNode, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { auditEvents, insertGroup, peopleSnapshot, place, serviceApp } from '../support/people-users.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { expectRefused, refuser } from '../support/refusals.js';

describe('memberships: GET, PUT, DELETE /v1/nodes/{nodeId}/memberships[/{principalId}]', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  const put = (caller: OrgFixture['admin'], nodeId: string, principalId: string, roleId: string | undefined) =>
    caller.request('PUT', `/v1/nodes/${nodeId}/memberships/${principalId}`, { roleId });

  /** Sends a request that must be refused, and checks that nothing changed in either store. */
  const refused = refuser(() => peopleSnapshot(t, org));

  it('gives a service user a role on a node (200 with the membership), which then reaches the subtree', async () => {
    const { divisionId, siteId } = await createTree(org);
    const holder = await serviceApp(t, org);
    expect((await holder.client.get(`/v1/nodes/${siteId}`)).status).toBe(403);

    const response = await put(org.admin, divisionId, holder.userId, org.roles.Viewer);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      principalId: holder.userId,
      principalType: 'service',
      roleId: org.roles.Viewer,
      nodeId: divisionId,
      createdAt: expect.any(String),
    });
    expect((await holder.client.get(`/v1/nodes/${siteId}`)).status).toBe(200);
    expect((await holder.client.post(`/v1/nodes/${siteId}/folder`, { name: 'F' })).status).toBe(403);

    const listed = await org.admin.get(`/v1/nodes/${divisionId}/memberships`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([response.body]);
    const [event] = (await auditEvents(t, org, 'membership.set')).filter(
      (row) => row.target_id === `${divisionId}/${holder.userId}`,
    );
    expect(event).toMatchObject({ actor_type: 'principal', actor_id: org.adminServiceUserId, target_type: 'membership' });
    expect(event?.details).toEqual({
      nodeId: divisionId,
      principalId: holder.userId,
      principalType: 'service',
      roleId: org.roles.Viewer,
      previousRoleId: null,
    });
  });

  it('replaces the role of an existing membership, keeping its creation time; the same role again changes nothing', async () => {
    const { siteId } = await createTree(org);
    const holder = await serviceApp(t, org);
    const first = await put(org.admin, siteId, holder.userId, org.roles.Viewer);
    const second = await put(org.admin, siteId, holder.userId, org.roles.Contributor);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ...first.body, roleId: org.roles.Contributor });
    expect((await holder.client.post(`/v1/nodes/${siteId}/folder`, { name: 'F' })).status).toBe(201);
    const events = (await auditEvents(t, org, 'membership.set')).filter((row) => row.target_id === `${siteId}/${holder.userId}`);
    expect(events.map((event) => event.details.previousRoleId)).toEqual([null, org.roles.Viewer]);

    const before = await peopleSnapshot(t, org);
    expect((await put(org.admin, siteId, holder.userId, org.roles.Contributor)).body).toEqual(second.body);
    expect(await peopleSnapshot(t, org)).toEqual(before);
  });

  it('removes a membership (204, membership.removed): access ends; a second DELETE is 404', async () => {
    const { siteId } = await createTree(org);
    const holder = await serviceApp(t, org);
    await put(org.admin, siteId, holder.userId, org.roles.Viewer);
    expect((await holder.client.get(`/v1/nodes/${siteId}`)).status).toBe(200);

    expect((await org.admin.delete(`/v1/nodes/${siteId}/memberships/${holder.userId}`)).status).toBe(204);
    expect((await holder.client.get(`/v1/nodes/${siteId}`)).status).toBe(403);
    expect((await org.admin.get(`/v1/nodes/${siteId}/memberships`)).body).toEqual([]);
    const [event] = (await auditEvents(t, org, 'membership.removed')).filter(
      (row) => row.target_id === `${siteId}/${holder.userId}`,
    );
    expect(event?.details).toEqual({
      nodeId: siteId,
      principalId: holder.userId,
      principalType: 'service',
      roleId: org.roles.Viewer,
    });
    await refused(() => org.admin.delete(`/v1/nodes/${siteId}/memberships/${holder.userId}`), 404, 'Not Found');
  });

  it("gives a group a role: its members reach the node; the list can expand principals' names", async () => {
    const { siteId } = await createTree(org);
    const holder = await serviceApp(t, org);
    const person = await createMember(t, org);
    await t.platform.stores.global.db
      .updateTable('users')
      .set({ first_name: 'Ada', last_name: 'Lovelace' })
      .where('id', '=', person.id)
      .execute();
    const groupId = await insertGroup(t, org, { members: [holder.userId], name: 'Field team' });

    const response = await put(org.admin, siteId, groupId, org.roles.Viewer);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ principalId: groupId, principalType: 'group' });
    expect((await holder.client.get(`/v1/nodes/${siteId}`)).status).toBe(200);
    await put(org.admin, siteId, person.id, org.roles.Contributor);

    const plain = await org.admin.get(`/v1/nodes/${siteId}/memberships`);
    expect(plain.body.every((row: object) => !('principal' in row))).toBe(true);
    const expanded = await org.admin.get(`/v1/nodes/${siteId}/memberships?expand=principal`);
    expect(expanded.status).toBe(200);
    expect(expanded.body.map((row: { principalId: string; principal: object }) => [row.principalId, row.principal])).toEqual([
      [groupId, { name: 'Field team' }],
      [person.id, { name: 'Ada Lovelace', email: person.email }],
    ]);
    expect((await org.admin.get(`/v1/nodes/${siteId}/memberships?expand=roles`)).status).toBe(400);
    const page = await org.admin.get(`/v1/nodes/${siteId}/memberships?limit=1&offset=1`);
    expect(page.body.map((row: { principalId: string }) => row.principalId)).toEqual([person.id]);
  });

  describe('refuses a role that cannot be given there (400), storing nothing', () => {
    it('CustomRoleNotFound for a UUID that is no custom role of the organization', async () => {
      const holder = await serviceApp(t, org);
      const other = await createOrg(t);
      for (const roleId of [randomUUID(), other.roles.Viewer as string]) {
        await refused(() => put(org.admin, org.orgId, holder.userId, roleId), 400, 'CustomRoleNotFound');
      }
    });

    it('AdminsitrativeRoleNotFound (the spec spelling) for any other unknown id', async () => {
      const holder = await serviceApp(t, org);
      await refused(() => put(org.admin, org.orgId, holder.userId, 'organization-owner'), 400, 'AdminsitrativeRoleNotFound');
    });

    it('AdministrativeRoleInvalidNode for an administrative role below the organization node', async () => {
      const { divisionId, folderId } = await createTree(org);
      const holder = await serviceApp(t, org);
      for (const nodeId of [divisionId, folderId]) {
        await refused(() => put(org.admin, nodeId, holder.userId, 'organization-reader'), 400, 'AdministrativeRoleInvalidNode');
      }
    });

    it('CustomRoleNotAssignableToDataNode for a custom role on a data item', async () => {
      const { siteId } = await createTree(org);
      const bundle = await insertDataNode(t, org, siteId, { kind: 'dataBundle' });
      const holder = await serviceApp(t, org);
      await refused(() => put(org.admin, bundle.id, holder.userId, org.roles.Viewer), 400, 'CustomRoleNotAssignableToDataNode');
    });

    it('ValidationError without a roleId', async () => {
      const holder = await serviceApp(t, org);
      await refused(
        () => org.admin.request('PUT', `/v1/nodes/${org.orgId}/memberships/${holder.userId}`, {}),
        400,
        'ValidationError',
      );
    });
  });

  it('answers 404 for a principal that is not a user, service user or group of the organization', async () => {
    const other = await createOrg(t);
    const stranger = await createMember(t, other);
    const foreignGroup = await insertGroup(t, other);
    for (const principalId of [randomUUID(), stranger.id, other.adminServiceUserId, foreignGroup]) {
      await refused(() => put(org.admin, org.orgId, principalId, org.roles.Viewer), 404, 'Not Found');
    }
  });

  it("keeps a division's group inside its division: 400 GroupOutsideDivision elsewhere", async () => {
    const [east, west] = [
      await createNode(org, org.orgId, 'division', 'East'),
      await createNode(org, org.orgId, 'division', 'West'),
    ];
    const eastSite = await createNode(org, east, 'site');
    const groupId = await insertGroup(t, org, { divisionId: east });
    for (const nodeId of [west, org.orgId]) {
      await refused(() => put(org.admin, nodeId, groupId, org.roles.Viewer), 400, 'GroupOutsideDivision');
    }
    expect((await put(org.admin, east, groupId, org.roles.Viewer)).status).toBe(200);
    expect((await put(org.admin, eastSite, groupId, org.roles.Contributor)).status).toBe(200);
    // An organization group goes anywhere.
    const everywhere = await insertGroup(t, org);
    expect((await put(org.admin, west, everywhere, org.roles.Viewer)).status).toBe(200);
    expect((await put(org.admin, org.orgId, everywhere, 'organization-reader')).status).toBe(200);
  });

  it('needs manage on the node: a division manager manages its division, not the organization', async () => {
    const { divisionId, siteId } = await createTree(org);
    const manager = await org.serviceClient({ roleName: 'Manager', nodeId: divisionId });
    const contributor = await org.serviceClient({ roleName: 'Contributor' });
    const holder = await serviceApp(t, org);

    expect((await put(manager.client, siteId, holder.userId, org.roles.Viewer)).status).toBe(200);
    expect((await manager.client.get(`/v1/nodes/${siteId}/memberships`)).status).toBe(200);
    await refused(() => put(manager.client, org.orgId, holder.userId, org.roles.Viewer), 403, 'Forbidden');
    await refused(() => manager.client.get(`/v1/nodes/${org.orgId}/memberships`), 403, 'Forbidden');
    for (const send of [
      () => put(contributor.client, siteId, holder.userId, org.roles.Contributor),
      () => contributor.client.delete(`/v1/nodes/${siteId}/memberships/${holder.userId}`),
      () => contributor.client.get(`/v1/nodes/${siteId}/memberships`),
    ]) {
      await refused(send, 403, 'Forbidden');
    }
    // A node of another organization, or none, is 404 like elsewhere.
    const other = await createOrg(t);
    await refused(() => put(org.admin, other.orgId, holder.userId, 'organization-reader'), 404, 'Not Found');
    await refused(() => org.admin.get(`/v1/nodes/${randomUUID()}/memberships`), 404, 'Not Found');
  });

  it('is read by node moves: memberships given through the API make permission boundaries', async () => {
    const { siteId } = await createTree(org);
    const otherDivision = await createNode(org, org.orgId, 'division', 'Other');
    const folder = await createNode(org, siteId, 'folder', 'Scans');
    const holder = await serviceApp(t, org);
    const move = () => org.admin.patch(`/v1/nodes/${siteId}/move/${otherDivision}`);
    await put(org.admin, otherDivision, holder.userId, org.roles.Viewer);
    expect((await move()).body.error).toBe('AccessRightsChangeRequired');
    await put(org.admin, folder, holder.userId, org.roles.Viewer);
    expect((await move()).body.error).toBe('NodeHaveMembershipsAttached');
    expect((await org.admin.delete(`/v1/nodes/${folder}/memberships/${holder.userId}`)).status).toBe(204);
    expect((await org.admin.delete(`/v1/nodes/${otherDivision}/memberships/${holder.userId}`)).status).toBe(204);
    expect((await move()).status).toBe(200);
  });

  describe('administrators of the organization', () => {
    it('keeps user_organizations.is_admin in step with the Organization Administrator role on the organization node', async () => {
      const fresh = await createOrg(t);
      const [first, second] = [await createMember(t, fresh), await createMember(t, fresh)];
      expect((await place(t, fresh, first.id))?.is_admin).toBe(0);

      expect((await put(fresh.admin, fresh.orgId, first.id, 'organization-administrator')).status).toBe(200);
      expect((await place(t, fresh, first.id))?.is_admin).toBe(1);
      expect((await fresh.admin.get(`/v1/users/${first.id}`)).body.isAdmin).toBe(true);
      await put(fresh.admin, fresh.orgId, second.id, 'organization-administrator');

      // Another role on the organization node, or the role removed, clears it.
      expect((await put(fresh.admin, fresh.orgId, first.id, 'organization-reader')).status).toBe(200);
      expect((await place(t, fresh, first.id))?.is_admin).toBe(0);
      await put(fresh.admin, fresh.orgId, first.id, 'organization-administrator');
      expect((await fresh.admin.delete(`/v1/nodes/${fresh.orgId}/memberships/${first.id}`)).status).toBe(204);
      expect((await place(t, fresh, first.id))?.is_admin).toBe(0);
      expect((await fresh.admin.get(`/v1/users/${first.id}`)).body.isAdmin).toBe(false);
    });

    it('refuses to take the role from the last active administrator: 409 LastAdministrator', async () => {
      const fresh = await createOrg(t);
      const [first, second] = [await createMember(t, fresh), await createMember(t, fresh)];
      await put(fresh.admin, fresh.orgId, first.id, 'organization-administrator');
      // The service user that administers through the fixture does not count: nobody signs in as it.
      await expectRefused(
        () => fresh.admin.delete(`/v1/nodes/${fresh.orgId}/memberships/${first.id}`),
        { status: 409, error: 'LastAdministrator' },
        () => peopleSnapshot(t, fresh),
      );
      await expectRefused(
        () => put(fresh.admin, fresh.orgId, first.id, 'organization-reader'),
        { status: 409, error: 'LastAdministrator' },
        () => peopleSnapshot(t, fresh),
      );

      // A deactivated administrator does not count either.
      await put(fresh.admin, fresh.orgId, second.id, 'organization-administrator');
      expect((await fresh.admin.patch(`/v1/users/${second.id}`, { active: false })).status).toBe(200);
      await expectRefused(
        () => fresh.admin.delete(`/v1/nodes/${fresh.orgId}/memberships/${first.id}`),
        { status: 409, error: 'LastAdministrator' },
        () => peopleSnapshot(t, fresh),
      );

      // With a second active administrator, either may go, but not both.
      expect((await fresh.admin.patch(`/v1/users/${second.id}`, { active: true })).status).toBe(200);
      const both = await Promise.all([
        fresh.admin.delete(`/v1/nodes/${fresh.orgId}/memberships/${first.id}`),
        fresh.admin.delete(`/v1/nodes/${fresh.orgId}/memberships/${second.id}`),
      ]);
      expect(both.map((response) => response.status).sort()).toEqual([204, 409]);
      expect(both.find((response) => response.status === 409)?.body.error).toBe('LastAdministrator');
    });
  });

  it('shares its rules with AdminService.grantMembership (the command line)', async () => {
    const { divisionId } = await createTree(org);
    const holder = await serviceApp(t, org);
    const grant = (roleId: string, nodeId = divisionId) =>
      t.admin.grantMembership({ nodeId, principalId: holder.userId, roleId });
    await expect(grant('organization-administrator')).rejects.toMatchObject({ error: 'AdministrativeRoleInvalidNode' });
    await expect(grant(randomUUID())).rejects.toBeInstanceOf(ApiError);
    await expect(grant('nobody')).rejects.toMatchObject({ error: 'AdminsitrativeRoleNotFound' });
    expect(await grant(org.roles.Viewer as string)).toEqual({
      nodeId: divisionId,
      principalId: holder.userId,
      roleId: org.roles.Viewer,
    });
    const [event] = (await auditEvents(t, org, 'membership.set')).filter(
      (row) => row.target_id === `${divisionId}/${holder.userId}`,
    );
    expect(event).toMatchObject({ actor_type: 'admin-cli' });
  });
});
