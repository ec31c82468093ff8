import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { outputOf } from '../support/process-output.js';
import { lineMatching, RdpUser } from '../support/rdp-user.js';

/** rdp login as a person does it: the browser on the platform's consent page, the code back on loopback. */
describe('rdp login, whoami, logout', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let rdp: RdpUser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startPlatform(), launchBrowser()]);
    org = await createOrg(t);
    rdp = new RdpUser(t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rdp?.remove();
  });

  it('signs in through chromium on a loopback redirect, keeps the tokens (0600), refreshes them when they expire', async () => {
    const user = await createMember(t, org, 'Organization Administrator');
    const login = rdp.spawn(['login', '--no-browser', '--url', t.origin]);
    const done = outputOf(login);
    const [, address] = await lineMatching(login.stderr as Readable, /Sign in .*: (\S+)/);
    const consent = new URL(address as string);
    expect(`${consent.origin}${consent.pathname}`).toBe(`${t.authUrl}/consent`);
    expect(consent.searchParams.get('client_id')).toBe('rdp-cli');
    expect(consent.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');

    const page = await (await browser.newContext()).newPage();
    await page.goto(address as string);
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([page.waitForURL(/\/auth\/consent\?/), page.click('button[type=submit]')]);
    await page.click('button[value=allow]');
    // The browser lands on the command line's own loopback page.
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(await page.textContent('h1')).toBe('Signed in');

    const run = await done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`email: ${user.email}`);
    expect(run.stdout).toContain(`organizationId: ${org.orgId}`);
    expect(fs.statSync(rdp.credentialsFile).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(fs.readFileSync(rdp.credentialsFile, 'utf8'));
    expect(stored).toMatchObject({ url: t.origin, authUrl: t.authUrl, apiUrl: t.regionUrl('eu'), clientId: 'rdp-cli' });

    const whoami = await rdp.json(['whoami']);
    expect(whoami).toMatchObject({ email: user.email, userId: user.id, organizationId: org.orgId, apiUrl: t.regionUrl('eu') });
    expect(whoami.scopes.split(' ').sort()).toEqual(['read:basic', 'read:hierarchy', 'write:hierarchy']);

    // An access token past its expiry is replaced through the refresh token before use, and the new pair is stored.
    stored.tokens.accessTokenExpiresAt = Date.now() - 1000;
    fs.writeFileSync(rdp.credentialsFile, JSON.stringify(stored), { mode: 0o600 });
    const division = (await rdp.run(['mkdir', 'Surveys'])).stdout.trim();
    expect((await org.admin.get(`/v1/nodes/${division}`)).body).toMatchObject({ name: 'Surveys', type: 'division' });
    const refreshed = JSON.parse(fs.readFileSync(rdp.credentialsFile, 'utf8'));
    expect(refreshed.tokens.refreshToken).not.toBe(stored.tokens.refreshToken);
    expect(refreshed.tokens.accessTokenExpiresAt).toBeGreaterThan(Date.now());
    expect(fs.statSync(rdp.credentialsFile).mode & 0o777).toBe(0o600);

    const listed = await rdp.run(['ls']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${division}\\s+division\\s+Surveys`, 'm'));
    expect(await rdp.json(['ls'])).toEqual([expect.objectContaining({ id: division, type: 'division', name: 'Surveys' })]);
    expect(await rdp.json(['ls', division])).toEqual([]);

    expect(await rdp.run(['logout'])).toMatchObject({ code: 0, stdout: `signed out (removed ${rdp.credentialsFile})\n` });
    expect(fs.existsSync(rdp.credentialsFile)).toBe(false);
    expect(await rdp.run(['whoami'])).toMatchObject({ code: 1, stderr: 'rdp: not signed in: run rdp login first\n' });
  });

  it('a refused consent ends the login with exit 1 and stores nothing', async () => {
    const other = new RdpUser(t);
    try {
      const login = other.spawn(['login', '--no-browser']);
      const done = outputOf(login);
      const [, address] = await lineMatching(login.stderr as Readable, /Sign in .*: (\S+)/);
      const url = new URL(address as string);
      const redirect = new URL(url.searchParams.get('redirect_uri') as string);
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('state', url.searchParams.get('state') as string);
      expect((await fetch(redirect)).status).toBe(400);
      const run = await done;
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/rdp: sign-in refused: access_denied/);
      expect(fs.existsSync(other.credentialsFile)).toBe(false);
    } finally {
      other.remove();
    }
  });
});
