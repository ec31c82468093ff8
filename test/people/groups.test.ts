import SQLite from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createNode, createOrg, insertDataNode, type OrgFixture } from '../support/fixtures.js';
import { auditOf, createGroup, groupSnapshot, put, setGroupFlags } from '../support/groups.js';
import { type TestPlatform, usingPostgres, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

describe('groups: create, read, list', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let divisionA: string;
  let divisionB: string;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    divisionA = await createNode(org, org.orgId, 'division', 'Division A');
    divisionB = await createNode(org, org.orgId, 'division', 'Division B');
  });
  const refused = refuser(() => groupSnapshot(t, org));

  it('creates an organization group and a division group, with their full bodies', async () => {
    const created = await org.admin.post('/v1/groups', { name: 'Surveyors' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Surveyors',
      divisionId: null,
      isOrganizationGroup: true,
      scimManaged: false,
      samlLinked: false,
      memberCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const owned = await org.admin.post('/v1/groups', { name: 'Site crew', divisionId: divisionA });
    expect(owned.status).toBe(201);
    expect(owned.body).toMatchObject({ name: 'Site crew', divisionId: divisionA, isOrganizationGroup: false });

    expect((await org.admin.get(`/v1/groups/${created.body.id}`)).body).toEqual(created.body);
    const [event] = await auditOf(t, org, owned.body.id);
    expect(event).toMatchObject({
      action: 'group.created',
      actor_type: 'principal',
      actor_id: org.adminServiceUserId,
      target_type: 'group',
      details: { name: 'Site crew', divisionId: divisionA },
    });
  });

  it('stores names as given, 1 to 255 code points, never trimmed', async () => {
    const padded = await createGroup(org.admin, '  Padded name  ');
    expect(padded.name).toBe('  Padded name  ');
    const longest = '🏗'.repeat(255);
    expect((await org.admin.post('/v1/groups', { name: longest })).body.name).toBe(longest);
    for (const name of ['', '🏗'.repeat(256), 'x'.repeat(256)]) {
      await refused(() => org.admin.post('/v1/groups', { name }), 400, 'ValidationError');
    }
    await refused(() => org.admin.post('/v1/groups', {}), 400, 'ValidationError');
    await refused(() => org.admin.post('/v1/groups', { name: 'X', extra: 1 }), 400, 'ValidationError');
  });

  it('is 400 when divisionId names no division of the organization', async () => {
    const site = await createNode(org, divisionA, 'site', 'A site');
    const other = await createOrg(t);
    const foreignDivision = await createNode(other, other.orgId, 'division', 'Foreign');
    for (const divisionId of [site, org.orgId, foreignDivision, 'no-such-node']) {
      await refused(() => org.admin.post('/v1/groups', { name: 'Nowhere', divisionId }), 400, 'ValidationError');
      await refused(() => org.admin.get(`/v1/groups?divisionId=${divisionId}`), 400, 'ValidationError');
    }
    const trashed = await createNode(org, org.orgId, 'division', 'Soon trashed');
    expect((await org.admin.delete(`/v1/nodes/${trashed}`)).status).toBe(204);
    await refused(() => org.admin.post('/v1/groups', { name: 'Nowhere', divisionId: trashed }), 400, 'ValidationError');
  });

  it('is 409 DuplicateGroupName for a taken name in any case, on create and on rename', async () => {
    const taken = await createGroup(org.admin, 'Estimators', divisionA);
    const renamed = await createGroup(org.admin, 'Drafters', divisionB);
    for (const name of ['Estimators', 'ESTIMATORS', 'estimators']) {
      await refused(() => org.admin.post('/v1/groups', { name }), 409, 'DuplicateGroupName');
      await refused(() => org.admin.post('/v1/groups', { name, divisionId: divisionB }), 409, 'DuplicateGroupName');
      await refused(() => org.admin.patch(`/v1/groups/${renamed.id}`, { name }), 409, 'DuplicateGroupName');
    }
    // A group may change the case of its own name; another organization may use the name.
    expect((await org.admin.patch(`/v1/groups/${taken.id}`, { name: 'ESTIMATORS' })).body.name).toBe('ESTIMATORS');
    const other = await createOrg(t);
    expect((await other.admin.post('/v1/groups', { name: 'Estimators' })).status).toBe(201);
  });

  it('lets exactly one of concurrent creations with one name through', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => org.admin.post('/v1/groups', { name: i % 2 ? 'Racers' : 'RACERS' })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    for (const answer of answers.filter((answer) => answer.status !== 201)) {
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('DuplicateGroupName');
    }
    const listed = await org.admin.get('/v1/groups?name=racers');
    expect(listed.body).toHaveLength(1);
  });

  it("lists a division's own groups and the organization groups, including for divisions created later", async () => {
    const other = await createOrg(t);
    const orgWide = await createGroup(other.admin, 'Everyone');
    const first = await createNode(other, other.orgId, 'division', 'First');
    const firstGroup = await createGroup(other.admin, 'First crew', first);
    const later = await createNode(other, other.orgId, 'division', 'Created later');
    const laterGroup = await createGroup(other.admin, 'Later crew', later);

    const names = async (query: string) =>
      ((await other.admin.get(`/v1/groups${query}`)).body as { name: string }[]).map((group) => group.name);
    expect(await names('')).toEqual(['Everyone', 'First crew', 'Later crew']);
    expect(await names(`?divisionId=${later}`)).toEqual(['Everyone', 'Later crew']);
    expect(await names(`?divisionId=${first}`)).toEqual(['Everyone', 'First crew']);
    expect(await names('?name=First%20crew')).toEqual(['First crew']);
    expect(await names('?name=FIRST%20CREW')).toEqual(['First crew']);
    expect(await names('?name=First')).toEqual([]);
    expect(await names('?limit=1&offset=1')).toEqual(['First crew']);
    expect(await names(`?divisionId=${later}&limit=1&offset=1`)).toEqual(['Later crew']);
    expect(orgWide.divisionId).toBeNull();
    expect(firstGroup.divisionId).toBe(first);
    expect(laterGroup.divisionId).toBe(later);

    // Another organization's group is not found, not listed.
    expect((await org.admin.get(`/v1/groups/${orgWide.id}`)).status).toBe(404);
    expect(((await org.admin.get('/v1/groups?name=Everyone')).body as unknown[]).length).toBe(0);
  });

  it('lets any active member read groups with read:user, and needs that scope', async () => {
    const group = await createGroup(org.admin, 'Readable');
    const nobody = await org.serviceClient({ scopes: 'read:user' });
    expect((await nobody.client.get('/v1/groups')).status).toBe(200);
    expect((await nobody.client.get(`/v1/groups/${group.id}`)).status).toBe(200);
    expect((await nobody.client.get(`/v1/groups/${group.id}/users`)).status).toBe(200);
    const noScope = await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' });
    for (const path of ['/v1/groups', `/v1/groups/${group.id}`, `/v1/groups/${group.id}/users`]) {
      const refused = await noScope.client.get(path);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe('Insufficient OAuth scopes');
    }
    expect((await org.admin.get('/v1/groups/no-such-group')).status).toBe(404);
  });
});

