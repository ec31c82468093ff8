import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft } from '../support/twins.js';

/**
 * Embed sessions through HTTP (docs/embedding.md): POST, GET and DELETE /v1/embed-sessions and
 * GET /v1/twin/{ctx}/iframe, every status they answer, and nothing stored when they refuse.
 */
describe('embed sessions: POST, GET, DELETE /v1/embed-sessions and GET /v1/twin/{ctx}/iframe', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;
  let siteId: string;
  let otherSiteId: string;
  let draftId: string;
  let twinId: string;
  let viewer: ApiClient;
  let readOnly: ApiClient;
  withPlatformAndOrg((started) => ({ t, org } = started));

  beforeAll(async () => {
    other = await createOrg(t);
    siteId = await createSite(org);
    otherSiteId = await createSite(org, 'Elsewhere');
    draftId = (await openDraft(org, siteId)).id;
    twinId = (await org.admin.get(`/v1/twin/${siteId}`)).body.id;
    // Viewer on the site only, every scope; and an organization reader without write:hierarchy.
    viewer = (await org.serviceClient({ roleName: 'Viewer', nodeId: siteId })).client;
    readOnly = (await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' })).client;
  });

  const ORIGINS = ['https://app.example.com', 'http://localhost:5173'];

  async function sessionRows() {
    return t.platform.regions[org.region].store.db.selectFrom('embed_sessions').selectAll().orderBy('id').execute();
  }
  async function everything() {
    const audit = await t.platform.regions[org.region].store.db.selectFrom('audit_events').selectAll().orderBy('id').execute();
    return {
      sessions: await sessionRows(),
      audit,
      twins: await t.platform.regions[org.region].store.db.selectFrom('twins').selectAll().execute(),
    };
  }
  const refused = refuser(everything);

  it('makes a session of a twin by its site id (201): token once, iframe address with the token in its fragment, hash stored', async () => {
    const before = t.clock.now().getTime();
    const created = await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: ORIGINS });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const body = created.body;
    expect(body).toEqual({
      id: expect.any(String),
      target: { type: 'twin', id: twinId },
      allowedOrigins: ORIGINS,
      token: expect.stringMatching(/^rdpe_[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
      iframeUrl: `${t.origin}/viewer/embed/${body.id}#token=${body.token}`,
      embedHtml: expect.stringContaining(`src="${t.origin}/viewer/embed/${body.id}#token=${body.token}"`),
      createdBy: org.adminServiceUserId,
      createdAt: expect.any(String),
    });
    expect(body.embedHtml).toMatch(/^<iframe [^>]*><\/iframe>$/);
    // Default expiry: an hour.
    expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(3600_000);
    expect(Date.parse(body.createdAt)).toBeGreaterThanOrEqual(before);

    const [row] = (await sessionRows()).filter((r) => r.id === body.id);
    expect(row).toMatchObject({ site_id: siteId, target_type: 'twin', target_id: twinId, revoked_at: null });
    // Only a hash of the token is stored.
    expect(JSON.stringify(await sessionRows())).not.toContain(body.token);
    expect(row?.token_hash).toHaveLength(43);

    const events = await auditOf(t, org, body.id);
    expect(events.map((event) => [event.action, event.details])).toEqual([
      [
        'embed-session.created',
        { siteId, target: { type: 'twin', id: twinId }, allowedOrigins: ORIGINS, expiresAt: body.expiresAt },
      ],
    ]);

    const trail = await org.admin.get('/v1/audit-events?targetType=embed-session');
    expect(trail.status).toBe(200);
    expect(JSON.stringify(trail.body)).toContain(body.id);

    // GET shows it without the token nor the addresses that carry it.
    const read = await org.admin.get(`/v1/embed-sessions/${body.id}`);
    expect(read.status).toBe(200);
    const { token: _token, iframeUrl: _url, embedHtml: _html, ...rest } = body;
    expect(read.body).toEqual(rest);
  });

  it('makes a session of a twin by its twin id, and of a draft, with expiresInSeconds at both bounds', async () => {
    const byTwin = await org.admin.post('/v1/embed-sessions', {
      twinId,
      allowedOrigins: ['https://a.example'],
      expiresInSeconds: 300,
    });
    expect(byTwin.status, JSON.stringify(byTwin.body)).toBe(201);
    expect(byTwin.body.target).toEqual({ type: 'twin', id: twinId });
    expect(Date.parse(byTwin.body.expiresAt) - Date.parse(byTwin.body.createdAt)).toBe(300_000);

    const byDraft = await viewer.post('/v1/embed-sessions', {
      twinDraftId: draftId,
      allowedOrigins: ['http://127.0.0.1:8443'],
      expiresInSeconds: 86_400,
    });
    expect(byDraft.status, JSON.stringify(byDraft.body)).toBe(201);
    expect(byDraft.body.target).toEqual({ type: 'twinDraft', id: draftId });
    expect(Date.parse(byDraft.body.expiresAt) - Date.parse(byDraft.body.createdAt)).toBe(86_400_000);
  });

  it('a site without a twin yet gets one with the session', async () => {
    const fresh = await createSite(org, 'Fresh');
    const created = await org.admin.post('/v1/embed-sessions', { twinId: fresh, allowedOrigins: ORIGINS });
    expect(created.status).toBe(201);
    const twin = await t.platform.regions[org.region].store.db
      .selectFrom('twins')
      .selectAll()
      .where('site_id', '=', fresh)
      .executeTakeFirst();
    expect(created.body.target).toEqual({ type: 'twin', id: twin?.id });
  });

  it('400 ValidationError: no target, two targets, bad origins, bounds, unknown fields; nothing stored', async () => {
    const post = (body: unknown) => () => org.admin.post('/v1/embed-sessions', body);
    await refused(
      post({ allowedOrigins: ORIGINS }),
      400,
      'ValidationError',
      /exactly one of twinId, twinDraftId, projectId, layoutId/,
    );
    await refused(post({ twinId: siteId, twinDraftId: draftId, allowedOrigins: ORIGINS }), 400, 'ValidationError', /exactly one/);
    await refused(post({ twinId: siteId }), 400, 'ValidationError', /allowedOrigins/);
    // A planning target must name a plan: a site's id is neither a project nor a layout.
    await refused(post({ projectId: siteId, allowedOrigins: ORIGINS }), 404, 'Not Found', /No planning project or layout/);
    await refused(post({ layoutId: siteId, allowedOrigins: ORIGINS }), 404, 'Not Found', /No planning layout/);
    await refused(post({ twinId: siteId, allowedOrigins: [] }), 400, 'ValidationError', /allowedOrigins/);
    const many = Array.from({ length: 21 }, (_, i) => `https://h${i}.example.com`);
    await refused(post({ twinId: siteId, allowedOrigins: many }), 400, 'ValidationError', /allowedOrigins/);
    expect((await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: many.slice(0, 20) })).status).toBe(201);
    const badOrigins: [string, RegExp][] = [
      ['http://app.example.com', /allowedOrigins\[0\] must be https \(http only for localhost and 127.0.0.1\)/],
      ['https://app.example.com/', /origin only.*https:\/\/app\.example\.com/],
      ['https://app.example.com/path', /origin only/],
      ['https://app.example.com?x=1', /origin only/],
      ['https://app.example.com#f', /origin only/],
      ['https://APP.example.com', /origin only/],
      ['https://app.example.com:443', /origin only/],
      ['https://user:pw@app.example.com', /credentials/],
      ['ftp://app.example.com', /must be an https origin/],
      ['*', /is not an origin/],
      ['app.example.com', /is not an origin/],
      ["https://a.example.com 'unsafe-inline'", /is not an origin|origin only/],
    ];
    for (const [origin, message] of badOrigins) {
      await refused(post({ twinId: siteId, allowedOrigins: [origin] }), 400, 'ValidationError', message);
    }
    await refused(
      post({ twinId: siteId, allowedOrigins: ['https://a.example', 'https://a.example'] }),
      400,
      'ValidationError',
      /repeat/,
    );
    await refused(
      post({ twinId: siteId, allowedOrigins: ORIGINS, expiresInSeconds: 299 }),
      400,
      'ValidationError',
      /expiresInSeconds/,
    );
    await refused(
      post({ twinId: siteId, allowedOrigins: ORIGINS, expiresInSeconds: 86_401 }),
      400,
      'ValidationError',
      /expiresInSeconds/,
    );
    await refused(
      post({ twinId: siteId, allowedOrigins: ORIGINS, expiresInSeconds: 600.5 }),
      400,
      'ValidationError',
      /expiresInSeconds/,
    );
    await refused(post({ twinId: siteId, allowedOrigins: ORIGINS, extra: 1 }), 400, 'ValidationError');
    await refused(post({ twinId: '', allowedOrigins: ORIGINS }), 400, 'ValidationError', /twinId/);
  });

  it('401 without a token, 403 without write:hierarchy or without read on the site, 404 for what is not the organization’s', async () => {
    const body = { twinId: siteId, allowedOrigins: ORIGINS };
    await refused(() => org.admin.withToken(undefined).post('/v1/embed-sessions', body), 401, 'not_authenticated');
    await refused(() => org.admin.withToken('nonsense').post('/v1/embed-sessions', body), 401, 'not_authenticated');
    await refused(() => readOnly.post('/v1/embed-sessions', body), 403, 'Forbidden', /Insufficient OAuth scopes/);
    // The site viewer reads one site only.
    await refused(
      () => viewer.post('/v1/embed-sessions', { twinId: otherSiteId, allowedOrigins: ORIGINS }),
      403,
      'Forbidden',
      /Forbidden resource/,
    );
    await refused(() => other.admin.post('/v1/embed-sessions', body), 404, 'Not Found');
    await refused(
      () => other.admin.post('/v1/embed-sessions', { twinDraftId: draftId, allowedOrigins: ORIGINS }),
      404,
      'Not Found',
    );
    await refused(
      () => org.admin.post('/v1/embed-sessions', { twinId: crypto.randomUUID(), allowedOrigins: ORIGINS }),
      404,
      'Not Found',
    );
    await refused(() => org.admin.post('/v1/embed-sessions', { twinDraftId: siteId, allowedOrigins: ORIGINS }), 404, 'Not Found');
    // A folder is no twin.
    const folderId = (await org.admin.post(`/v1/nodes/${siteId}/folder`, { name: 'F' })).body.id;
    await refused(() => org.admin.post('/v1/embed-sessions', { twinId: folderId, allowedOrigins: ORIGINS }), 404, 'Not Found');
  });

  it('GET and DELETE: read permission on the site, the organization’s own; DELETE revokes (204, then 404 on both)', async () => {
    const created = (await org.admin.post('/v1/embed-sessions', { twinId: otherSiteId, allowedOrigins: ORIGINS })).body;
    const url = `/v1/embed-sessions/${created.id}`;
    await refused(() => viewer.get(url), 403, 'Forbidden', /Forbidden resource/);
    await refused(() => viewer.delete(url), 403, 'Forbidden', /Forbidden resource/);
    await refused(() => other.admin.get(url), 404, 'Not Found');
    await refused(() => other.admin.delete(url), 404, 'Not Found');
    await refused(() => readOnly.delete(url), 403, 'Forbidden', /Insufficient OAuth scopes/);
    await refused(() => org.admin.withToken(undefined).get(url), 401, 'not_authenticated');
    expect((await readOnly.get(url)).status).toBe(200);
    await refused(() => org.admin.get(`/v1/embed-sessions/${crypto.randomUUID()}`), 404, 'Not Found');
    await refused(() => org.admin.get(`/v1/embed-sessions/${'x'.repeat(65)}`), 400, 'ValidationError');

    t.clock.advance(1000);
    const revoked = await org.admin.delete(url);
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBe('');
    const [row] = (await sessionRows()).filter((r) => r.id === created.id);
    expect(row?.revoked_at).toEqual(expect.any(String));
    expect((await auditOf(t, org, created.id)).map((event) => event.action)).toEqual([
      'embed-session.created',
      'embed-session.revoked',
    ]);
    await refused(() => org.admin.get(url), 404, 'Not Found');
    await refused(() => org.admin.delete(url), 404, 'Not Found');
  });

  it('an expired session is still shown by GET (expiresAt in the past)', async () => {
    const created = (
      await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: ORIGINS, expiresInSeconds: 300 })
    ).body;
    t.clock.advance(301_000);
    const read = await org.admin.get(`/v1/embed-sessions/${created.id}`);
    expect(read.status).toBe(200);
    expect(Date.parse(read.body.expiresAt)).toBeLessThan(t.clock.now().getTime());
  });

  it("GET /v1/twin/{ctx}/iframe: the viewer address of a short session of the caller's, framed by the platform only", async () => {
    const before = (await sessionRows()).length;
    const live = await viewer.get(`/v1/twin/${siteId}/iframe`);
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(live.body).toEqual({
      url: expect.stringMatching(new RegExp(`^${t.origin}/viewer/embed/[0-9a-f-]{36}#token=rdpe_`)),
      embedHtml: expect.stringContaining('<iframe src='),
    });
    const id = /\/viewer\/embed\/([^#]+)#/.exec(live.body.url)?.[1];
    const rows = await sessionRows();
    expect(rows).toHaveLength(before + 1);
    const row = rows.find((r) => r.id === id);
    expect(row).toMatchObject({
      target_type: 'twin',
      target_id: twinId,
      site_id: siteId,
      allowed_origins: JSON.stringify([t.origin]),
    });
    // As long as an access token lasts (an hour by default), and not audited: a read.
    expect(Date.parse(row?.expires_at as string) - Date.parse(row?.created_at as string)).toBe(3600_000);
    expect(await auditOf(t, org, id as string)).toEqual([]);

    const ofDraft = await viewer.get(`/v1/twin/${draftId}/iframe`);
    expect(ofDraft.status).toBe(200);
    const draftRow = (await sessionRows()).find((r) => ofDraft.body.url.includes(r.id));
    expect(draftRow).toMatchObject({ target_type: 'twinDraft', target_id: draftId, site_id: siteId });

    await refused(() => viewer.get(`/v1/twin/${otherSiteId}/iframe`), 403, 'Forbidden');
    await refused(() => other.admin.get(`/v1/twin/${siteId}/iframe`), 404, 'Not Found');
    await refused(() => org.admin.withToken(undefined).get(`/v1/twin/${siteId}/iframe`), 401, 'not_authenticated');
    const noScope = (await org.serviceClient({ scopes: 'read:basic', roleName: 'Organization Administrator' })).client;
    await refused(() => noScope.get(`/v1/twin/${siteId}/iframe`), 403, 'Forbidden', /Insufficient OAuth scopes/);
  });
});
