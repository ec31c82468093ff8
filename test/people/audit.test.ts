import { describe, expect, it } from 'vitest';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

describe('audit trail: GET /v1/audit-events', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  it('lists changes to roles, memberships and users with who, what and when, newest first', async () => {
    const { siteId } = await createTree(org);
    const role = await org.admin.post('/v1/roles', { name: 'Auditor', permissions: ['read'] });
    expect(role.status).toBe(201);
    const viewer = await org.serviceClient();
    const given = await org.admin.request('PUT', `/v1/nodes/${siteId}/memberships/${viewer.userId}`, { roleId: role.body.id });
    expect(given.status).toBe(200);
    t.clock.advance(1000);
    expect((await org.admin.patch(`/v1/users/${viewer.userId}`, { active: false })).status).toBe(200);

    const listed = await org.admin.get('/v1/audit-events');
    expect(listed.status).toBe(200);
    const actions = listed.body.map((event: { action: string }) => event.action);
    expect(actions.slice(0, 3)).toEqual(['user.deactivated', 'membership.set', 'role.created']);
    const [deactivated, membership, created] = listed.body;
    expect(deactivated).toMatchObject({
      actor: { type: 'principal', id: org.adminServiceUserId },
      target: { type: 'user', id: viewer.userId },
    });
    expect(membership).toMatchObject({
      target: { type: 'membership', id: `${siteId}/${viewer.userId}` },
      details: { nodeId: siteId, principalId: viewer.userId, roleId: role.body.id },
    });
    expect(created).toMatchObject({ target: { type: 'role', id: role.body.id } });
    for (const event of listed.body) expect(Number.isNaN(Date.parse(event.occurredAt))).toBe(false);
    expect(Date.parse(deactivated.occurredAt)).toBeGreaterThan(Date.parse(membership.occurredAt));
  });

  it('filters by action, target, actor and time, and pages', async () => {
    const first = await org.admin.post('/v1/roles', { name: 'Filter one', permissions: ['read'] });
    t.clock.advance(1000);
    const middle = new Date(t.clock.now().getTime() - 500).toISOString();
    const second = await org.admin.post('/v1/roles', { name: 'Filter two', permissions: ['read'] });

    const byTarget = await org.admin.get(`/v1/audit-events?targetType=role&targetId=${first.body.id}`);
    expect(byTarget.body.map((event: { target: { id: string } }) => event.target.id)).toEqual([first.body.id]);

    const byAction = await org.admin.get('/v1/audit-events?action=role.created');
    expect(byAction.body.every((event: { action: string }) => event.action === 'role.created')).toBe(true);
    const byActor = await org.admin.get(`/v1/audit-events?actorId=${org.adminServiceUserId}&action=role.created`);
    expect(byActor.body.length).toBe(byAction.body.length);

    const since = await org.admin.get(`/v1/audit-events?action=role.created&since=${encodeURIComponent(middle)}`);
    expect(since.body.map((event: { target: { id: string } }) => event.target.id)).toEqual([second.body.id]);
    const until = await org.admin.get(`/v1/audit-events?action=role.created&until=${encodeURIComponent(middle)}`);
    expect(until.body.some((event: { target: { id: string } }) => event.target.id === second.body.id)).toBe(false);
    expect(until.body.some((event: { target: { id: string } }) => event.target.id === first.body.id)).toBe(true);

    const page = await org.admin.get('/v1/audit-events?action=role.created&limit=1&offset=1');
    expect(page.body).toHaveLength(1);
    expect(page.body[0].target.id).toBe(first.body.id);

    const bad = await org.admin.get('/v1/audit-events?since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('ValidationError');
  });

  it('is for organization administrators: 403 Forbidden resource for others, 403 Insufficient OAuth scopes without read:user', async () => {
    const { divisionId } = await createTree(org);
    const manager = await org.serviceClient({ roleName: 'Manager', nodeId: divisionId });
    const refused = await manager.client.get('/v1/audit-events');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Forbidden resource');

    const noScope = await org.serviceClient({ scopes: 'read:basic read:hierarchy', roleName: 'Organization Administrator' });
    const scoped = await noScope.client.get('/v1/audit-events');
    expect(scoped.status).toBe(403);
    expect(scoped.body.message).toBe('Insufficient OAuth scopes');
  });

  it("shows only the caller's organization", async () => {
    const other = await createOrg(t);
    await other.admin.post('/v1/roles', { name: 'Elsewhere', permissions: ['read'] });
    const mine = await org.admin.get('/v1/audit-events?action=role.created&limit=500');
    expect(mine.body.some((event: { details: { name?: string } }) => event.details.name === 'Elsewhere')).toBe(false);
    const theirs = await other.admin.get('/v1/audit-events?action=role.created');
    expect(theirs.body.map((event: { details: { name?: string } }) => event.details.name)).toEqual(['Elsewhere']);
  });
});
