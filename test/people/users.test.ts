import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applicationService } from '../../src/composition/platform-services.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { auditEvents, peopleSnapshot, place, serviceApp, setSeatLimit, signedInPerson } from '../support/people-users.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { expectRefused, refuser } from '../support/refusals.js';

const USER_FIELDS = [
  'active',
  'createdAt',
  'email',
  'firstName',
  'id',
  'isAdmin',
  'kind',
  'lastName',
  'scimManaged',
  'updatedAt',
];

describe('users: GET /v1/users[/{userId}|/me], PATCH /v1/users/{userId}', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  /** Sends a request that must be refused, and checks that nothing changed in either store. */
  const refused = refuser(() => peopleSnapshot(t, org));

  describe('reading', () => {
    let fresh: OrgFixture;
    let people: { id: string; email: string }[];
    beforeAll(async () => {
      fresh = await createOrg(t);
      people = [await createMember(t, fresh), await createMember(t, fresh), await createMember(t, fresh)];
      await fresh.admin.patch(`/v1/users/${people[2]?.id}`, { active: false });
    });

    it("lists the organization's people and service users by e-mail address, with their state here", async () => {
      const response = await fresh.admin.get('/v1/users');
      expect(response.status).toBe(200);
      expect(response.body).toHaveLength(4);
      for (const user of response.body) expect(Object.keys(user).sort()).toEqual(USER_FIELDS);
      const emails = response.body.map((user: { email: string }) => user.email);
      expect(emails).toEqual([...emails].sort());
      const admin = response.body.find((user: { id: string }) => user.id === fresh.adminServiceUserId);
      expect(admin).toMatchObject({ kind: 'service', active: true, isAdmin: true, scimManaged: false });
      const person = response.body.find((user: { id: string }) => user.id === people[0]?.id);
      expect(person).toMatchObject({
        kind: 'user',
        email: people[0]?.email,
        active: true,
        isAdmin: false,
        firstName: '',
        lastName: '',
      });
    });

    it('filters by email (without case), kind and active, and pages with limit and offset', async () => {
      const ids = async (query: string) =>
        (await fresh.admin.get(`/v1/users?${query}`)).body.map((user: { id: string }) => user.id);
      expect(await ids(`email=${encodeURIComponent((people[1] as { email: string }).email.toUpperCase())}`)).toEqual([
        people[1]?.id,
      ]);
      expect(await ids('kind=service')).toEqual([fresh.adminServiceUserId]);
      expect(await ids('active=false')).toEqual([people[2]?.id]);
      expect((await ids('kind=user&active=true')).sort()).toEqual([people[0]?.id, people[1]?.id].sort());
      const all = await ids('');
      expect([...(await ids('limit=2')), ...(await ids('limit=2&offset=2'))]).toEqual(all);
      expect((await fresh.admin.get('/v1/users?kind=robot')).status).toBe(400);
      expect((await fresh.admin.get('/v1/users?limit=0')).status).toBe(400);
    });

    it('gets one user; a user of another organization, or none, is 404', async () => {
      const one = await fresh.admin.get(`/v1/users/${people[2]?.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: people[2]?.id, active: false });
      for (const id of [org.adminServiceUserId, randomUUID()]) {
        const response = await fresh.admin.get(`/v1/users/${id}`);
        expect(response.status).toBe(404);
        expect(response.body.error).toBe('Not Found');
      }
    });

    it('answers /me with read:basic for a service user and for a signed-in person', async () => {
      const service = await fresh.serviceClient({ scopes: 'read:basic' });
      const me = await service.client.get('/v1/users/me');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: service.userId, kind: 'service', active: true });
      expect((await service.client.get('/v1/users')).body.message).toBe('Insufficient OAuth scopes');

      const person = await signedInPerson(t, fresh);
      expect((await person.client.get('/v1/users/me')).body).toMatchObject({ id: person.id, email: person.email, kind: 'user' });
      // Any active member may read the organization's users (read:user).
      expect((await person.client.get('/v1/users')).status).toBe(200);
    });
  });

  describe('names', () => {
    it('a user may change their own names without any role; the change is recorded as user.updated', async () => {
      const person = await signedInPerson(t, org);
      const response = await person.client.patch(`/v1/users/${person.id}`, { firstName: 'Grace', lastName: 'Hopper' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: person.id, firstName: 'Grace', lastName: 'Hopper', active: true });
      expect(response.body.updatedAt >= response.body.createdAt).toBe(true);
      const [event] = (await auditEvents(t, org, 'user.updated')).filter((row) => row.target_id === person.id);
      expect(event).toMatchObject({ actor_type: 'principal', actor_id: person.id, target_type: 'user' });
      expect(event?.details).toEqual({ firstName: { from: '', to: 'Grace' }, lastName: { from: '', to: 'Hopper' } });
    });

    it("needs manage on the organization node for someone else's names or anyone's activation", async () => {
      const person = await signedInPerson(t, org, 'Contributor');
      const other = await createMember(t, org);
      await refused(() => person.client.patch(`/v1/users/${other.id}`, { firstName: 'X' }), 403, 'Forbidden');
      await refused(() => person.client.patch(`/v1/users/${person.id}`, { active: true }), 403, 'Forbidden');
      const renamed = await org.admin.patch(`/v1/users/${other.id}`, { lastName: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.lastName).toBe('Renamed');
    });

    it('refuses bad bodies with 400 ValidationError and other organizations\u2019 users with 404', async () => {
      const other = await createMember(t, org);
      await refused(() => org.admin.patch(`/v1/users/${other.id}`, {}), 400, 'ValidationError');
      await refused(() => org.admin.patch(`/v1/users/${other.id}`, { email: 'x@example.test' }), 400, 'ValidationError');
      await refused(() => org.admin.patch(`/v1/users/${other.id}`, { firstName: 'n'.repeat(256) }), 400, 'ValidationError');
      await refused(() => org.admin.patch(`/v1/users/${other.id}`, { active: 'no' }), 400, 'ValidationError');
      const stranger = await createMember(t, await createOrg(t));
      await refused(() => org.admin.patch(`/v1/users/${stranger.id}`, { firstName: 'X' }), 404, 'Not Found');
      await refused(() => org.admin.patch(`/v1/users/${randomUUID()}`, { active: false }), 404, 'Not Found');
    });
  });

  describe('deactivation and reactivation', () => {
    it("ends a person's tokens for the organization on the very next request, and refuses refresh", async () => {
      const person = await signedInPerson(t, org);
      expect((await person.client.get('/v1/users/me')).status).toBe(200);

      const response = await org.admin.patch(`/v1/users/${person.id}`, { active: false });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: person.id, active: false });
      expect((await place(t, org, person.id))?.deactivated_at).toBe(response.body.updatedAt);
      // The person's account itself stays active: deactivation is per organization.
      expect((await t.platform.directory.findUser(person.id))?.deactivated_at).toBeNull();

      const next = await person.client.get('/v1/users/me');
      expect(next.status).toBe(401);
      expect(next.body.error).toBe('invalid_token');
      const refreshed = await person.refresh();
      expect(refreshed.status).toBe(400);
      expect(refreshed.body.error).toBe('invalid_grant');
      const [event] = (await auditEvents(t, org, 'user.deactivated')).filter((row) => row.target_id === person.id);
      expect(event).toMatchObject({ actor_type: 'principal', actor_id: org.adminServiceUserId, details: expect.any(Object) });

      const reactivated = await org.admin.patch(`/v1/users/${person.id}`, { active: true });
      expect(reactivated.body).toMatchObject({ active: true });
      expect((await place(t, org, person.id))?.deactivated_at).toBeNull();
      expect((await (await person.signIn()).get('/v1/users/me')).status).toBe(200);
      // The tokens of before the deactivation stay dead: it set the place's "not before".
      expect((await person.client.get('/v1/users/me')).status).toBe(401);
      expect((await person.refresh()).status).toBe(400);
      expect((await auditEvents(t, org, 'user.reactivated')).some((row) => row.target_id === person.id)).toBe(true);
      // Asking for the state the user is in changes nothing.
      const before = await peopleSnapshot(t, org);
      expect((await org.admin.patch(`/v1/users/${person.id}`, { active: true })).status).toBe(200);
      expect(await peopleSnapshot(t, org)).toEqual(before);
    });

    it("ends a service user's tokens at once, refuses refresh and new tokens; reactivation lets it sign in again", async () => {
      const service = await serviceApp(t, org, 'Contributor');
      expect((await service.client.get('/v1/users/me')).status).toBe(200);

      expect((await org.admin.patch(`/v1/users/${service.userId}`, { active: false })).body.active).toBe(false);
      expect((await service.client.get('/v1/users/me')).body.error).toBe('invalid_token');
      expect((await service.refresh()).body.error).toBe('invalid_grant');
      expect((await service.requestToken()).body.error).toBe('invalid_grant');
      const user = await t.platform.directory.findUser(service.userId);
      expect(user?.deactivated_at).not.toBeNull();

      const reactivated = await org.admin.patch(`/v1/users/${service.userId}`, { active: true });
      expect(reactivated.body).toMatchObject({ kind: 'service', active: true });
      expect((await t.platform.directory.findUser(service.userId))?.deactivated_at).toBeNull();
      const token = await service.requestToken();
      expect(token.status).toBe(200);
      expect((await service.client.withToken(token.body.access_token).get('/v1/users/me')).status).toBe(200);
      // Tokens from before the deactivation stay ended, refresh tokens included.
      expect((await service.client.get('/v1/users/me')).status).toBe(401);
      expect((await service.refresh()).body.error).toBe('invalid_grant');
    });

    it('leaves a service user whose application is gone deactivated', async () => {
      const service = await serviceApp(t, org);
      await org.admin.patch(`/v1/users/${service.userId}`, { active: false });
      await applicationService(t.platform).delete(service.clientId);
      const response = await org.admin.patch(`/v1/users/${service.userId}`, { active: true });
      expect(response.status).toBe(200);
      expect(response.body.active).toBe(false);
      expect((await t.platform.directory.findUser(service.userId))?.deactivated_at).not.toBeNull();
    });

    it('refuses to deactivate oneself: 409 CannotDeactivateSelf', async () => {
      const admin = await signedInPerson(t, org, 'Organization Administrator');
      await refused(() => admin.client.patch(`/v1/users/${admin.id}`, { active: false }), 409, 'CannotDeactivateSelf');
      await refused(() => org.admin.patch(`/v1/users/${org.adminServiceUserId}`, { active: false }), 409, 'CannotDeactivateSelf');
    });

    it('refuses to deactivate the last active administrator: 409 LastAdministrator', async () => {
      const fresh = await createOrg(t);
      const [first, second] = [await createMember(t, fresh, 'Organization Administrator'), await createMember(t, fresh)];
      await expectRefused(
        () => fresh.admin.patch(`/v1/users/${first.id}`, { active: false }),
        { status: 409, error: 'LastAdministrator' },
        () => peopleSnapshot(t, fresh),
      );
      await fresh.admin.request('PUT', `/v1/nodes/${fresh.orgId}/memberships/${second.id}`, {
        roleId: 'organization-administrator',
      });
      expect((await fresh.admin.patch(`/v1/users/${first.id}`, { active: false })).status).toBe(200);
      await expectRefused(
        () => fresh.admin.patch(`/v1/users/${second.id}`, { active: false }),
        { status: 409, error: 'LastAdministrator' },
        () => peopleSnapshot(t, fresh),
      );
    });

    it('refuses to reactivate a person beyond the seat limit (403 Forbidden resource); service users take no seat', async () => {
      const fresh = await createOrg(t);
      const [first] = [await createMember(t, fresh), await createMember(t, fresh)];
      const service = await serviceApp(t, fresh);
      await setSeatLimit(t, fresh, 2);
      await fresh.admin.patch(`/v1/users/${first.id}`, { active: false });
      await createMember(t, fresh); // the free seat is taken meanwhile

      const response = await expectRefused(
        () => fresh.admin.patch(`/v1/users/${first.id}`, { active: true, firstName: 'Back' }),
        { status: 403, error: 'Forbidden' },
        () => peopleSnapshot(t, fresh),
      );
      expect(response.body.message).toBe('Forbidden resource');
      await fresh.admin.patch(`/v1/users/${service.userId}`, { active: false });
      expect((await fresh.admin.patch(`/v1/users/${service.userId}`, { active: true })).body.active).toBe(true);

      await setSeatLimit(t, fresh, 3);
      expect((await fresh.admin.patch(`/v1/users/${first.id}`, { active: true })).body.active).toBe(true);
    });
  });
});
