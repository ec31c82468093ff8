import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { createSite, openDraft } from '../support/twins.js';

/**
 * A twin's open embed sessions (GET /v1/embed-sessions?twinId=) and the held request of an
 * embedded viewer that answers when its session ends (GET /v1/twin/{ctx}/embed-session), through
 * HTTP (docs/embedding.md).
 */
describe('embed sessions: the list of a twin, and the wait for a session to end', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;
  let siteId: string;
  let otherSiteId: string;
  let viewer: ApiClient;
  withPlatformAndOrg((started) => ({ t, org } = started));

  beforeAll(async () => {
    other = await createOrg(t);
    siteId = await createSite(org);
    otherSiteId = await createSite(org, 'Elsewhere');
    viewer = (await org.serviceClient({ roleName: 'Viewer', nodeId: siteId })).client;
  });

  const make = async (body: Record<string, unknown>) => {
    const created = await org.admin.post('/v1/embed-sessions', { allowedOrigins: ['https://app.example.com'], ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; token: string; expiresAt: string };
  };

  it("lists the site's open sessions newest first, not revoked, ended or viewer ones, nor another site's", async () => {
    const draftId = (await openDraft(org, siteId)).id;
    const ended = await make({ twinId: siteId, expiresInSeconds: 300 });
    t.clock.advance(301_000);
    const revoked = await make({ twinId: siteId });
    expect((await org.admin.request('DELETE', `/v1/embed-sessions/${revoked.id}`)).status).toBe(204);
    const first = await make({ twinId: siteId });
    t.clock.advance(1000);
    const ofDraft = await make({ twinDraftId: draftId });
    await make({ twinId: otherSiteId });
    // A reader's own viewer session (GET .../iframe) is no embed session of the list.
    expect((await viewer.get(`/v1/twin/${siteId}/iframe`)).status).toBe(200);

    const listed = await viewer.get(`/v1/embed-sessions?twinId=${siteId}`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toMatchObject({ page: 0, limit: 100, total: 2 });
    expect(listed.body.items.map((item: { id: string }) => item.id)).toEqual([ofDraft.id, first.id]);
    expect(listed.body.items[0]).toEqual({
      id: ofDraft.id,
      target: { type: 'twinDraft', id: draftId },
      allowedOrigins: ['https://app.example.com'],
      expiresAt: ofDraft.expiresAt,
      createdBy: org.adminServiceUserId,
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(listed.body)).not.toContain(ended.id);
    // By the twin's id too; paged.
    const twinId = (await org.admin.get(`/v1/twin/${siteId}`)).body.id;
    const paged = await org.admin.get(`/v1/embed-sessions?twinId=${twinId}&limit=1&offset=1`);
    expect(paged.body).toMatchObject({ page: 1, limit: 1, total: 2, items: [{ id: first.id }] });

    expect((await org.admin.get('/v1/embed-sessions')).status).toBe(400);
    expect((await viewer.get(`/v1/embed-sessions?twinId=${otherSiteId}`)).status).toBe(403);
    expect((await other.admin.get(`/v1/embed-sessions?twinId=${siteId}`)).status).toBe(404);
  });

  it('holds an embed token’s request while its session is open and answers 401 at its revocation or expiry; 404 for other tokens', async () => {
    const session = await make({ twinId: siteId });
    const embedded = org.admin.withToken(session.token);
    const open = await embedded.get(`/v1/twin/${siteId}/embed-session?waitSeconds=0`);
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect(open.body).toEqual({ embedSessionId: session.id, expiresAt: session.expiresAt });

    // Open: held for the whole wait.
    const holding = Date.now();
    expect((await embedded.get(`/v1/twin/${siteId}/embed-session?waitSeconds=1`)).status).toBe(200);
    expect(Date.now() - holding).toBeGreaterThanOrEqual(1000);

    // Revoked while held: answered at once, not after the wait.
    const started = Date.now();
    const held = embedded.get(`/v1/twin/${siteId}/embed-session?waitSeconds=30`);
    expect((await org.admin.request('DELETE', `/v1/embed-sessions/${session.id}`)).status).toBe(204);
    const answer = await held;
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_token');
    expect(Date.now() - started).toBeLessThan(5000);

    // Expired while held: answered within a second of the clock passing its end.
    const short = await make({ twinId: siteId, expiresInSeconds: 300 });
    const heldShort = org.admin.withToken(short.token).get(`/v1/twin/${siteId}/embed-session?waitSeconds=30`);
    const expiring = Date.now();
    t.clock.advance(301_000);
    expect((await heldShort).status).toBe(401);
    expect(Date.now() - expiring).toBeLessThan(5000);

    expect((await org.admin.get(`/v1/twin/${siteId}/embed-session`)).status).toBe(404);
    const another = await make({ twinId: siteId });
    expect((await org.admin.withToken(another.token).get(`/v1/twin/${siteId}/embed-session?waitSeconds=51`)).status).toBe(400);
    expect((await org.admin.withToken(another.token).get(`/v1/twin/${otherSiteId}/embed-session`)).status).toBe(403);
  });
});
