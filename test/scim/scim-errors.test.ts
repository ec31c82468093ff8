import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiResponse, OrgFixture } from '../support/fixtures.js';
import { createOrg } from '../support/fixtures.js';
import { PASSWORD } from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import {
  createScimClient,
  entraUser,
  SCIM_ERROR,
  SCIM_GROUP,
  type ScimClient,
  scimBetweenSnapshots,
  scimSnapshot,
} from '../support/scim.js';

const email = (name: string) => `${name}-${randomUUID().slice(0, 6)}@example.com`;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('SCIM refusals: each answers the SCIM error shape and stores nothing', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let scim: ScimClient;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    ({ client: scim } = await createScimClient(t, org));
  });

  /** Sends between snapshots and checks the SCIM error: status, scimType, and nothing stored. */
  async function refused(send: () => Promise<ApiResponse>, status: number, scimType?: string) {
    const { response, before, after } = await scimBetweenSnapshots(t, org, send);
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(response.body).toEqual({
      schemas: [SCIM_ERROR],
      status: String(status),
      ...(scimType ? { scimType } : {}),
      detail: expect.any(String),
    });
    expect(after).toEqual(before);
    return response;
  }

  const createUser = async (address = email('u'), extra: Record<string, unknown> = {}) => {
    const response = await scim.post('/Users', entraUser(address, extra));
    if (response.status !== 201) throw new Error(`create user: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as { id: string; userName: string };
  };
  const createGroup = async (displayName = `G ${randomUUID()}`, members: string[] = []) => {
    const response = await scim.post('/Groups', {
      schemas: [SCIM_GROUP],
      displayName,
      members: members.map((value) => ({ value })),
    });
    if (response.status !== 201) throw new Error(`create group: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as { id: string; displayName: string };
  };

  it('400 invalidFilter for filters it does not support', async () => {
    for (const text of [
      'userName co "a"',
      'userName eq "a" or userName eq "b"',
      'title eq "x"',
      'userName eq',
      'active eq "yes"',
    ]) {
      await refused(() => scim.get(`/Users?filter=${encodeURIComponent(text)}`), 400, 'invalidFilter');
    }
    await refused(() => scim.get(`/Groups?filter=${encodeURIComponent('displayName sw "S"')}`), 400, 'invalidFilter');
  });

  it('409 uniqueness: a userName already in the organization, a group name already taken', async () => {
    const user = await createUser();
    await refused(() => scim.post('/Users', entraUser(user.userName.toUpperCase())), 409, 'uniqueness');
    // A person added by other means (an invitation, the command line) is in the organization too.
    const member = await t.admin.createUser({ email: email('member'), password: PASSWORD, orgId: org.orgId });
    await refused(() => scim.post('/Users', entraUser(member.email)), 409, 'uniqueness');

    const group = await createGroup('Sales');
    await refused(() => scim.post('/Groups', { schemas: [SCIM_GROUP], displayName: 'SALES' }), 409, 'uniqueness');
    const other = await createGroup('Marketing');
    await refused(
      () => scim.patch(`/Groups/${other.id}`, [{ op: 'replace', path: 'displayName', value: 'sales' }]),
      409,
      'uniqueness',
    );
    // Names are unique across the organization's groups, SCIM-managed or not.
    await insertManualGroup('Support');
    await refused(() => scim.post('/Groups', { schemas: [SCIM_GROUP], displayName: 'Support' }), 409, 'uniqueness');
    expect(group.displayName).toBe('Sales');

    // An e-mail that is another person's account.
    const second = await createUser();
    await refused(
      () => scim.patch(`/Users/${second.id}`, [{ op: 'replace', path: 'userName', value: user.userName }]),
      409,
      'uniqueness',
    );
  });

  async function insertManualGroup(name: string) {
    const id = randomUUID();
    const now = new Date().toISOString();
    await t.platform.regions[org.region].store.db
      .insertInto('groups')
      .values({
        id,
        org_id: org.orgId,
        name,
        name_key: name.toLowerCase(),
        division_id: null,
        scim_managed: 0,
        scim_external_id: null,
        saml_linked: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return id;
  }

  it('404 for unknown ids, groups not SCIM-managed, and users of other organizations', async () => {
    for (const path of [`/Users/${UNKNOWN}`, `/Groups/${UNKNOWN}`]) {
      await refused(() => scim.get(path), 404);
      await refused(() => scim.request('PUT', path, { userName: 'x@example.com', displayName: 'X' }), 404);
      await refused(() => scim.patch(path, [{ op: 'replace', path: 'externalId', value: 'x' }]), 404);
      await refused(() => scim.delete(path), 404);
    }
    const manual = await insertManualGroup(`Manual ${randomUUID()}`);
    await refused(() => scim.get(`/Groups/${manual}`), 404);
    await refused(() => scim.delete(`/Groups/${manual}`), 404);
    expect((await scim.get(`/Groups?filter=${encodeURIComponent(`id eq "${manual}"`)}`)).body.totalResults).toBe(0);

    const other = await createOrg(t);
    const { client: otherScim } = await createScimClient(t, other);
    const stranger = (await otherScim.post('/Users', entraUser(email('stranger')))).body;
    await refused(() => scim.get(`/Users/${stranger.id}`), 404);
    await refused(() => scim.delete(`/Users/${stranger.id}`), 404);
    await refused(() => scim.get('/Nope'), 404);
  });

  it('404 and nothing written when a DELETE lands between the read of a change and its write', async () => {
    const { members } = t.platform;
    const user = await createUser();
    const newcomer = await createUser();
    const group = await createGroup(undefined, [user.id]);
    // The group's PATCH reads the group, then checks its new members (members.findMany): the DELETE comes in between.
    let deleted: Awaited<ReturnType<typeof scimSnapshot>> | undefined;
    const findMany = members.findMany.bind(members);
    const groupSpy = vi.spyOn(members, 'findMany').mockImplementationOnce(async (...args) => {
      expect((await scim.delete(`/Groups/${group.id}`)).status).toBe(204);
      deleted = await scimSnapshot(t, org);
      return findMany(...args);
    });
    try {
      const response = await scim.patch(`/Groups/${group.id}`, [{ op: 'add', path: 'members', value: [{ value: newcomer.id }] }]);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ schemas: [SCIM_ERROR], status: '404', detail: expect.any(String) });
      expect(await scimSnapshot(t, org)).toEqual(deleted);
    } finally {
      groupSpy.mockRestore();
    }

    // A reactivation reads the user, then takes the seat lock (members.withSeats): the person leaves in between.
    const idle = await createUser(email('idle'), { active: false });
    const withSeats = members.withSeats.bind(members);
    const userSpy = vi.spyOn(members, 'withSeats').mockImplementationOnce(async (...args) => {
      await members.unlink(org.orgId, idle.id);
      deleted = await scimSnapshot(t, org);
      return withSeats(...args);
    });
    try {
      const response = await scim.patch(`/Users/${idle.id}`, [{ op: 'replace', path: 'active', value: true }]);
      expect(response.status).toBe(404);
      expect(await scimSnapshot(t, org)).toEqual(deleted);
    } finally {
      userSpy.mockRestore();
    }
  });

  it('400 invalidValue for members who are not people of the organization', async () => {
    const other = await createOrg(t);
    const { client: otherScim } = await createScimClient(t, other);
    const stranger = (await otherScim.post('/Users', entraUser(email('stranger')))).body;
    const user = await createUser();
    for (const id of [stranger.id, UNKNOWN, org.adminServiceUserId]) {
      await refused(
        () =>
          scim.post('/Groups', {
            schemas: [SCIM_GROUP],
            displayName: `G ${randomUUID()}`,
            members: [{ value: user.id }, { value: id }],
          }),
        400,
        'invalidValue',
      );
    }
    const group = await createGroup(undefined, [user.id]);
    await refused(
      () => scim.patch(`/Groups/${group.id}`, [{ op: 'add', path: 'members', value: [{ value: stranger.id }] }]),
      400,
      'invalidValue',
    );
    await refused(
      () => scim.patch(`/Groups/${group.id}`, [{ op: 'replace', path: 'members', value: [{ value: UNKNOWN }] }]),
      400,
      'invalidValue',
    );
  });

  it('403 when the organization has no free seat: creating or reactivating an active user', async () => {
    const seatOrg = await createOrg(t);
    const { client } = await createScimClient(t, seatOrg);
    await t.platform.directory.updateOrganization(seatOrg.orgId, { seat_limit: 1 });
    const first = (await client.post('/Users', entraUser(email('first')))).body;
    const { response, before, after } = await scimBetweenSnapshots(t, seatOrg, () =>
      client.post('/Users', entraUser(email('second'))),
    );
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ schemas: [SCIM_ERROR], status: '403', detail: expect.any(String) });
    expect(after).toEqual(before);

    // An inactive user takes no seat; reactivating it would.
    const idle = await client.post('/Users', entraUser(email('idle'), { active: false }));
    expect(idle.status).toBe(201);
    const reactivate = await scimBetweenSnapshots(t, seatOrg, () =>
      client.patch(`/Users/${idle.body.id}`, [{ op: 'Replace', path: 'active', value: 'True' }]),
    );
    expect(reactivate.response.status).toBe(403);
    expect(reactivate.after).toEqual(reactivate.before);

    // A seat freed by a deactivation can be taken.
    await client.patch(`/Users/${first.id}`, [{ op: 'replace', path: 'active', value: false }]);
    expect((await client.patch(`/Users/${idle.body.id}`, [{ op: 'replace', path: 'active', value: true }])).status).toBe(200);
  });

  it('400 for bodies it cannot read: bad JSON, a userName that is no e-mail, bad PatchOps', async () => {
    await refused(() => scim.request('POST', '/Users', '{"userName":'), 400, 'invalidSyntax');
    await refused(() => scim.post('/Users', { userName: 'jdoe' }), 400, 'invalidValue');
    await refused(() => scim.post('/Users', { name: { givenName: 'No' } }), 400, 'invalidValue');
    await refused(() => scim.post('/Groups', { members: [] }), 400, 'invalidValue');
    const user = await createUser();
    await refused(() => scim.patch(`/Users/${user.id}`, [{ op: 'remove', path: 'userName' }]), 400, 'mutability');
    await refused(
      () => scim.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'active', value: 'perhaps' }]),
      400,
      'invalidValue',
    );
    await refused(() => scim.patch(`/Users/${user.id}`, [{ op: 'copy', path: 'active', value: true }]), 400, 'invalidSyntax');
    await refused(() => scim.patch(`/Users/${user.id}`, []), 400, 'invalidSyntax');
    // The operations of one PATCH apply together or not at all.
    await refused(
      () =>
        scim.patch(`/Users/${user.id}`, [
          { op: 'replace', path: 'active', value: false },
          { op: 'replace', path: 'id', value: 'x' },
        ]),
      400,
      'mutability',
    );
    await refused(() => scim.request('POST', '/Users', 'userName=x', 'text/plain'), 415);
  });

  it("takes bodies above the API's 64 KiB (a group PUT lists every member) up to 1 MiB, then 413", async () => {
    const padding = 'x'.repeat(200 * 1024);
    const large = await scim.post('/Groups', {
      schemas: [SCIM_GROUP],
      displayName: `Large ${randomUUID()}`,
      description: padding,
    });
    expect(large.status).toBe(201);
    await refused(
      () =>
        scim.post('/Groups', {
          schemas: [SCIM_GROUP],
          displayName: `Huge ${randomUUID()}`,
          description: 'x'.repeat(1024 * 1024),
        }),
      413,
    );
  });

  it('400 mutability for the e-mail of a person who also belongs to another organization', async () => {
    const other = await createOrg(t);
    const shared = await t.admin.createUser({ email: email('shared'), password: PASSWORD, orgId: other.orgId });
    const linked = await createUser(shared.email);
    expect(linked.id).toBe(shared.id);
    await refused(
      () => scim.patch(`/Users/${shared.id}`, [{ op: 'replace', path: 'userName', value: email('moved') }]),
      400,
      'mutability',
    );
  });

  it('400 invalidValue for an address outside the allowed e-mail domains', async () => {
    const domainOrg = await createOrg(t);
    await t.platform.directory.updateOrganization(domainOrg.orgId, { email_domains: JSON.stringify(['survey.example']) });
    const { client } = await createScimClient(t, domainOrg);
    const { response, before, after } = await scimBetweenSnapshots(t, domainOrg, () =>
      client.post('/Users', entraUser(email('out'))),
    );
    expect(response.status).toBe(400);
    expect(response.body.scimType).toBe('invalidValue');
    expect(after).toEqual(before);
    expect((await client.post('/Users', entraUser(`in-${randomUUID().slice(0, 6)}@survey.example`))).status).toBe(201);
  });

  it('marks its groups SCIM-managed, which the regional API refuses to change by hand', async () => {
    // PUT /v1/groups/{groupId}/users/{userId} (409 CannotInviteToSCIMGroup) is the groups
    // branch's; here the flag it reads is checked in the store.
    const user = await createUser();
    const group = await createGroup(undefined, [user.id]);
    const row = await t.platform.regions[org.region].store.db
      .selectFrom('groups')
      .select(['scim_managed', 'division_id', 'saml_linked'])
      .where('id', '=', group.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ scim_managed: 1, division_id: null, saml_linked: 0 });
  });
});
