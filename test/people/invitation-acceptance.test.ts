import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/crypto/secrets.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { linkMailedTo, peopleSnapshot, setOrganization } from '../support/invitations.js';
import { createMember, FormAgent, hiddenField } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const address = () => `invitee-${randomUUID().slice(0, 8)}@example.test`;
const PASSWORD = 'a long enough password';

/** The acceptance page at {auth_url}/invitations/{token}, driven by forms (the browser test does the main flow). */
describe('accepting an invitation', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;

  beforeAll(async () => {
    t = await startPlatform({ RDP_LOGIN_MAX_FAILURES: '3' });
    org = await createOrg(t);
    tree = await createTree(org);
  });
  afterAll(() => t?.close());

  async function invite(email: string, nodeId = tree.divisionId, roleId = org.roles.Viewer as string) {
    const response = await org.admin.post(`/v1/nodes/${nodeId}/invitations`, { email, roleId });
    expect(response.status).toBe(201);
    return { id: response.body.id as string, link: await linkMailedTo(t, email) };
  }

  /** Opens the page and posts its form with these fields (the page's CSRF token unless given). */
  async function submit(agent: FormAgent, link: string, fields: Record<string, string>) {
    const page = await agent.request(link);
    expect(page.status).toBe(200);
    const form = new URLSearchParams({ csrf: hiddenField(page.body, 'csrf'), ...fields });
    return agent.post(link, form);
  }

  const invitation = async (id: string) => (await peopleSnapshot(t, org)).invitations.find((row) => row.id === id);

  it('shows the organization, the node and the role, and creates the account that accepts', async () => {
    const email = address();
    const { id, link } = await invite(email);
    const agent = new FormAgent();
    const page = await agent.request(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    for (const text of ['Division', 'Viewer', email, 'First name']) expect(page.body).toContain(text);

    const done = await submit(agent, link, { first_name: 'Ada', last_name: 'Lovelace', password: PASSWORD });
    expect(done.status).toBe(200);
    expect(done.body).toContain('invitation is accepted');
    // It leads into the console, signed in: accepting started a session of the sign-in pages.
    expect(done.body).toContain(`<a href="${t.origin}/console">Open the console</a>`);
    expect(done.headers.getSetCookie().some((line) => line.startsWith('rdp_session='))).toBe(true);

    const user = await t.platform.directory.findUserByEmail(email);
    expect(user).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', kind: 'user' });
    expect(await verifyPassword(PASSWORD, user?.password_hash ?? '')).toBe(true);
    const after = await peopleSnapshot(t, org);
    expect(after.userOrganizations.find((row) => row.user_id === user?.id)).toMatchObject({ is_admin: 0, deactivated_at: null });
    expect(after.memberships.find((row) => row.principal_id === user?.id)).toMatchObject({
      node_id: tree.divisionId,
      role_id: org.roles.Viewer,
      principal_type: 'user',
    });
    expect(await invitation(id)).toMatchObject({ state: 'accepted', accepted_by: user?.id, accepted_at: expect.any(String) });
    const audit = await t.platform.regions[org.region].audit.list(
      org.orgId,
      { action: 'invitation.accepted', targetId: id },
      10,
      0,
    );
    expect(audit.map((event) => [event.actor_type, event.actor_id])).toEqual([['invitee', user?.id]]);

    const again = await new FormAgent().request(link);
    expect(again.status).toBe(410);
    expect(again.body).toContain('already accepted');
  });

  it('asks an existing account for its password; a wrong one changes nothing; too many are throttled', async () => {
    const member = await createMember(t, org);
    const { id, link } = await invite(member.email, tree.siteId);
    const agent = new FormAgent();
    const page = await agent.request(link);
    expect(page.body).toContain('Enter its password');
    expect(page.body).not.toContain('First name');

    const before = await peopleSnapshot(t, org);
    const wrong = await submit(agent, link, { password: 'not the password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('The password is wrong');
    expect(await peopleSnapshot(t, org)).toEqual(before);

    const accepted = await submit(agent, link, { password: member.password });
    expect(accepted.status).toBe(200);
    expect((await peopleSnapshot(t, org)).memberships.find((row) => row.principal_id === member.id)?.node_id).toBe(tree.siteId);
    expect(await invitation(id)).toMatchObject({ state: 'accepted', accepted_by: member.id });

    // The sign-in throttle counts the account's failures: the right password is refused for a while.
    const throttled = await createMember(t, org);
    const second = await invite(throttled.email, tree.folderId);
    for (let attempt = 0; attempt < 3; attempt++) await submit(agent, second.link, { password: 'wrong password' });
    const refused = await submit(agent, second.link, { password: throttled.password });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect((await invitation(second.id))?.state).toBe('pending');
  });

  it('refuses a form without its CSRF token, or with a short password or no name, changing nothing', async () => {
    const { link } = await invite(address());
    const agent = new FormAgent();
    await agent.request(link);
    const before = await peopleSnapshot(t, org);
    const forged = await agent.post(
      link,
      new URLSearchParams({ csrf: 'forged', first_name: 'A', last_name: 'B', password: PASSWORD }),
    );
    expect(forged.status).toBe(403);
    const short = await submit(agent, link, { first_name: 'Ada', last_name: 'Lovelace', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body).toContain('at least 8 characters');
    expect(short.body).toContain('value="Lovelace"');
    const nameless = await submit(agent, link, { first_name: ' ', last_name: 'Lovelace', password: PASSWORD });
    expect(nameless.status).toBe(400);
    expect(await peopleSnapshot(t, org)).toEqual(before);
  });

  it('shows 404 for an unknown link and 410 for a revoked one', async () => {
    const agent = new FormAgent();
    expect((await agent.request(`${t.authUrl}/invitations/${'A'.repeat(43)}`)).status).toBe(404);
    expect((await agent.request(`${t.authUrl}/invitations/not-a-token`)).status).toBe(404);
    const { id, link } = await invite(address());
    const page = await agent.request(link);
    expect((await org.admin.delete(`/v1/invitations/${id}`)).status).toBe(204);
    const before = await peopleSnapshot(t, org);
    const posted = await agent.post(
      link,
      new URLSearchParams({ csrf: hiddenField(page.body, 'csrf'), first_name: 'A', last_name: 'B', password: PASSWORD }),
    );
    expect(posted.status).toBe(410);
    expect(await peopleSnapshot(t, org)).toEqual(before);
  });

  it('shows a 403 page when no seat is free for a newcomer, and keeps the invitation pending', async () => {
    const { id, link } = await invite(address());
    const used = await t.platform.members.withSeats(org.orgId, async (_tx, seats) => seats.used);
    await setOrganization(t, org, { seat_limit: used });
    try {
      const agent = new FormAgent();
      const before = await peopleSnapshot(t, org);
      const refused = await submit(agent, link, { first_name: 'Ada', last_name: 'Lovelace', password: PASSWORD });
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('No free seat');
      expect(await peopleSnapshot(t, org)).toEqual(before);
    } finally {
      await setOrganization(t, org, { seat_limit: null });
    }
    expect((await invitation(id))?.state).toBe('pending');
  });

  it('completes on a retry when it failed between the two stores', async () => {
    const email = address();
    const { id, link } = await invite(email);
    const audit = t.platform.regions[org.region].audit;
    const record = audit.record;
    audit.record = async () => {
      throw new Error('the regional store went away');
    };
    try {
      const failed = await submit(new FormAgent(), link, { first_name: 'Ada', last_name: 'Lovelace', password: PASSWORD });
      expect(failed.status).toBe(500);
    } finally {
      audit.record = record;
    }
    // Half done: the account exists and is in the organization; the invitation is still pending.
    const user = await t.platform.directory.findUserByEmail(email);
    expect(user).toBeDefined();
    expect((await invitation(id))?.state).toBe('pending');
    expect((await peopleSnapshot(t, org)).memberships.some((row) => row.principal_id === user?.id)).toBe(false);

    // The same link now asks for the account's password, and finishes.
    const agent = new FormAgent();
    expect((await agent.request(link)).body).toContain('Enter its password');
    expect((await submit(agent, link, { password: PASSWORD })).status).toBe(200);
    expect(await invitation(id)).toMatchObject({ state: 'accepted', accepted_by: user?.id });
    expect((await peopleSnapshot(t, org)).memberships.some((row) => row.principal_id === user?.id)).toBe(true);
  });

  it('undoes its organization link when the invitation is revoked while it is being accepted', async () => {
    const email = address();
    const { id, link } = await invite(email);
    const members = t.platform.members;
    const withSeats = members.withSeats;
    // The global half commits, then an administrator revokes before the regional half runs.
    members.withSeats = async <T>(orgId: string, change: Parameters<typeof withSeats<T>>[1]): Promise<T> => {
      const result = await withSeats.call<typeof members, [string, typeof change], Promise<T>>(members, orgId, change);
      await t.platform.regions[org.region].store.db
        .updateTable('invitations')
        .set({ state: 'revoked' })
        .where('id', '=', id)
        .execute();
      return result;
    };
    try {
      const answer = await submit(new FormAgent(), link, { first_name: 'Ada', last_name: 'Lovelace', password: PASSWORD });
      expect(answer.status).toBe(410);
      expect(answer.body).toContain('withdrawn');
    } finally {
      members.withSeats = withSeats;
    }
    const user = await t.platform.directory.findUserByEmail(email);
    const after = await peopleSnapshot(t, org);
    expect(after.userOrganizations.some((row) => row.user_id === user?.id)).toBe(false);
    expect(after.memberships.some((row) => row.principal_id === user?.id)).toBe(false);
  });

  it('accepts once when the same form is sent twice at once, and the user stays in the organization', async () => {
    const member = await createMember(t, org);
    await t.platform.stores.global.db.deleteFrom('user_organizations').where('user_id', '=', member.id).execute();
    const { id, link } = await invite(member.email, tree.folderId);
    const agents = [new FormAgent(), new FormAgent()];
    const pages = await Promise.all(agents.map((agent) => agent.request(link)));
    const answers = await Promise.all(
      agents.map((agent, index) =>
        agent.post(link, new URLSearchParams({ csrf: hiddenField(pages[index]?.body ?? '', 'csrf'), password: member.password })),
      ),
    );
    expect(answers.map((answer) => answer.status)).toContain(200);
    for (const answer of answers) expect([200, 410]).toContain(answer.status);
    const after = await peopleSnapshot(t, org);
    expect(after.userOrganizations.some((row) => row.user_id === member.id)).toBe(true);
    expect(after.memberships.some((row) => row.principal_id === member.id && row.node_id === tree.folderId)).toBe(true);
    expect(await invitation(id)).toMatchObject({ state: 'accepted', accepted_by: member.id });
  });

  it('makes the invitee an administrator of the settings with the Organization Administrator role', async () => {
    // An account of the platform that is not yet in the organization (a member would be 409 UserAlreadyMember).
    const member = { email: address(), password: PASSWORD };
    const account = await t.admin.createUser(member);
    const response = await org.admin.post('/v1/invitations', { email: member.email, roleId: 'organization-administrator' });
    expect(response.status).toBe(201);
    const done = await submit(new FormAgent(), await linkMailedTo(t, member.email), { password: member.password });
    expect(done.status).toBe(200);
    expect(done.body).toContain('organization settings');
    const place = (await peopleSnapshot(t, org)).userOrganizations.find((row) => row.user_id === account.id);
    expect(place?.is_admin).toBe(1);
  });
});
