import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { auditEvents, peopleSnapshot, serviceApp } from '../support/people-users.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('roles: GET, POST, PATCH, DELETE /v1/roles', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  /** Sends a request that must be refused, and checks that nothing changed in either store. */
  const refused = refuser(() => peopleSnapshot(t, org));

  it('lists the administrative roles (fixed ids) and the default custom roles to any member with read:basic', async () => {
    // A service user with no membership at all, and a token with read:basic only.
    const caller = await org.serviceClient({ scopes: 'read:basic' });
    const response = await caller.client.get('/v1/roles');
    expect(response.status).toBe(200);
    const byName = Object.fromEntries(response.body.map((role: { name: string }) => [role.name, role]));
    expect(response.body.map((role: { kind: string }) => role.kind)).toEqual([
      'administrative',
      'administrative',
      'custom',
      'custom',
      'custom',
    ]);
    expect(byName['Organization Administrator']).toMatchObject({
      id: 'organization-administrator',
      kind: 'administrative',
      permissions: ['read', 'download', 'edit', 'upload', 'process', 'manage', 'delete'],
    });
    expect(byName['Organization Reader']).toMatchObject({ id: 'organization-reader', permissions: ['read'] });
    expect(byName.Viewer).toMatchObject({ kind: 'custom', permissions: ['read', 'download'] });
    expect(byName.Viewer.id).toMatch(UUID);
    for (const role of response.body) {
      expect(Object.keys(role).sort()).toEqual(['createdAt', 'id', 'kind', 'name', 'permissions', 'updatedAt']);
    }
  });

  it('is 403 Insufficient OAuth scopes without read:basic', async () => {
    const caller = await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' });
    const response = await caller.client.get('/v1/roles');
    expect(response.status).toBe(403);
    expect(response.body.message).toBe('Insufficient OAuth scopes');
  });

  it('creates a custom role with its permissions once each, in the catalog order, and records role.created', async () => {
    const response = await org.admin.post('/v1/roles', { name: 'Surveyor', permissions: ['upload', 'read', 'upload', 'edit'] });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'Surveyor', kind: 'custom', permissions: ['read', 'edit', 'upload'] });
    expect(response.body.id).toMatch(UUID);
    expect(response.body.createdAt).toBe(response.body.updatedAt);
    const listed = (await org.admin.get('/v1/roles')).body.find((role: { id: string }) => role.id === response.body.id);
    expect(listed).toEqual(response.body);
    const [event] = (await auditEvents(t, org, 'role.created')).filter((row) => row.target_id === response.body.id);
    expect(event).toMatchObject({ actor_type: 'principal', actor_id: org.adminServiceUserId, target_type: 'role' });
    expect(event?.details).toEqual({ name: 'Surveyor', permissions: ['read', 'edit', 'upload'] });
  });

  it('accepts a role with no permissions', async () => {
    const response = await org.admin.post('/v1/roles', { name: `Empty ${randomUUID().slice(0, 4)}`, permissions: [] });
    expect(response.status).toBe(201);
    expect(response.body.permissions).toEqual([]);
  });

  it('refuses a taken name, compared without case, on create and rename: 409 DuplicateRoleName', async () => {
    await refused(() => org.admin.post('/v1/roles', { name: 'viewer', permissions: ['read'] }), 409, 'DuplicateRoleName');
    // Administrative names are taken too.
    await refused(
      () => org.admin.post('/v1/roles', { name: 'ORGANIZATION ADMINISTRATOR', permissions: ['read'] }),
      409,
      'DuplicateRoleName',
    );
    const role = await org.admin.post('/v1/roles', { name: 'Inspector', permissions: ['read'] });
    await refused(() => org.admin.patch(`/v1/roles/${role.body.id}`, { name: 'CONTRIBUTOR' }), 409, 'DuplicateRoleName');
    // Its own name in another case is a rename, not a duplicate.
    const renamed = await org.admin.patch(`/v1/roles/${role.body.id}`, { name: 'INSPECTOR' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('INSPECTOR');
  });

  it('allows one of two concurrent creations of a name', async () => {
    const name = `Racer ${randomUUID().slice(0, 4)}`;
    const results = await Promise.all([1, 2, 3].map(() => org.admin.post('/v1/roles', { name, permissions: ['read'] })));
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409]);
    for (const result of results.filter((r) => r.status === 409)) expect(result.body.error).toBe('DuplicateRoleName');
  });

  it('refuses unknown permissions, a bad name and unknown fields with 400 ValidationError', async () => {
    const response = await refused(
      () => org.admin.post('/v1/roles', { name: 'Bad', permissions: ['read', 'fly'] }),
      400,
      'ValidationError',
    );
    expect(response.body.message).toMatch(/permissions.*fly/);
    await refused(() => org.admin.post('/v1/roles', { name: '', permissions: [] }), 400, 'ValidationError');
    await refused(() => org.admin.post('/v1/roles', { name: 'n'.repeat(256), permissions: [] }), 400, 'ValidationError');
    await refused(
      () => org.admin.post('/v1/roles', { name: 'X', permissions: [], kind: 'administrative' }),
      400,
      'ValidationError',
    );
    const viewer = org.roles.Viewer as string;
    await refused(() => org.admin.patch(`/v1/roles/${viewer}`, {}), 400, 'ValidationError');
    await refused(() => org.admin.patch(`/v1/roles/${viewer}`, { permissions: ['root'] }), 400, 'ValidationError');
  });

  it('needs manage on the organization node to write: 403 Forbidden resource otherwise', async () => {
    const { divisionId } = await createTree(org);
    // Manage on a division is not manage on the organization.
    const divisionManager = await org.serviceClient({ roleName: 'Manager', nodeId: divisionId });
    const contributor = await org.serviceClient({ roleName: 'Contributor' });
    const viewer = org.roles.Viewer as string;
    for (const caller of [divisionManager.client, contributor.client]) {
      await refused(() => caller.post('/v1/roles', { name: 'Mine', permissions: ['read'] }), 403, 'Forbidden');
      await refused(() => caller.patch(`/v1/roles/${viewer}`, { name: 'Mine' }), 403, 'Forbidden');
      await refused(() => caller.delete(`/v1/roles/${viewer}`), 403, 'Forbidden');
    }
    // Writes need write:user.
    const reader = await org.serviceClient({ scopes: 'read:basic read:user', roleName: 'Organization Administrator' });
    const response = await refused(() => reader.client.post('/v1/roles', { name: 'Mine', permissions: [] }), 403, 'Forbidden');
    expect(response.body.message).toBe('Insufficient OAuth scopes');
  });

  it("changes a role's permissions for everyone it is given to, at once", async () => {
    const { divisionId, siteId } = await createTree(org);
    const role = await org.admin.post('/v1/roles', { name: `Reader ${randomUUID().slice(0, 4)}`, permissions: ['read'] });
    const holder = await serviceApp(t, org);
    await org.admin.request('PUT', `/v1/nodes/${divisionId}/memberships/${holder.userId}`, { roleId: role.body.id });
    expect((await holder.client.post(`/v1/nodes/${siteId}/folder`, { name: 'F' })).status).toBe(403);

    const changed = await org.admin.patch(`/v1/roles/${role.body.id}`, { permissions: ['read', 'edit'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: role.body.id, name: role.body.name, permissions: ['read', 'edit'] });
    expect(changed.body.createdAt).toBe(role.body.createdAt);
    expect((await holder.client.post(`/v1/nodes/${siteId}/folder`, { name: 'F' })).status).toBe(201);

    const [event] = (await auditEvents(t, org, 'role.updated')).filter((row) => row.target_id === role.body.id);
    expect(event?.details).toEqual({ permissions: ['read', 'edit'], previousPermissions: ['read'] });
  });

  it('refuses to change or delete an administrative role: 409 AdministrativeRoleNotEditable', async () => {
    for (const id of ['organization-administrator', 'organization-reader']) {
      await refused(() => org.admin.patch(`/v1/roles/${id}`, { name: 'Boss' }), 409, 'AdministrativeRoleNotEditable');
      await refused(() => org.admin.patch(`/v1/roles/${id}`, { permissions: ['read'] }), 409, 'AdministrativeRoleNotEditable');
      await refused(() => org.admin.delete(`/v1/roles/${id}`), 409, 'AdministrativeRoleNotEditable');
    }
  });

  it('answers 404 for an unknown role, and for a role of another organization', async () => {
    const other = await createOrg(t);
    const foreign = other.roles.Viewer as string;
    for (const id of [randomUUID(), 'no-such-role', foreign]) {
      await refused(() => org.admin.patch(`/v1/roles/${id}`, { name: 'X' }), 404, 'Not Found');
      await refused(() => org.admin.delete(`/v1/roles/${id}`), 404, 'Not Found');
    }
    expect((await other.admin.get('/v1/roles')).body.find((role: { id: string }) => role.id === foreign).name).toBe('Viewer');
  });

  describe('deleting', () => {
    let roleId: string;
    let holder: string;
    beforeAll(async () => {
      roleId = (await org.admin.post('/v1/roles', { name: 'Temporary', permissions: ['read'] })).body.id;
      holder = (await serviceApp(t, org)).userId;
    });

    it('refuses while a membership gives the role: 409 RoleInUse', async () => {
      const { folderId } = await createTree(org);
      const put = await org.admin.request('PUT', `/v1/nodes/${folderId}/memberships/${holder}`, { roleId });
      expect(put.status).toBe(200);
      await refused(() => org.admin.delete(`/v1/roles/${roleId}`), 409, 'RoleInUse');
      expect((await org.admin.delete(`/v1/nodes/${folderId}/memberships/${holder}`)).status).toBe(204);
    });

    it('refuses while a pending or sending invitation gives the role: 409 RoleInUse; not for an accepted or revoked one', async () => {
      const db = t.platform.regions[org.region].store.db;
      const now = new Date().toISOString();
      const invitation = (state: 'sending' | 'pending' | 'accepted' | 'revoked') => ({
        id: randomUUID(),
        org_id: org.orgId,
        node_id: org.orgId,
        email: `${state}-${randomUUID().slice(0, 6)}@example.test`,
        role_id: roleId,
        state,
        token_hash: randomUUID(),
        invited_by: org.adminServiceUserId,
        accepted_by: null,
        created_at: now,
        updated_at: now,
        accepted_at: null,
      });
      for (const state of ['sending', 'pending'] as const) {
        const row = invitation(state);
        await db.insertInto('invitations').values(row).execute();
        await refused(() => org.admin.delete(`/v1/roles/${roleId}`), 409, 'RoleInUse');
        await db.deleteFrom('invitations').where('id', '=', row.id).execute();
      }
      await db
        .insertInto('invitations')
        .values([invitation('accepted'), invitation('revoked')])
        .execute();
    });

    it('removes an unused custom role (204), records role.deleted, and the role can no longer be given', async () => {
      const response = await org.admin.delete(`/v1/roles/${roleId}`);
      expect(response.status).toBe(204);
      expect((await org.admin.get('/v1/roles')).body.map((role: { id: string }) => role.id)).not.toContain(roleId);
      const [event] = (await auditEvents(t, org, 'role.deleted')).filter((row) => row.target_id === roleId);
      expect(event?.details).toEqual({ name: 'Temporary', permissions: ['read'] });
      const put = await org.admin.request('PUT', `/v1/nodes/${org.orgId}/memberships/${holder}`, { roleId });
      expect(put.status).toBe(400);
      expect(put.body.error).toBe('CustomRoleNotFound');
      expect((await org.admin.delete(`/v1/roles/${roleId}`)).status).toBe(404);
    });

    it('removes a default custom role like any other once unused', async () => {
      expect((await org.admin.delete(`/v1/roles/${org.roles.Contributor}`)).body.error).toBe('RoleInUse'); // given above
      expect((await org.admin.delete(`/v1/roles/${org.roles.Viewer}`)).status).toBe(204);
    });
  });
});