describe('groups: changes and who may make them', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let divisionA: string;
  let divisionB: string;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    divisionA = await createNode(org, org.orgId, 'division', 'Division A');
    divisionB = await createNode(org, org.orgId, 'division', 'Division B');
  });
  const refused = refuser(() => groupSnapshot(t, org));

  it('renames, moves between divisions, makes an organization group and sets the SAML link, with audit events', async () => {
    const group = await createGroup(org.admin, 'Movers', divisionA);
    const renamed = await org.admin.patch(`/v1/groups/${group.id}`, { name: 'Movers and shakers' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Movers and shakers', divisionId: divisionA });
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { divisionId: divisionB })).body.divisionId).toBe(divisionB);
    const lifted = await org.admin.patch(`/v1/groups/${group.id}`, { divisionId: null });
    expect(lifted.body).toMatchObject({ divisionId: null, isOrganizationGroup: true });
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { samlLinked: true })).body.samlLinked).toBe(true);
    expect((await org.admin.get(`/v1/groups/${group.id}`)).body).toMatchObject({
      name: 'Movers and shakers',
      divisionId: null,
      samlLinked: true,
    });
    const events = await auditOf(t, org, group.id);
    expect(events.map((event) => event.action)).toEqual([
      'group.created',
      'group.updated',
      'group.updated',
      'group.updated',
      'group.updated',
    ]);
    expect(events[2]?.details).toMatchObject({ before: { divisionId: divisionA }, changes: { divisionId: divisionB } });

    await refused(() => org.admin.patch(`/v1/groups/${group.id}`, {}), 400, 'ValidationError');
    await refused(() => org.admin.patch(`/v1/groups/${group.id}`, { divisionId: divisionA + 'x' }), 400);
    await refused(() => org.admin.patch('/v1/groups/no-such-group', { name: 'X' }), 404);
  });

  it('needs manage on the owning division, or on the organization node; moving needs both', async () => {
    const managerOfA = await org.serviceClient({ roleName: 'Manager', nodeId: divisionA });
    const contributorOfA = await org.serviceClient({ roleName: 'Contributor', nodeId: divisionA });
    const inA = await createGroup(managerOfA.client, 'Managed in A', divisionA);
    const orgWide = await createGroup(org.admin, 'Organization wide');
    const inB = await createGroup(org.admin, 'Managed in B', divisionB);
    const member = await org.serviceClient();

    const refusals = [
      () => managerOfA.client.post('/v1/groups', { name: 'Not allowed' }),
      () => managerOfA.client.post('/v1/groups', { name: 'Not allowed', divisionId: divisionB }),
      () => managerOfA.client.patch(`/v1/groups/${inA.id}`, { divisionId: divisionB }),
      () => managerOfA.client.patch(`/v1/groups/${inA.id}`, { divisionId: null }),
      () => managerOfA.client.patch(`/v1/groups/${inB.id}`, { name: 'Taken over' }),
      () => managerOfA.client.patch(`/v1/groups/${orgWide.id}`, { divisionId: divisionA }),
      () => managerOfA.client.delete(`/v1/groups/${inB.id}`),
      () => put(managerOfA.client, `/v1/groups/${orgWide.id}/users/${member.userId}`),
      () => put(managerOfA.client, `/v1/groups/${inB.id}/users/${member.userId}`),
      () => contributorOfA.client.post('/v1/groups', { name: 'Not allowed', divisionId: divisionA }),
      () => put(contributorOfA.client, `/v1/groups/${inA.id}/users/${member.userId}`),
      () => contributorOfA.client.delete(`/v1/groups/${inA.id}`),
    ];
    for (const send of refusals) {
      const response = await refused(send, 403);
      expect(response.body.message).toBe('Forbidden resource');
    }

    // Manage on both divisions moves it.
    await t.admin.grantMembership({ nodeId: divisionB, principalId: managerOfA.userId, roleId: org.roles.Manager as string });
    expect((await managerOfA.client.patch(`/v1/groups/${inA.id}`, { divisionId: divisionB })).status).toBe(200);
    expect((await put(managerOfA.client, `/v1/groups/${inA.id}/users/${member.userId}`)).status).toBe(200);
    expect((await managerOfA.client.delete(`/v1/groups/${inA.id}`)).status).toBe(204);

    // write:user is the scope of every change.
    const readOnly = await org.serviceClient({ scopes: 'read:user read:hierarchy', roleName: 'Organization Administrator' });
    const response = await refused(() => readOnly.client.post('/v1/groups', { name: 'No scope' }), 403);
    expect(response.body.message).toBe('Insufficient OAuth scopes');
  });

  it('is 400 GroupOutsideDivision when a group would get an owning division its memberships are outside of', async () => {
    const group = await createGroup(org.admin, 'Spread out');
    const siteInA = await createNode(org, divisionA, 'site', 'Site in A');
    await t.admin.grantMembership({ nodeId: siteInA, principalId: group.id, roleId: org.roles.Viewer as string });
    await refused(() => org.admin.patch(`/v1/groups/${group.id}`, { divisionId: divisionB }), 400, 'GroupOutsideDivision');
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { divisionId: divisionA })).status).toBe(200);
    // A division's group gets no membership outside its division; as an organization group it may.
    const outside = await org.admin.request('PUT', `/v1/nodes/${org.orgId}/memberships/${group.id}`, {
      roleId: org.roles.Viewer as string,
    });
    expect(outside.body).toMatchObject({ statusCode: 400, error: 'GroupOutsideDivision' });
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { divisionId: null })).status).toBe(200);
    await t.admin.grantMembership({ nodeId: org.orgId, principalId: group.id, roleId: org.roles.Viewer as string });
    await refused(() => org.admin.patch(`/v1/groups/${group.id}`, { divisionId: divisionA }), 400, 'GroupOutsideDivision');
  });

  it('deletes a division group with its members and its memberships on nodes, in one change', async () => {
    const group = await createGroup(org.admin, 'Short lived', divisionA);
    const member = await org.serviceClient();
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(200);
    await t.admin.grantMembership({ nodeId: divisionA, principalId: group.id, roleId: org.roles.Viewer as string });
    const before = await groupSnapshot(t, org);
    expect(before.memberships.some((row) => row.principal_id === group.id)).toBe(true);

    expect((await org.admin.delete(`/v1/groups/${group.id}`)).status).toBe(204);
    const after = await groupSnapshot(t, org);
    expect(after.groups.some((row) => row.id === group.id)).toBe(false);
    expect(after.members.some((row) => row.group_id === group.id)).toBe(false);
    expect(after.memberships.some((row) => row.principal_id === group.id)).toBe(false);
    expect((await org.admin.get(`/v1/groups/${group.id}`)).status).toBe(404);
    expect((await auditOf(t, org, group.id)).at(-1)).toMatchObject({ action: 'group.deleted', details: { name: 'Short lived' } });
    await refused(() => org.admin.delete(`/v1/groups/${group.id}`), 404);
  });

  it('is 409 CannotRemoveOrganizationGroup for a group with no owning division', async () => {
    const group = await createGroup(org.admin, 'Everywhere');
    await refused(() => org.admin.delete(`/v1/groups/${group.id}`), 409, 'CannotRemoveOrganizationGroup');
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { divisionId: divisionB })).status).toBe(200);
    expect((await org.admin.delete(`/v1/groups/${group.id}`)).status).toBe(204);
  });
});

