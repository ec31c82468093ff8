import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { removeStaleInvitations } from '../../src/jobs/housekeeping.js';
import { createTree, insertDataNode, type OrgFixture } from '../support/fixtures.js';
import { invitationLinkIn, linkMailedTo, outbox, peopleSnapshot, setOrganization } from '../support/invitations.js';
import { createMember } from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

const address = (prefix = 'invitee') => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;

/** Invitations through the API, on the embedded default: mail goes to the outbox. */
describe('invitations', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;
  let viewerId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    tree = await createTree(org);
    viewerId = org.roles.Viewer as string;
  });

  /** Sends a request that must be refused, and checks that nothing changed in either store. */
  const refused = refuser(() => peopleSnapshot(t, org));

  it('invites to the organization: 201 with the invitation, mail in the outbox, only the hash of its link stored', async () => {
    const email = address();
    const response = await org.admin.post('/v1/invitations', { email, roleId: 'organization-reader' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(String),
      email,
      nodeId: org.orgId,
      roleId: 'organization-reader',
      state: 'pending',
      invitedBy: org.adminServiceUserId,
      acceptedBy: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      acceptedAt: null,
    });
    const mail = (await outbox(t)).find((row) => row.to_address === email);
    expect(mail?.subject).toContain('invited');
    const link = invitationLinkIn(mail?.text_body ?? '');
    expect(link.startsWith(`${t.authUrl}/invitations/`)).toBe(true);
    const token = link.slice(link.lastIndexOf('/') + 1);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(mail?.html_body).toContain(`href="${link}"`);

    const row = await t.platform.regions[org.region].store.db
      .selectFrom('invitations')
      .selectAll()
      .where('id', '=', response.body.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('base64url'));
    expect(JSON.stringify(row)).not.toContain(token);

    const audit = await t.platform.regions[org.region].audit.list(org.orgId, { targetId: response.body.id }, 10, 0);
    expect(audit.map((event) => [event.action, event.actor_type, event.actor_id])).toEqual([
      ['invitation.created', 'principal', org.adminServiceUserId],
    ]);
  });

  it('invites to a node with a custom role, and stores the address in lower case', async () => {
    const email = address('Mixed.Case');
    const response = await org.admin.post(`/v1/nodes/${tree.divisionId}/invitations`, {
      email: email.toUpperCase(),
      roleId: viewerId,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      email: email.toLowerCase(),
      nodeId: tree.divisionId,
      roleId: viewerId,
      state: 'pending',
    });
    expect(await linkMailedTo(t, email.toLowerCase())).toContain('/auth/invitations/');
  });

  it('refuses an address that is not one (400 ValidationError), nothing stored', async () => {
    for (const email of ['not-an-address', 'two@@example.test', 'a b@example.test', '']) {
      await refused(() => org.admin.post('/v1/invitations', { email, roleId: viewerId }), 400, 'ValidationError');
    }
    await refused(() => org.admin.post('/v1/invitations', { email: address() }), 400, 'ValidationError');
    await refused(
      () => org.admin.post('/v1/invitations', { email: address(), roleId: viewerId, extra: 1 }),
      400,
      'ValidationError',
    );
  });

  it('is 409 UserAlreadyInvited while an invitation of the address to the node is live', async () => {
    const email = address();
    expect((await org.admin.post(`/v1/nodes/${tree.siteId}/invitations`, { email, roleId: viewerId })).status).toBe(201);
    await refused(
      () => org.admin.post(`/v1/nodes/${tree.siteId}/invitations`, { email: email.toUpperCase(), roleId: org.roles.Manager }),
      409,
      'UserAlreadyInvited',
    );
    // Another node is another invitation.
    expect((await org.admin.post(`/v1/nodes/${tree.folderId}/invitations`, { email, roleId: viewerId })).status).toBe(201);
  });

  it('stores one invitation when the same one is sent several times at once (the live index decides)', async () => {
    const email = address();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => org.admin.post(`/v1/nodes/${tree.divisionId}/invitations`, { email, roleId: viewerId })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.error === 'UserAlreadyInvited')).toBe(
      true,
    );
    const rows = (await peopleSnapshot(t, org)).invitations.filter((row) => row.email === email);
    expect(rows.map((row) => row.state)).toEqual(['pending']);
    expect((await outbox(t)).filter((mail) => mail.to_address === email)).toHaveLength(1);
  });

  it('is 409 UserAlreadyMember for a user of the organization with a role on that node', async () => {
    const member = await createMember(t, org, 'Organization Reader');
    await refused(
      () => org.admin.post('/v1/invitations', { email: member.email, roleId: 'organization-administrator' }),
      409,
      'UserAlreadyMember',
    );
    // No role on the division yet: an invitation there gives one.
    expect(
      (await org.admin.post(`/v1/nodes/${tree.divisionId}/invitations`, { email: member.email, roleId: viewerId })).status,
    ).toBe(201);
  });

  it('is 409 UserAlreadyMember for any member invited to the organization, with a role or none; no mail', async () => {
    // A place in the organization and a role only on the division, or no role at all.
    const onDivision = await createMember(t, org);
    await t.admin.grantMembership({ nodeId: tree.divisionId, principalId: onDivision.id, roleId: viewerId });
    const withoutRole = await createMember(t, org);
    const deactivated = await createMember(t, org);
    expect((await org.admin.patch(`/v1/users/${deactivated.id}`, { active: false })).status).toBe(200);
    for (const member of [onDivision, withoutRole, deactivated]) {
      for (const roleId of ['organization-reader', 'organization-administrator']) {
        const response = await refused(
          () => org.admin.post('/v1/invitations', { email: member.email, roleId }),
          409,
          'UserAlreadyMember',
        );
        expect(response.body.message).toContain(member.email);
      }
      // The same address in other case is the same person.
      await refused(
        () => org.admin.post('/v1/invitations', { email: member.email.toUpperCase(), roleId: 'organization-reader' }),
        409,
        'UserAlreadyMember',
      );
    }
    // To a node: a member without a membership there is invited; one holding one is refused.
    expect(
      (await org.admin.post(`/v1/nodes/${tree.siteId}/invitations`, { email: withoutRole.email, roleId: viewerId })).status,
    ).toBe(201);
    await refused(
      () => org.admin.post(`/v1/nodes/${tree.divisionId}/invitations`, { email: onDivision.email, roleId: viewerId }),
      409,
      'UserAlreadyMember',
    );
  });

  it('is 403 InvalidEmailDomain for an address outside the allowed domains (compared in lower case)', async () => {
    await setOrganization(t, org, { email_domains: JSON.stringify(['example.com']) });
    try {
      await refused(
        () => org.admin.post('/v1/invitations', { email: 'someone@other.test', roleId: viewerId }),
        403,
        'InvalidEmailDomain',
      );
      await refused(
        () => org.admin.post('/v1/invitations', { email: 'someone@sub.example.com', roleId: viewerId }),
        403,
        'InvalidEmailDomain',
      );
      const allowed = await org.admin.post('/v1/invitations', {
        email: `Someone-${randomUUID().slice(0, 6)}@EXAMPLE.com`,
        roleId: viewerId,
      });
      expect(allowed.status).toBe(201);
    } finally {
      await setOrganization(t, org, { email_domains: '[]' });
    }
  });

  it('answers the role codes of the spec (400), nothing stored', async () => {
    const pointCloud = await insertDataNode(t, org, tree.siteId, { kind: 'pointCloud' });
    await refused(
      () => org.admin.post(`/v1/nodes/${pointCloud.id}/invitations`, { email: address(), roleId: viewerId }),
      400,
      'CustomRoleNotAssignableToDataNode',
    );
    await refused(() => org.admin.post('/v1/invitations', { email: address(), roleId: randomUUID() }), 400, 'CustomRoleNotFound');
    await refused(
      () => org.admin.post('/v1/invitations', { email: address(), roleId: 'organization-owner' }),
      400,
      'AdminsitrativeRoleNotFound',
    );
    await refused(
      () => org.admin.post(`/v1/nodes/${tree.divisionId}/invitations`, { email: address(), roleId: 'organization-reader' }),
      400,
      'AdministrativeRoleInvalidNode',
    );
  });

  it('is 403 Forbidden resource when the invitee would need a seat and none is free', async () => {
    const used = await t.platform.members.withSeats(org.orgId, async (_tx, seats) => seats.used);
    await setOrganization(t, org, { seat_limit: used });
    try {
      const response = await refused(
        () => org.admin.post('/v1/invitations', { email: address(), roleId: viewerId }),
        403,
        'Forbidden',
      );
      expect(response.body.message).toBe('Forbidden resource');
      // A user of the organization takes no new seat.
      const member = await createMember(t, org);
      expect(
        (await org.admin.post(`/v1/nodes/${tree.siteId}/invitations`, { email: member.email, roleId: viewerId })).status,
      ).toBe(201);
    } finally {
      await setOrganization(t, org, { seat_limit: null });
    }
  });

  it('needs write:user and manage on the node; a manager of a division invites there only', async () => {
    const manager = await org.serviceClient({ roleName: 'Manager', nodeId: tree.divisionId });
    const inDivision = await manager.client.post(`/v1/nodes/${tree.siteId}/invitations`, { email: address(), roleId: viewerId });
    expect(inDivision.status).toBe(201);
    expect((await manager.client.get(`/v1/invitations?nodeId=${tree.siteId}`)).status).toBe(200);
    await refused(() => manager.client.post('/v1/invitations', { email: address(), roleId: viewerId }), 403, 'Forbidden');
    await refused(() => manager.client.get('/v1/invitations'), 403, 'Forbidden');
    const otherDivision = (await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'Elsewhere' })).body.id;
    await refused(
      () => manager.client.post(`/v1/nodes/${otherDivision}/invitations`, { email: address(), roleId: viewerId }),
      403,
      'Forbidden',
    );

    const reader = await org.serviceClient({ scopes: 'read:user read:hierarchy', roleName: 'Organization Administrator' });
    const scopeRefusal = await refused(
      () => reader.client.post('/v1/invitations', { email: address(), roleId: viewerId }),
      403,
      'Forbidden',
    );
    expect(scopeRefusal.body.message).toBe('Insufficient OAuth scopes');
    await refused(
      () => org.admin.post(`/v1/nodes/${randomUUID()}/invitations`, { email: address(), roleId: viewerId }),
      404,
      'Not Found',
    );
  });

  it('lists invitations newest first, by node and state, with paging; never a row still sending', async () => {
    const node = (await org.admin.post(`/v1/nodes/${tree.divisionId}/folder`, { name: 'Listed' })).body.id as string;
    const emails = [address('first'), address('second'), address('third')];
    for (const email of emails) {
      t.clock.advance(1000);
      expect((await org.admin.post(`/v1/nodes/${node}/invitations`, { email, roleId: viewerId })).status).toBe(201);
    }
    const sending = { ...(await peopleSnapshot(t, org)).invitations[0]! };
    await t.platform.regions[org.region].store.db
      .insertInto('invitations')
      .values({
        ...sending,
        id: randomUUID(),
        node_id: node,
        email: address('sending'),
        state: 'sending',
        token_hash: randomUUID(),
      })
      .execute();

    const listed = await org.admin.get(`/v1/invitations?nodeId=${node}`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((invitation: { email: string }) => invitation.email)).toEqual([...emails].reverse());
    const page = await org.admin.get(`/v1/invitations?nodeId=${node}&limit=1&offset=1`);
    expect(page.body.map((invitation: { email: string }) => invitation.email)).toEqual([emails[1]]);
    const all = await org.admin.get('/v1/invitations?state=pending&limit=500');
    expect(all.body.length).toBeGreaterThan(3);
    expect(all.body.every((invitation: { state: string }) => invitation.state === 'pending')).toBe(true);
    expect((await org.admin.get('/v1/invitations?state=accepted')).body).toEqual([]);
    expect((await org.admin.get('/v1/invitations?state=sending')).status).toBe(400);
  });

  it('revokes a pending invitation (204): its link shows 410, the address can be invited again, a second revoke is 409', async () => {
    const email = address();
    const created = await org.admin.post(`/v1/nodes/${tree.folderId}/invitations`, { email, roleId: viewerId });
    const link = await linkMailedTo(t, email);
    expect((await fetch(link)).status).toBe(200);

    const revoked = await org.admin.delete(`/v1/invitations/${created.body.id}`);
    expect(revoked.status).toBe(204);
    const [row] = (await org.admin.get(`/v1/invitations?nodeId=${tree.folderId}&state=revoked`)).body;
    expect(row).toMatchObject({ id: created.body.id, state: 'revoked' });
    const page = await fetch(link);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('withdrawn');
    const audit = await t.platform.regions[org.region].audit.list(org.orgId, { targetId: created.body.id }, 10, 0);
    expect(audit.map((event) => event.action)).toEqual(['invitation.revoked', 'invitation.created']);

    await refused(() => org.admin.delete(`/v1/invitations/${created.body.id}`), 409, 'InvitationNotPending');
    await refused(() => org.admin.delete(`/v1/invitations/${randomUUID()}`), 404, 'Not Found');
    expect((await org.admin.post(`/v1/nodes/${tree.folderId}/invitations`, { email, roleId: viewerId })).status).toBe(201);
  });

  it('housekeeping removes rows left sending; a new invitation replaces a stale one at once', async () => {
    const db = t.platform.regions[org.region].store.db;
    const template = (await peopleSnapshot(t, org)).invitations[0]!;
    const stale = { ...template, id: randomUUID(), email: address('stale'), state: 'sending' as const, token_hash: randomUUID() };
    const old = new Date(t.clock.now().getTime() - 11 * 60_000).toISOString();
    const fresh = {
      ...stale,
      id: randomUUID(),
      email: address('fresh'),
      token_hash: randomUUID(),
      created_at: t.clock.now().toISOString(),
    };
    const replaced = { ...stale, id: randomUUID(), email: address('replaced'), token_hash: randomUUID(), node_id: org.orgId };
    await db
      .insertInto('invitations')
      .values([{ ...stale, created_at: old }, fresh, { ...replaced, created_at: old }])
      .execute();

    // A live sending row blocks; a stale one gives way to the new invitation.
    await refused(
      () => org.admin.post(`/v1/nodes/${fresh.node_id}/invitations`, { email: fresh.email, roleId: viewerId }),
      409,
      'UserAlreadyInvited',
    );
    expect((await org.admin.post('/v1/invitations', { email: replaced.email, roleId: viewerId })).status).toBe(201);

    expect(await removeStaleInvitations(t.platform)).toBe(1);
    const ids = (await peopleSnapshot(t, org)).invitations.map((row) => row.id);
    expect(ids).not.toContain(stale.id);
    expect(ids).toContain(fresh.id);
    await db.deleteFrom('invitations').where('id', '=', fresh.id).execute();
  });

  it('shows the kept mail at {auth_url}/outbox, newest first, with its links clickable', async () => {
    const email = address('outbox');
    await org.admin.post('/v1/invitations', { email, roleId: viewerId });
    const link = await linkMailedTo(t, email);
    const response = await fetch(`${t.authUrl}/outbox`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain(`<a href="${link}">${link}</a>`);
    expect(page.indexOf(email)).toBeLessThan(page.indexOf('invitee-'));
  });
});
