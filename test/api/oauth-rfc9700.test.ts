import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { OrgFixture } from '../support/fixtures.js';
import {
  authorizeWithForms,
  type CodeApp,
  consentUrl,
  createMember,
  exchangeCode,
  FormAgent,
  hiddenField,
  newPkce,
  REDIRECT_URI,
  registerCodeApp,
  signInForConsent,
} from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** The points of RFC 9700 (OAuth 2.0 Security Best Current Practice) that apply to the consent flow. */
describe('RFC 9700 checklist', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let app: CodeApp;
  let user: { email: string; password: string };

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    app = await registerCodeApp(t, org);
    user = await createMember(t, org, 'Organization Administrator');
  });

  /** A refused authorization request: an error page, never a redirect. */
  async function expectErrorPage(url: string, reason: RegExp) {
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(reason);
  }

  it('4.1: matches redirect URIs exactly (trailing slash, port, query, case, another host)', async () => {
    const pkce = await newPkce();
    for (const redirectUri of [
      `${REDIRECT_URI}/`,
      'https://app.example.test:8443/callback',
      `${REDIRECT_URI}?next=/admin`,
      'https://APP.example.test/callback',
      'https://app.example.test/Callback',
      'https://evil.example.test/callback',
      'http://app.example.test/callback',
    ]) {
      await expectErrorPage(consentUrl(t, app, pkce, { redirect_uri: redirectUri }), /redirect_uri is not registered/);
    }
  });

  it('4.1: a native application gets any loopback port, only on its registered path', async () => {
    const native = await registerCodeApp(t, org, { native: true, redirectUris: ['http://127.0.0.1/cb'] });
    const pkce = await newPkce();
    const loopback = await new Promise<Server>((resolve) => {
      const server = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1', () => resolve(server));
    });
    try {
      const redirectUri = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}/cb`;
      const redirect = await authorizeWithForms(t, consentUrl(t, { ...native, redirectUri }, pkce), user, {
        allow: true,
        orgId: org.orgId,
      });
      expect(`${redirect.origin}${redirect.pathname}`).toBe(redirectUri);
      expect((await fetch(redirect)).status).toBe(200);
      const tokens = await exchangeCode(
        t,
        { ...native, redirectUri },
        redirect.searchParams.get('code') as string,
        pkce.verifier,
      );
      expect(tokens.status).toBe(200);
    } finally {
      await new Promise((resolve) => loopback.close(resolve));
    }
    for (const redirectUri of ['http://127.0.0.1:5000/other', 'http://localhost:5000/cb', 'http://10.0.0.1:5000/cb']) {
      await expectErrorPage(consentUrl(t, { ...native, redirectUri }, pkce), /redirect_uri is not registered/);
    }
    // A web application gets no such leeway.
    const web = await registerCodeApp(t, org);
    await expectErrorPage(
      consentUrl(t, { ...web, redirectUri: 'http://127.0.0.1:5000/cb' }, pkce),
      /redirect_uri is not registered/,
    );
  });

  it('2.1.1: refuses a PKCE downgrade (no challenge, method plain, no method, a short challenge)', async () => {
    const pkce = await newPkce();
    await expectErrorPage(consentUrl(t, app, pkce, { code_challenge: null }), /code_challenge/);
    await expectErrorPage(consentUrl(t, app, pkce, { code_challenge_method: 'plain' }), /plain is not supported/);
    await expectErrorPage(consentUrl(t, app, pkce, { code_challenge_method: null }), /PKCE is required/);
    await expectErrorPage(consentUrl(t, app, pkce, { code_challenge: pkce.challenge.slice(1) }), /code_challenge/);
  });

  it('refuses other bad requests on the page: client, response type, state, scopes', async () => {
    const pkce = await newPkce();
    await expectErrorPage(consentUrl(t, app, pkce, { client_id: 'nobody' }), /client_id/);
    await expectErrorPage(consentUrl(t, app, pkce, { response_type: 'token' }), /response_type/);
    await expectErrorPage(consentUrl(t, app, pkce, { state: null }), /state/);
    await expectErrorPage(consentUrl(t, app, pkce, {}, ['read:basic', 'write:user']), /may not request these scopes: write:user/);
    await expectErrorPage(consentUrl(t, app, pkce, {}, []), /no scopes/);
    // A client-credentials application has no consent flow.
    const service = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'svc',
      flow: 'client-credentials',
      scopes: ['read:basic'],
    });
    await expectErrorPage(consentUrl(t, { ...app, clientId: service.clientId }, pkce), /client_id/);
    // The space-separated `scope` parameter is accepted as well.
    const page = await fetch(`${consentUrl(t, app, pkce, {}, [])}&scope=read%3Abasic+read%3Ahierarchy`);
    expect(page.status).toBe(200);
  });

  it('4.5: refuses code injection (a code of client A at client B; a code with another verifier)', async () => {
    const other = await registerCodeApp(t, org);
    const pkce = await newPkce();
    const redirect = await authorizeWithForms(t, consentUrl(t, app, pkce), user, { allow: true, orgId: org.orgId });
    const code = redirect.searchParams.get('code') as string;
    const atB = await exchangeCode(t, other, code, pkce.verifier);
    expect(atB.status).toBe(400);
    expect(atB.body.error).toBe('invalid_grant');
    const attacker = await newPkce();
    expect((await exchangeCode(t, app, code, attacker.verifier)).body.error).toBe('invalid_grant');
    // Neither attempt spent the code: the legitimate client still gets its tokens.
    expect((await exchangeCode(t, app, code, pkce.verifier)).status).toBe(200);
  });

  it('4.11: never redirects to an unregistered address, even from a forged consent form', async () => {
    const pkce = await newPkce();
    const agent = new FormAgent();
    const page = await signInForConsent(agent, consentUrl(t, app, pkce), user);
    const forged = new URL(consentUrl(t, app, pkce, { redirect_uri: 'https://evil.example.test/callback' }));
    for (const decision of ['allow', 'deny']) {
      const answer = await agent.post(
        `${t.authUrl}/consent/decision`,
        new URLSearchParams({
          csrf_token: hiddenField(page, 'csrf_token'),
          request: forged.search.slice(1),
          decision,
          org_id: org.orgId,
          scopes: 'read:basic',
        }),
      );
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
    }
  });

  it('refuses a POST without the CSRF token, or with another one (403, nothing issued)', async () => {
    const pkce = await newPkce();
    const agent = new FormAgent();
    const page = await signInForConsent(agent, consentUrl(t, app, pkce), user);
    const request = hiddenField(page, 'request');
    const before = await t.platform.stores.global.db.selectFrom('authorization_codes').select('code_hash').execute();
    for (const csrf of [undefined, 'forged-token']) {
      const form = new URLSearchParams({ request, decision: 'allow', org_id: org.orgId, scopes: 'read:basic' });
      if (csrf) form.set('csrf_token', csrf);
      const answer = await agent.post(`${t.authUrl}/consent/decision`, form);
      expect(answer.status).toBe(403);
      expect(answer.headers.get('location')).toBeNull();
    }
    const after = await t.platform.stores.global.db.selectFrom('authorization_codes').select('code_hash').execute();
    expect(after).toHaveLength(before.length);

    // The sign-in form checks its double-submit token as well.
    const anonymous = new FormAgent();
    const signIn = await anonymous.request(consentUrl(t, app, pkce));
    const noToken = await anonymous.post(
      `${t.authUrl}/consent/sign-in`,
      new URLSearchParams({ request: hiddenField(signIn.body, 'request'), email: user.email, password: user.password }),
    );
    expect(noToken.status).toBe(403);
    expect(noToken.headers.getSetCookie().some((cookie) => cookie.startsWith('rdp_session='))).toBe(false);
  });

  it('4.7: pages refuse framing and caching; POSTs answer 303; the session cookie is HttpOnly and SameSite', async () => {
    const pkce = await newPkce();
    const agent = new FormAgent();
    const url = consentUrl(t, app, pkce);
    const responses = [await agent.request(url), await fetch(consentUrl(t, app, pkce, { client_id: 'nobody' }))];
    const signInPage = responses[0]?.body as string;
    const signedIn = await agent.post(
      `${t.authUrl}/consent/sign-in`,
      new URLSearchParams({
        csrf_token: hiddenField(signInPage, 'csrf_token'),
        request: hiddenField(signInPage, 'request'),
        email: user.email,
        password: user.password,
      }),
    );
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().find((cookie) => cookie.startsWith('rdp_session='));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).toMatch(/Path=\/auth/);
    for (const response of [...responses, signedIn]) {
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('2: the metadata issuer is the address it is served under', async () => {
    const metadata = (await (await fetch(`${t.origin}/.well-known/oauth-authorization-server/auth`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.issuer).toBe(t.authUrl);
    expect(metadata.authorization_endpoint).toBe(`${t.authUrl}/consent`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  });
});