describe('group members', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let divisionId: string;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    divisionId = await createNode(org, org.orgId, 'division', 'Division');
  });
  const refused = refuser(() => groupSnapshot(t, org));

  it('adds, lists and removes users and service users of the organization, with audit events', async () => {
    const group = await createGroup(org.admin, 'Crew', divisionId);
    const person = await t.admin.createUser({
      email: 'ada@example.test',
      password: 'long enough',
      orgId: org.orgId,
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    const service = await org.serviceClient();

    const added = await put(org.admin, `/v1/groups/${group.id}/users/${person.id}`);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      id: person.id,
      email: 'ada@example.test',
      firstName: 'Ada',
      lastName: 'Lovelace',
      kind: 'user',
      active: true,
      isAdmin: false,
      scimManaged: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${service.userId}`)).body).toMatchObject({
      id: service.userId,
      kind: 'service',
    });

    const listed = await org.admin.get(`/v1/groups/${group.id}/users`);
    expect((listed.body as { id: string }[]).map((member) => member.id)).toEqual([person.id, service.userId]);
    expect((await org.admin.get(`/v1/groups/${group.id}/users?limit=1&offset=1`)).body).toEqual([listed.body[1]]);
    expect((await org.admin.get(`/v1/groups/${group.id}`)).body.memberCount).toBe(2);

    expect((await org.admin.delete(`/v1/groups/${group.id}/users/${person.id}`)).status).toBe(204);
    expect((await org.admin.get(`/v1/groups/${group.id}/users`)).body).toEqual([listed.body[1]]);
    await refused(() => org.admin.delete(`/v1/groups/${group.id}/users/${person.id}`), 404);

    const events = await auditOf(t, org, group.id);
    expect(events.map((event) => [event.action, event.details.userId])).toEqual([
      ['group.created', undefined],
      ['group.member-added', person.id],
      ['group.member-added', service.userId],
      ['group.member-removed', person.id],
    ]);
  });

  it('is 404 for a user who is not of the organization, and for an unknown group', async () => {
    const group = await createGroup(org.admin, 'Closed', divisionId);
    const other = await createOrg(t);
    const stranger = await other.serviceClient();
    const nobody = await t.admin.createUser({ email: 'nobody@example.test', password: 'long enough' });
    for (const userId of [stranger.userId, nobody.id, 'no-such-user', group.id]) {
      await refused(() => put(org.admin, `/v1/groups/${group.id}/users/${userId}`), 404);
    }
    await refused(() => put(org.admin, `/v1/groups/no-such-group/users/${org.adminServiceUserId}`), 404);
    await refused(() => org.admin.get('/v1/groups/no-such-group/users'), 404);
    // Another organization's group is not found either.
    const foreign = await createGroup(other.admin, 'Foreign');
    await refused(() => put(org.admin, `/v1/groups/${foreign.id}/users/${org.adminServiceUserId}`), 404);
  });

  it('is 409 UserAlreadyMember for a member, also when added concurrently', async () => {
    const group = await createGroup(org.admin, 'Once only', divisionId);
    const member = await org.serviceClient();
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(200);
    await refused(() => put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`), 409, 'UserAlreadyMember');

    const racer = await org.serviceClient();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => put(org.admin, `/v1/groups/${group.id}/users/${racer.userId}`)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.error === 'UserAlreadyMember')).toBe(
      true,
    );
  });

  it('is 409 GroupHasSamlLink for member changes of a SAML-linked group, before any other refusal', async () => {
    const group = await createGroup(org.admin, 'Linked', divisionId);
    const member = await org.serviceClient();
    const outsider = await org.serviceClient();
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(200);
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { samlLinked: true })).status).toBe(200);

    await refused(() => put(org.admin, `/v1/groups/${group.id}/users/${outsider.userId}`), 409, 'GroupHasSamlLink');
    await refused(() => put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`), 409, 'GroupHasSamlLink');
    await refused(() => org.admin.delete(`/v1/groups/${group.id}/users/${member.userId}`), 409, 'GroupHasSamlLink');
    await refused(() => org.admin.delete(`/v1/groups/${group.id}/users/${outsider.userId}`), 409, 'GroupHasSamlLink');
    // SAML before SCIM.
    await setGroupFlags(t, org, group.id, { scim_managed: 1 });
    await refused(() => put(org.admin, `/v1/groups/${group.id}/users/${outsider.userId}`), 409, 'GroupHasSamlLink');
    await refused(() => org.admin.delete(`/v1/groups/${group.id}/users/${member.userId}`), 409, 'GroupHasSamlLink');
    await setGroupFlags(t, org, group.id, { scim_managed: 0 });

    // Lifting the link allows manual changes again; the group can be deleted while linked.
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { samlLinked: false })).status).toBe(200);
    expect((await org.admin.delete(`/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(204);
    expect((await org.admin.patch(`/v1/groups/${group.id}`, { samlLinked: true })).status).toBe(200);
    expect((await org.admin.delete(`/v1/groups/${group.id}`)).status).toBe(204);
  });

  it('refuses manual changes of a SCIM-managed group with the spec codes', async () => {
    const group = await createGroup(org.admin, 'Provisioned');
    const member = await org.serviceClient();
    const outsider = await org.serviceClient();
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(200);
    await setGroupFlags(t, org, group.id, { scim_managed: 1 });

    // SCIM before the member state: a member and a non-member are refused alike.
    await refused(() => put(org.admin, `/v1/groups/${group.id}/users/${outsider.userId}`), 409, 'CannotInviteToSCIMGroup');
    await refused(() => put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`), 409, 'CannotInviteToSCIMGroup');
    await refused(
      () => org.admin.delete(`/v1/groups/${group.id}/users/${member.userId}`),
      409,
      'CannotRemoveMemberFromSCIMGroup',
    );
    await refused(
      () => org.admin.delete(`/v1/groups/${group.id}/users/${outsider.userId}`),
      409,
      'CannotRemoveMemberFromSCIMGroup',
    );
    for (const changes of [{ name: 'Renamed' }, { divisionId }, { samlLinked: true }]) {
      await refused(() => org.admin.patch(`/v1/groups/${group.id}`, changes), 409, 'CannotUpdateMemberFromSCIMGroup');
    }
    // The identity provider owns the name: creating or renaming to it says so.
    for (const name of ['Provisioned', 'PROVISIONED']) {
      await refused(() => org.admin.post('/v1/groups', { name }), 409, 'CannotUpdateMemberFromSCIMGroup');
    }
    const manual = await createGroup(org.admin, 'Manual', divisionId);
    await refused(
      () => org.admin.patch(`/v1/groups/${manual.id}`, { name: 'provisioned' }),
      409,
      'CannotUpdateMemberFromSCIMGroup',
    );
    await refused(() => org.admin.delete(`/v1/groups/${group.id}`), 409, 'CannotRemoveSCIMGroup');
    // A SCIM group with an owning division is still a SCIM group when deleted.
    await setGroupFlags(t, org, manual.id, { scim_managed: 1 });
    await refused(() => org.admin.delete(`/v1/groups/${manual.id}`), 409, 'CannotRemoveSCIMGroup');

    expect((await org.admin.get(`/v1/groups/${group.id}`)).body).toMatchObject({ scimManaged: true, memberCount: 1 });
  });
});

describe('groups and access to nodes', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let member: Awaited<ReturnType<OrgFixture['serviceClient']>>;
  let outsider: Awaited<ReturnType<OrgFixture['serviceClient']>>;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    member = await org.serviceClient();
    outsider = await org.serviceClient();
  });

  it("gives an organization group's members access in a division created after the group", async () => {
    const group = await createGroup(org.admin, 'Inspectors');
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(200);
    const later = await createNode(org, org.orgId, 'division', 'Opened later');
    const site = await createNode(org, later, 'site', 'New site');
    const folder = await createNode(org, site, 'folder', 'Scans');
    expect((await member.client.get(`/v1/nodes/${folder}`)).status).toBe(403);
    await t.admin.grantMembership({ nodeId: site, principalId: group.id, roleId: org.roles.Viewer as string });

    expect((await member.client.get(`/v1/nodes/${folder}`)).status).toBe(200);
    expect((await member.client.get(`/v1/nodes/${site}`)).status).toBe(200);
    expect((await outsider.client.get(`/v1/nodes/${folder}`)).status).toBe(403);
    // The group is listed with that division's groups.
    const listed = await org.admin.get(`/v1/groups?divisionId=${later}`);
    expect((listed.body as { id: string }[]).map((row) => row.id)).toContain(group.id);
  });

  it('makes member changes and group removal bite on the next request', async () => {
    const division = await createNode(org, org.orgId, 'division', 'Changing');
    const group = await createGroup(org.admin, 'Changing crew', division);
    await t.admin.grantMembership({ nodeId: division, principalId: group.id, roleId: org.roles.Viewer as string });
    const path = `/v1/nodes/${division}`;
    // Asked twice each time: the second answer would come from the access cache, if it were stale.
    for (let i = 0; i < 2; i += 1) expect((await outsider.client.get(path)).status).toBe(403);

    expect((await put(org.admin, `/v1/groups/${group.id}/users/${outsider.userId}`)).status).toBe(200);
    for (let i = 0; i < 2; i += 1) expect((await outsider.client.get(path)).status).toBe(200);

    expect((await org.admin.delete(`/v1/groups/${group.id}/users/${outsider.userId}`)).status).toBe(204);
    for (let i = 0; i < 2; i += 1) expect((await outsider.client.get(path)).status).toBe(403);

    expect((await put(org.admin, `/v1/groups/${group.id}/users/${outsider.userId}`)).status).toBe(200);
    for (let i = 0; i < 2; i += 1) expect((await outsider.client.get(path)).status).toBe(200);
    expect((await org.admin.delete(`/v1/groups/${group.id}`)).status).toBe(204);
    for (let i = 0; i < 2; i += 1) expect((await outsider.client.get(path)).status).toBe(403);
  });

  it('reaches nodes below a group membership whatever characters their ids hold', async () => {
    const division = await createNode(org, org.orgId, 'division', 'Odd ids');
    const site = await createNode(org, division, 'site', 'Odd site');
    const group = await createGroup(org.admin, 'Odd crew', division);
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(200);
    await t.admin.grantMembership({ nodeId: site, principalId: group.id, roleId: org.roles.Viewer as string });
    const odd = await insertDataNode(t, org, site, { kind: 'mesh', id: 'odd"id\\with["json"]' });
    expect((await member.client.get(`/v1/nodes/${encodeURIComponent(odd.id)}`)).status).toBe(200);
    expect((await outsider.client.get(`/v1/nodes/${encodeURIComponent(odd.id)}`)).status).toBe(403);
  });

  it('sees a member removed by another connection on the next request', async () => {
    const division = await createNode(org, org.orgId, 'division', 'Elsewhere');
    const group = await createGroup(org.admin, 'Elsewhere crew', division);
    await t.admin.grantMembership({ nodeId: division, principalId: group.id, roleId: org.roles.Viewer as string });
    expect((await put(org.admin, `/v1/groups/${group.id}/users/${member.userId}`)).status).toBe(200);
    const path = `/v1/nodes/${division}`;
    for (let i = 0; i < 2; i += 1) expect((await member.client.get(path)).status).toBe(200);

    // As another process would: its own connection to the store.
    const { config } = t.platform;
    if (usingPostgres) {
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      await client.query(`DELETE FROM "${config.databaseSchemaPrefix}_region_eu".group_members WHERE group_id = $1`, [group.id]);
      await client.end();
    } else {
      const db = new SQLite(`${config.dataDir}/region_eu.sqlite`);
      db.prepare('DELETE FROM group_members WHERE group_id = ?').run(group.id);
      db.close();
    }
    expect((await member.client.get(path)).status).toBe(403);
  });
});
