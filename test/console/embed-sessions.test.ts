import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';

type ViewerStatus = { ready: boolean; refused: boolean; refreshes: number; camera: unknown };

/**
 * A twin's embed sessions in the console (docs/console.md, "Twin"): one made on screen with an
 * origin and a lifetime, its HTML copied and pasted into a page of that origin that shows the
 * twin, then revoked on screen, and the framed viewer ends within a second. And the twin's own
 * viewer shows a point of interest made and edited beside it without being loaded again. The
 * twin has no layer: the viewer reads it and its objects, which is all these cases need.
 */
describe('the web console: embed sessions and the live viewer', { timeout: 60_000 }, () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let siteId: string;
  let integrator: { origin: string; html: string; close: () => Promise<void> };

  const status = (frame: Frame) =>
    frame.evaluate(() => (window as unknown as { rdpViewerStatus: () => ViewerStatus }).rdpViewerStatus());

  beforeAll(async () => {
    [t, browser, integrator] = await Promise.all([
      startConsolePlatform({ viewer: true, env: { RDP_RATE_LIMIT_DISABLED: '1' } }),
      launchBrowser(),
      integratorServer(),
    ]);
    org = await createOrg(t);
    siteId = await createSite(org, 'Plant');
    const administrator = await createMember(t, org, 'Organization Administrator');
    page = await freshPage(browser);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin });
    await signIntoConsole(page, t, administrator);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([t?.close(), integrator?.close()]);
  });

  it('makes a session with an origin and a lifetime, copies its HTML into a page of that origin, and revokes it', async () => {
    await page.goto(`${t.origin}/console/twins/${siteId}/embed-sessions`);
    await expect.poll(() => page.textContent('main h1')).toBe('Embed sessions of Plant');
    await page.getByText('No open embed session.').waitFor();
    await expectAccessible(page);

    await page.getByRole('button', { name: 'New embed session' }).click();
    const dialog = page.getByRole('dialog', { name: 'New embed session' });
    await dialog.getByLabel(/^Allowed origins/).fill(integrator.origin);
    // Out of the API's bounds: said in words, nothing made.
    await dialog.getByLabel(/^Lifetime in minutes/).fill('2');
    await dialog.getByRole('button', { name: 'Make the session' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'from 5 to 1440' }).waitFor();
    // An origin with a path: the API's words.
    await dialog.getByLabel(/^Allowed origins/).fill(`${integrator.origin}/page`);
    await dialog.getByLabel(/^Lifetime in minutes/).fill('10');
    await dialog.getByRole('button', { name: 'Make the session' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'must be an origin only' }).waitFor();
    expect((await org.admin.get(`/v1/embed-sessions?twinId=${siteId}`)).body.total).toBe(0);
    await expectAccessible(page);

    await dialog.getByLabel(/^Allowed origins/).fill(integrator.origin);
    await dialog.getByRole('button', { name: 'Make the session' }).click();
    const made = page.getByRole('dialog', { name: 'Embed session made' });
    await made.waitFor();
    const listed = (await org.admin.get(`/v1/embed-sessions?twinId=${siteId}`)).body;
    expect(listed.total).toBe(1);
    const [session] = listed.items;
    expect(session).toMatchObject({ allowedOrigins: [integrator.origin], target: { type: 'twin' } });
    expect(session.token).toBeUndefined();
    expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(600_000);

    await made.getByRole('button', { name: 'Copy HTML' }).click();
    await made.getByText('Copied to the clipboard.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await made.getByLabel('HTML to paste into your page').inputValue());
    expect(copied).toMatch(new RegExp(`^<iframe src="${t.origin}/viewer/embed/${session.id}#token=rdpe_[A-Za-z0-9_-]+"`));
    await expectAccessible(page);
    await made.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row').filter({ hasText: integrator.origin }).waitFor();

    // The integrator's page, on the allowed origin, frames the twin with the pasted HTML.
    integrator.html = `<!doctype html><html lang="en"><head><title>Our plant</title></head><body>${copied}</body></html>`;
    const embedding = await freshPage(browser);
    await embedding.goto(integrator.origin);
    const frame = await waitForFrame(embedding, `/viewer/embed/${session.id}`);
    await expect.poll(async () => (await status(frame)).ready, { timeout: 20_000 }).toBe(true);

    await page.getByRole('button', { name: `Revoke the session for ${integrator.origin}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke the embed session?' });
    const [revoked] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'DELETE' && response.url().includes(session.id)),
      confirm.getByRole('button', { name: 'Revoke' }).click(),
    ]);
    expect(revoked.status()).toBe(204);
    // Nothing moves in the framed view (no tile to ask for): its held request answers the revocation.
    await expect.poll(async () => (await status(frame)).refused, { timeout: 1000, interval: 50 }).toBe(true);
    await frame.getByText('This session has expired or was revoked').waitFor({ timeout: 1000 });
    await page.getByText('No open embed session.').waitFor();
    expect((await org.admin.get(`/v1/embed-sessions?twinId=${siteId}`)).body.total).toBe(0);
    await embedding.context().close();
  });

  it("shows a point of interest made and edited in the twin's viewer without loading it again", async () => {
    await page.goto(`${t.origin}/console/twins/${siteId}`);
    await page.locator('.viewer-status', { hasText: '3D view ready: Plant' }).waitFor({ timeout: 30_000 });
    const frame = await waitForFrame(page, '/viewer/embed/');
    let navigations = 0;
    page.on('framenavigated', (navigated) => {
      if (navigated === frame) navigations += 1;
    });
    await frame.evaluate(() => {
      (window as unknown as { loadedOnce: boolean }).loadedOnce = true;
    });
    const camera = (await status(frame)).camera;

    await page.getByRole('button', { name: 'New point of interest' }).click();
    const create = page.getByRole('dialog', { name: 'New point of interest' });
    for (const [label, value] of Object.entries({ Name: 'Gauge G-7', X: '10', Y: '20', Z: '5' })) {
      await create.getByLabel(label, { exact: true }).fill(value);
    }
    await create.getByRole('button', { name: 'Create point of interest' }).click();
    await frame.locator('.rdp-poi', { hasText: 'Gauge G-7' }).waitFor();

    await page.getByRole('button', { name: 'Edit Gauge G-7' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Gauge G-7' });
    await edit.getByLabel('Name', { exact: true }).fill('Gauge G-8');
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await frame.locator('.rdp-poi', { hasText: 'Gauge G-8' }).waitFor();
    expect(await frame.locator('.rdp-poi', { hasText: 'Gauge G-7' }).count()).toBe(0);

    // The same page in the frame: its marker kept, no navigation, the camera where it was.
    expect(await frame.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    expect(navigations).toBe(0);
    const after = await status(frame);
    expect(after.refreshes).toBe(2);
    expect(after.camera).toEqual(camera);
  });
});

/** The frame of `page` whose address contains `part`, once it is there. */
async function waitForFrame(page: Page, part: string): Promise<Frame> {
  let found: Frame | undefined;
  await expect
    .poll(() => {
      found = page.frames().find((frame) => frame.url().includes(part));
      return found !== undefined;
    })
    .toBe(true);
  return found as Frame;
}

/** An integrator's web server on 127.0.0.1 (an origin of its own): it answers whatever page `html` holds now. */
async function integratorServer() {
  const state = {
    origin: '',
    html: '',
    close: () => Promise.resolve(),
  };
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(state.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
