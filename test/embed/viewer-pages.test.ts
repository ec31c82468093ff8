import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { createSite, openDraft } from '../support/twins.js';

/**
 * The viewer's pages and files (docs/embedding.md): /viewer/embed/{id} with the session's
 * Content-Security-Policy, its message pages (404, 410), and /viewer/assets/{file} from the
 * configured folder (RDP_VIEWER_ASSETS_DIR), here a folder of the test's own.
 */
describe('viewer pages: GET /viewer/embed/{sessionId} and /viewer/assets/{file}', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  let draftId: string;
  let assetsDir: string;
  const ORIGINS = ['https://app.example.com', 'http://localhost:5173'];

  beforeAll(async () => {
    assetsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-viewer-assets-'));
    fs.writeFileSync(path.join(assetsDir, 'viewer.js'), 'console.log("viewer");\n');
    fs.writeFileSync(path.join(assetsDir, 'rdp-embed.js'), 'export const embed = 1;\n');
    fs.writeFileSync(path.join(assetsDir, 'notes.txt'), 'not a build output');
    fs.mkdirSync(path.join(assetsDir, 'sub.js'));
    fs.writeFileSync(path.join(path.dirname(assetsDir), 'outside.js'), 'secret');
    t = await startPlatform({ RDP_VIEWER_ASSETS_DIR: assetsDir });
    org = await createOrg(t);
    siteId = await createSite(org);
    draftId = (await openDraft(org, siteId)).id;
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(assetsDir, { recursive: true, force: true });
  });

  const session = async (body: Record<string, unknown>) => {
    const created = await org.admin.post('/v1/embed-sessions', { allowedOrigins: ORIGINS, ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  };
  const page = (id: string) => fetch(`${t.origin}/viewer/embed/${id}`);
  const csp = (response: Response) => response.headers.get('content-security-policy') ?? '';
  // As the viewer reads it: the script element's text, as is (a browser decodes no entity there).
  const configOf = (markup: string) =>
    JSON.parse(/<script id="rdp-viewer-config" type="application\/json">([^<]*)<\/script>/.exec(markup)?.[1] ?? '');

  it("answers a twin session's page: the viewer markup, its configuration, frame-ancestors of its origins, no-store", async () => {
    const created = await session({ twinId: siteId });
    const response = await page(created.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(csp(response)).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' blob: data:; worker-src 'self' blob:; base-uri 'none'; frame-ancestors https://app.example.com http://localhost:5173",
    );
    const markup = await response.text();
    expect(configOf(markup)).toEqual({
      apiBase: `${t.regionUrl(org.region)}/v1`,
      target: { type: 'twin', id: created.target.id },
      ctx: siteId,
      allowedOrigins: ORIGINS,
      embedSessionId: created.id,
    });
    // The token is never in the page: it stays in the address's fragment.
    expect(markup).not.toContain(created.token);
    const hash = /src="\/viewer\/assets\/viewer\.js\?v=([0-9a-f]{16})"/.exec(markup)?.[1];
    expect(hash).toBeDefined();
    const script = await fetch(`${t.origin}/viewer/assets/viewer.js?v=${hash}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it("answers a draft session's page with the draft as {ctx}", async () => {
    const created = await session({ twinDraftId: draftId });
    const response = await page(created.id);
    expect(response.status).toBe(200);
    expect(configOf(await response.text())).toMatchObject({ target: { type: 'twinDraft', id: draftId }, ctx: draftId });
  });

  it('the page of GET /v1/twin/{ctx}/iframe is framed by the platform’s own origin only', async () => {
    const { url } = (await org.admin.get(`/v1/twin/${siteId}/iframe`)).body;
    const response = await fetch(url.split('#')[0]);
    expect(response.status).toBe(200);
    expect(csp(response)).toMatch(new RegExp(`; frame-ancestors ${t.origin}$`));
  });

  it('unknown: 404 page framed by nobody; revoked or expired: 410 page framed by the session’s origins; all no-store', async () => {
    for (const id of [crypto.randomUUID(), 'not-a-session', 'x'.repeat(65), '%3Cscript%3E']) {
      const unknown = await page(id);
      expect(unknown.status, id).toBe(404);
      expect(unknown.headers.get('cache-control')).toBe('no-store');
      expect(csp(unknown)).toMatch(/; frame-ancestors 'none'$/);
      expect(await unknown.text()).toContain('This embedded view does not exist.');
    }

    const revoked = await session({ twinId: siteId });
    expect((await org.admin.delete(`/v1/embed-sessions/${revoked.id}`)).status).toBe(204);
    const revokedPage = await page(revoked.id);
    expect(revokedPage.status).toBe(410);
    expect(revokedPage.headers.get('cache-control')).toBe('no-store');
    expect(csp(revokedPage)).toMatch(/; frame-ancestors https:\/\/app\.example\.com http:\/\/localhost:5173$/);
    const revokedMarkup = await revokedPage.text();
    expect(revokedMarkup).toContain('This embedded view has been revoked.');
    expect(revokedMarkup).not.toContain('<script');

    const expiring = await session({ twinId: siteId, expiresInSeconds: 300 });
    expect((await page(expiring.id)).status).toBe(200);
    t.clock.advance(300_000);
    const expiredPage = await page(expiring.id);
    expect(expiredPage.status).toBe(410);
    expect(csp(expiredPage)).toMatch(/; frame-ancestors https:\/\/app\.example\.com http:\/\/localhost:5173$/);
    expect(await expiredPage.text()).toContain('This embedded view has expired.');
  });

  it('serves the built files: ETag of the content, 304, no-cache without the current ?v=, CORS for integrators’ pages', async () => {
    const response = await fetch(`${t.origin}/viewer/assets/rdp-embed.js`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('export const embed = 1;\n');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = response.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await fetch(`${t.origin}/viewer/assets/rdp-embed.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // A stale ?v= is not kept for good.
    expect((await fetch(`${t.origin}/viewer/assets/rdp-embed.js?v=0000000000000000`)).headers.get('cache-control')).toBe(
      'no-cache',
    );
    expect((await fetch(`${t.origin}/viewer/assets/rdp-embed.js`, { method: 'HEAD' })).status).toBe(200);

    // A rebuild is served at once, under a new ETag.
    fs.writeFileSync(path.join(assetsDir, 'rdp-embed.js'), 'export const embed = 2;\n');
    const rebuilt = await fetch(`${t.origin}/viewer/assets/rdp-embed.js`, { headers: { 'if-none-match': etag } });
    expect(rebuilt.status).toBe(200);
    expect(await rebuilt.text()).toBe('export const embed = 2;\n');
    expect(rebuilt.headers.get('etag')).not.toBe(etag);
  });

  it('404 for anything the build does not produce: other kinds, folders, missing files, paths out of the folder', async () => {
    for (const name of ['notes.txt', 'sub.js', 'missing.js', '..%2Foutside.js', '.hidden.js', '%2E%2E%2Foutside.js']) {
      const response = await fetch(`${t.origin}/viewer/assets/${name}`);
      expect(response.status, name).toBe(404);
      expect(await response.text()).not.toContain('secret');
    }
    const traversal = await fetch(`${t.origin}/viewer/assets/../outside.js`);
    expect(traversal.status).toBe(404);
  });
});
