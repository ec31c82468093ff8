import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type OrgFixture } from '../support/fixtures.js';
import { PASSWORD } from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import {
  auditEvents,
  createScimClient,
  entraUser,
  SCIM_GROUP,
  SCIM_USER,
  type ScimClient,
  scimBetweenSnapshots,
  userAccessToken,
} from '../support/scim.js';

const email = (name: string) => `${name}-${randomUUID().slice(0, 6)}@example.com`;
const filter = (text: string) => encodeURIComponent(text);

/**
 * An identity provider's provisioning cycle as Entra ID runs it: probe, create a user, find it,
 * put it in a group, change the group, deactivate and reactivate the user, remove both.
 */
describe('SCIM provisioning, as an identity provider drives it', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let scim: ScimClient;
  let tokenId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    ({ client: scim, tokenId } = await createScimClient(t, org));
  });

  const store = () => t.platform.stores.global.db;
  const regional = () => t.platform.regions[org.region].store.db;
  const place = (userId: string) =>
    store()
      .selectFrom('user_organizations')
      .selectAll()
      .where('org_id', '=', org.orgId)
      .where('user_id', '=', userId)
      .executeTakeFirst();

  it('describes itself: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
    const config = await scim.get('/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = await scim.get('/ResourceTypes');
    expect(types.body.Resources.map((type: { endpoint: string }) => type.endpoint)).toEqual(['/Users', '/Groups']);
    expect((await scim.get('/ResourceTypes/User')).body).toMatchObject({ schema: SCIM_USER });
    const schemas = await scim.get('/Schemas');
    expect(schemas.body.totalResults).toBe(2);
    const user = (await scim.get(`/Schemas/${SCIM_USER}`)).body;
    expect(user.attributes.map((attribute: { name: string }) => attribute.name)).toEqual(
      expect.arrayContaining(['userName', 'name', 'emails', 'active', 'groups']),
    );
    expect((await scim.get('/Schemas/urn:unknown')).status).toBe(404);
  });

  it('runs the cycle: create, find, group, patch members, rename, deactivate, reactivate, delete', async () => {
    // The provider's connection test: a user that does not exist.
    const probe = await scim.get(`/Users?filter=${filter(`userName eq "${randomUUID()}@example.com"`)}`);
    expect(probe.status).toBe(200);
    expect(probe.body).toMatchObject({ totalResults: 0, Resources: [], startIndex: 1 });

    // A person who already has an account (with a password) is linked, not created twice.
    const adaEmail = email('ada');
    const ada = await t.admin.createUser({ email: adaEmail, password: PASSWORD });
    const created = await scim.post(
      '/Users',
      entraUser(adaEmail.toUpperCase(), { name: { givenName: 'Ada', familyName: 'Lovelace' } }),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${t.origin}/scim/v2/Users/${ada.id}`);
    expect(created.body).toEqual({
      schemas: [SCIM_USER],
      id: ada.id,
      externalId: `ext-${adaEmail.split('@')[0]?.toUpperCase()}`,
      userName: adaEmail,
      name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
      displayName: 'Ada Lovelace',
      emails: [{ value: adaEmail, type: 'work', primary: true }],
      active: true,
      groups: [],
      meta: {
        resourceType: 'User',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: created.headers.get('location'),
      },
    });
    expect(await place(ada.id)).toMatchObject({
      scim_managed: 1,
      scim_external_id: created.body.externalId,
      deactivated_at: null,
    });
    const [createdEvent] = await auditEvents(t, org, 'user.created');
    expect(createdEvent).toMatchObject({ actor_type: 'scim', actor_id: tokenId, target_id: ada.id, details: { linked: true } });

    // A new person is created without a password.
    const graceEmail = email('grace');
    const grace = (await scim.post('/Users', entraUser(graceEmail))).body;
    expect(await t.platform.directory.findUser(grace.id)).toMatchObject({ email: graceEmail, password_hash: null, kind: 'user' });

    // Found by the filters providers use, without case on userName.
    for (const text of [
      `userName eq "${adaEmail.toUpperCase()}"`,
      `externalId eq "${created.body.externalId}"`,
      `emails[value eq "${adaEmail}"]`,
      `emails.value eq "${adaEmail}" and active eq true`,
    ]) {
      const found = await scim.get(`/Users?filter=${filter(text)}`);
      expect(found.body.totalResults, text).toBe(1);
      expect(found.body.Resources[0].id, text).toBe(ada.id);
    }
    expect((await scim.get(`/Users/${ada.id}`)).body.userName).toBe(adaEmail);

    // A SCIM group of the organization with Ada in it.
    const group = await scim.post('/Groups', {
      schemas: [SCIM_GROUP],
      displayName: 'Surveyors',
      externalId: 'grp-1',
      members: [{ value: ada.id }],
    });
    expect(group.status).toBe(201);
    expect(group.body).toMatchObject({
      schemas: [SCIM_GROUP],
      displayName: 'Surveyors',
      externalId: 'grp-1',
      members: [{ value: ada.id, display: 'Ada Lovelace', type: 'User' }],
      meta: { resourceType: 'Group', location: `${t.origin}/scim/v2/Groups/${group.body.id}` },
    });
    const groupId = group.body.id as string;
    const row = await regional().selectFrom('groups').selectAll().where('id', '=', groupId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ org_id: org.orgId, scim_managed: 1, division_id: null, scim_external_id: 'grp-1' });
    expect((await scim.get(`/Users/${ada.id}`)).body.groups).toEqual([
      { value: groupId, display: 'Surveyors', $ref: `${t.origin}/scim/v2/Groups/${groupId}`, type: 'direct' },
    ]);

    // Entra ID's checks: by name without members, and "is this user a member".
    const byName = await scim.get(`/Groups?filter=${filter('displayName eq "surveyors"')}&excludedAttributes=members`);
    expect(byName.body.totalResults).toBe(1);
    expect(byName.body.Resources[0]).not.toHaveProperty('members');
    const isMember = (userId: string) =>
      scim.get(`/Groups?filter=${filter(`id eq "${groupId}" and members[value eq "${userId}"]`)}&excludedAttributes=members`);
    expect((await isMember(ada.id)).body.totalResults).toBe(1);
    expect((await isMember(grace.id)).body.totalResults).toBe(0);

    // Members added and removed in Entra ID's shape, then by Okta's path filter.
    const members = async () =>
      (await scim.get(`/Groups/${groupId}`)).body.members.map((member: { value: string }) => member.value);
    const added = await scim.patch(`/Groups/${groupId}`, [{ op: 'Add', path: 'members', value: [{ value: grace.id }] }]);
    expect(added.status).toBe(200);
    expect(await members()).toEqual([ada.id, grace.id]);
    await scim.patch(`/Groups/${groupId}`, [{ op: 'Remove', path: 'members', value: [{ value: ada.id }] }]);
    expect(await members()).toEqual([grace.id]);
    await scim.patch(`/Groups/${groupId}`, [{ op: 'add', path: 'members', value: [{ value: ada.id }] }]);
    await scim.patch(`/Groups/${groupId}`, [{ op: 'remove', path: `members[value eq "${grace.id}"]` }]);
    expect(await members()).toEqual([ada.id]);
    await scim.patch(`/Groups/${groupId}`, [{ op: 'replace', path: 'members', value: [{ value: grace.id }, { value: ada.id }] }]);
    expect((await members()).sort()).toEqual([ada.id, grace.id].sort());
    const memberEvents = [
      ...(await auditEvents(t, org, 'group.member-added')),
      ...(await auditEvents(t, org, 'group.member-removed')),
    ];
    expect(memberEvents.every((event) => event.actor_type === 'scim' && event.target_id === groupId)).toBe(true);
    // Created with Ada; Grace added; Ada removed; Ada added; Grace removed; Grace added by the replace.
    expect(memberEvents).toHaveLength(6);

    // Renamed by path (Entra ID) and by a value object carrying the id (Okta).
    const renamed = await scim.patch(`/Groups/${groupId}`, [{ op: 'Replace', path: 'displayName', value: 'Field surveyors' }]);
    expect(renamed.body.displayName).toBe('Field surveyors');
    await scim.patch(`/Groups/${groupId}`, [{ op: 'replace', value: { id: groupId, displayName: 'Surveyors EU' } }]);
    expect((await scim.get(`/Groups/${groupId}`)).body.displayName).toBe('Surveyors EU');
    expect((await auditEvents(t, org, 'group.updated')).map((event) => event.details.displayName)).toEqual([
      'Field surveyors',
      'Surveyors EU',
    ]);

    // Deactivation is per organization and stops the person's token at once.
    await t.admin.grantMembership({ nodeId: org.orgId, principalId: ada.id, roleId: org.roles.Viewer as string });
    const adaToken = await userAccessToken(t, org, { email: adaEmail, password: PASSWORD });
    const browse = (token: string) => new ApiClient(t.regionUrl(org.region), token).get(`/v1/nodes/${org.orgId}/browse`);
    expect((await browse(adaToken)).status).toBe(200);
    const deactivated = await scim.patch(`/Users/${ada.id}`, [{ op: 'Replace', path: 'active', value: 'False' }]);
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect((await browse(adaToken)).status).toBe(401);
    expect((await scim.get(`/Users/${ada.id}`)).body.active).toBe(false);
    expect(
      (await scim.get(`/Users?filter=${filter('active eq false')}`)).body.Resources.map((user: { id: string }) => user.id),
    ).toEqual([ada.id]);
    expect((await place(ada.id))?.deactivated_at).not.toBeNull();
    expect(await auditEvents(t, org, 'user.deactivated')).toMatchObject([
      { actor_type: 'scim', actor_id: tokenId, target_id: ada.id },
    ]);

    // Reactivated, the person signs in again.
    const reactivated = await scim.patch(`/Users/${ada.id}`, [{ op: 'Replace', path: 'active', value: 'True' }]);
    expect(reactivated.body.active).toBe(true);
    expect((await browse(await userAccessToken(t, org, { email: adaEmail, password: PASSWORD }))).status).toBe(200);
    expect(await auditEvents(t, org, 'user.reactivated')).toHaveLength(1);

    // Deleting the user ends its place, its group and node memberships; the account stays.
    const freshToken = await userAccessToken(t, org, { email: adaEmail, password: PASSWORD });
    expect((await scim.delete(`/Users/${ada.id}`)).status).toBe(204);
    expect((await scim.get(`/Users/${ada.id}`)).status).toBe(404);
    expect((await browse(freshToken)).status).toBe(401);
    expect(await place(ada.id)).toBeUndefined();
    expect(await t.platform.directory.findUser(ada.id)).toMatchObject({ email: adaEmail });
    expect(await members()).toEqual([grace.id]);
    expect(await regional().selectFrom('memberships').selectAll().where('principal_id', '=', ada.id).execute()).toEqual([]);
    expect(await auditEvents(t, org, 'user.removed')).toMatchObject([{ actor_type: 'scim', target_id: ada.id }]);

    // Deleting the group.
    expect((await scim.delete(`/Groups/${groupId}`)).status).toBe(204);
    expect((await scim.get(`/Groups/${groupId}`)).status).toBe(404);
    expect(await regional().selectFrom('group_members').selectAll().where('group_id', '=', groupId).execute()).toEqual([]);
    expect(await auditEvents(t, org, 'group.deleted')).toMatchObject([{ actor_type: 'scim', target_id: groupId }]);
  });

  it("takes Okta's shapes: value-object PATCH of a user, PUT of a user and of a group", async () => {
    const okta = email('okta');
    const user = (await scim.post('/Users', { schemas: [SCIM_USER], userName: okta, name: { givenName: 'O', familyName: 'K' } }))
      .body;
    expect(user.active).toBe(true);
    const off = await scim.patch(`/Users/${user.id}`, [{ op: 'replace', value: { active: false } }]);
    expect(off.body.active).toBe(false);

    const put = await scim.put(`/Users/${user.id}`, {
      schemas: [SCIM_USER],
      id: user.id,
      userName: okta,
      name: { givenName: 'Olga', familyName: 'Kay' },
      active: true,
      externalId: '00u1',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: { givenName: 'Olga', familyName: 'Kay' }, active: true, externalId: '00u1' });
    expect(await t.platform.directory.findUser(user.id)).toMatchObject({ first_name: 'Olga', last_name: 'Kay' });
    expect((await auditEvents(t, org, 'user.updated')).at(-1)).toMatchObject({
      target_id: user.id,
      details: { givenName: 'Olga', familyName: 'Kay', externalId: '00u1' },
    });

    // A sync that repeats what is stored changes nothing and records nothing.
    const repeat = await scimBetweenSnapshots(t, org, () =>
      scim.patch(`/Users/${user.id}`, [{ op: 'replace', value: { active: true, externalId: '00u1', 'name.givenName': 'Olga' } }]),
    );
    expect(repeat.response.status).toBe(200);
    expect(repeat.after).toEqual(repeat.before);

    const group = (await scim.post('/Groups', { schemas: [SCIM_GROUP], displayName: 'Okta group', members: [] })).body;
    const replaced = await scim.put(`/Groups/${group.id}`, {
      schemas: [SCIM_GROUP],
      id: group.id,
      displayName: 'Okta group renamed',
      members: [{ value: user.id, display: okta }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      displayName: 'Okta group renamed',
      members: [{ value: user.id, display: 'Olga Kay' }],
    });
    // A PUT without members leaves them.
    const kept = await scim.put(`/Groups/${group.id}`, { schemas: [SCIM_GROUP], displayName: 'Okta group' });
    expect(kept.body.members).toHaveLength(1);
  });

  it('pages users and groups with startIndex and count, and accepts application/json', async () => {
    for (let index = 0; index < 3; index++) await scim.post('/Users', entraUser(email(`page${index}`)));
    const total = (await scim.get('/Users?count=0')).body;
    expect(total.Resources).toEqual([]);
    expect(total.totalResults).toBeGreaterThanOrEqual(3);
    const all = (await scim.get(`/Users?count=${total.totalResults}`)).body.Resources.map((user: { id: string }) => user.id);
    const second = await scim.get('/Users?startIndex=2&count=2');
    expect(second.body).toMatchObject({ startIndex: 2, itemsPerPage: 2, totalResults: total.totalResults });
    expect(second.body.Resources.map((user: { id: string }) => user.id)).toEqual(all.slice(1, 3));
    // Service users of the organization are not people: SCIM does not show them.
    expect(all).not.toContain(org.adminServiceUserId);

    const plain = await scim.request('POST', '/Groups', { displayName: `Plain ${randomUUID()}` }, 'application/json');
    expect(plain.status).toBe(201);
    const groups = await scim.get('/Groups?startIndex=1&count=1&attributes=displayName');
    expect(groups.body.itemsPerPage).toBe(1);
    expect(Object.keys(groups.body.Resources[0]).sort()).toEqual(['displayName', 'id', 'schemas']);
  });
});
