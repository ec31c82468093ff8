import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { consentUrl, createMember, FormAgent, hiddenField, newPkce, registerCodeApp } from '../support/oauth-flow.js';
import { PageSession } from '../support/page-session.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/** Brute force on the sign-in forms: failures count per account, and past the limit even the right password waits. */
describe('sign-in forms under the brute-force throttle', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform({ RDP_LOGIN_MAX_FAILURES: '3' });
    org = await createOrg(t);
  });
  afterAll(() => t.close());

  it('the settings sign-in answers 429 with Retry-After after three failures, even to the right password', async () => {
    const member = await createMember(t, org);
    const browser = new PageSession(t);
    for (let i = 0; i < 3; i += 1) expect((await browser.signIn(member.email, 'wrong password')).status).toBe(400);

    const form = await browser.get('/auth/sign-in');
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const refused = await browser.post('/auth/sign-in', { csrf, email: member.email, password: member.password });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many failed sign-ins');
    expect(browser.cookie('rdp_session')).toBeUndefined();

    // Another account from the same address is not held up by these failures.
    const other = await createMember(t, org);
    expect((await new PageSession(t).signIn(other.email, other.password)).status).toBe(303);
  });

  it('the consent sign-in is throttled per account too, and never signs in meanwhile', async () => {
    const member = await createMember(t, org);
    const app = await registerCodeApp(t, org);
    const url = consentUrl(t, app, await newPkce());
    const agent = new FormAgent();
    const attempt = async (password: string) => {
      const page = await agent.request(url);
      const form = new URLSearchParams({
        csrf_token: hiddenField(page.body, 'csrf_token'),
        request: hiddenField(page.body, 'request'),
        email: member.email,
        password,
      });
      return agent.post(`${t.authUrl}/consent/sign-in`, form);
    };
    const followed = async (password: string) => {
      const answer = await attempt(password);
      expect(answer.status).toBe(303);
      return { answer, page: (await agent.request(answer.headers.get('location') as string)).body };
    };
    for (let i = 0; i < 3; i += 1) expect((await followed('wrong password')).page).toContain('is not correct');
    const { answer, page } = await followed(member.password);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(page).toContain('Too many failed sign-ins');
    expect(page).not.toContain('name="decision"');
  });
});
