import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_GZIP_BUDGET } from '../../scripts/build-console.mjs';
import { seriousAxeViolations } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';

/** Signing into the console in chromium: the authorization code with PKCE as the `rdp-console` client. */
describe('the web console: signing in', () => {
  let t: TestPlatform & { consoleSizes: Record<string, { bytes: number; gzipBytes: number }> };
  let org: OrgFixture;
  let browser: Browser;
  let person: { id: string; email: string; password: string };
  let siteId: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startConsolePlatform(), launchBrowser()]);
    org = await createOrg(t);
    person = await createMember(t, org, 'Organization Administrator');
    const division = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'North' });
    const site = await org.admin.post(`/v1/nodes/${division.body.id}/site`, { name: 'Harbour plant', address: '1 Quay Street' });
    expect(site.status).toBe(201);
    siteId = site.body.id;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs a person in through the sign-in and consent pages, shows their organization, and keeps them signed in across a reload', async () => {
    const page = await freshPage(browser);
    const calls: string[] = [];
    page.on('request', (request) => calls.push(new URL(request.url()).pathname));
    await signIntoConsole(page, t, person);
    expect(await page.textContent('.top-bar .person')).toBe(person.email);
    await page.getByRole('link', { name: 'North' }).click();
    await page.getByRole('link', { name: 'Harbour plant' }).click();
    await page.waitForURL(`${t.origin}/console/nodes/${siteId}`);
    expect(await page.textContent('main h1')).toBe('Harbour plant');
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The check can fail: a pale, unlabelled field is found.
    await page.evaluate(() => {
      const field = document.createElement('input');
      const pale = document.createElement('p');
      pale.textContent = 'pale';
      pale.style.color = '#d8d8d8';
      document.querySelector('main')?.append(field, pale);
    });
    expect((await seriousAxeViolations(page)).map((violation) => violation.id).sort()).toEqual(['color-contrast', 'label']);
    await page.reload();
    await page.waitForSelector('main h1');
    expect(await page.textContent('main h1')).toBe('Harbour plant');
    // Only the public API, the authorization server and the console's own files: no private route.
    const privateCalls = calls.filter(
      (pathname) => !/^\/(auth\/|console|eu\/reality\/v1\/|viewer\/)/.test(pathname) && pathname !== '/favicon.ico',
    );
    expect(privateCalls).toEqual([]);
    await page.context().close();
  });

  it('opens a deep address after signing in, and says so when the sign-in is declined', async () => {
    const page = await freshPage(browser);
    await signIntoConsole(page, t, person, `/console/nodes/${siteId}`);
    expect(new URL(page.url()).pathname).toBe(`/console/nodes/${siteId}`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The browser's sign-in session is still there: straight to the consent page.
    await page.waitForURL(/\/auth\/consent\?/);
    await page.click('button[value=deny]');
    await expect.poll(() => page.textContent('[role=alert]')).toContain('declined');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('refuses a callback that this tab did not start', async () => {
    const page = await freshPage(browser);
    await page.goto(`${t.origin}/console/callback?code=forged&state=forged`);
    await expect.poll(() => page.textContent('[role=alert]')).toContain('not started in this tab');
    await page.context().close();
  });

  it('serves its page under a Content-Security-Policy that allows no other origin, and stays within its size budget', async () => {
    const response = await fetch(`${t.origin}/console/anything/below`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await response.text();
    const script = /src="(\/console\/assets\/console\.js\?v=[0-9a-f]{16})"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${t.origin}${script}`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(t.consoleSizes['console.js']?.gzipBytes).toBeLessThanOrEqual(CONSOLE_GZIP_BUDGET);
    expect((await fetch(`${t.origin}/console/assets/..%2Fsecrets.js`)).status).toBe(404);
  });
});
