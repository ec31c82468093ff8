import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { type ApiResponse, type OrgFixture, requestToken } from './fixtures.js';
import type { TestPlatform } from './platform.js';

/** oauth4webapi refuses http:// unless told; the test server is on loopback only. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export const REDIRECT_URI = 'https://app.example.test/callback';
export const PASSWORD = 'correct horse battery';

export interface CodeApp {
  clientId: string;
  clientSecret: string | undefined;
  redirectUri: string;
}

/** An authorization-code application of the organization; public (no secret) unless asked. */
export async function registerCodeApp(
  t: TestPlatform,
  org: OrgFixture,
  options: { scopes?: string[]; redirectUris?: string[]; native?: boolean; secret?: boolean } = {},
): Promise<CodeApp> {
  const redirectUris = options.redirectUris ?? [REDIRECT_URI];
  const created = await t.admin.createApplication({
    orgId: org.orgId,
    name: 'Code flow app',
    flow: 'authorization-code',
    native: options.native,
    redirectUris,
    noSecret: !options.secret,
    scopes: options.scopes ?? ['read:basic', 'read:hierarchy', 'write:hierarchy'],
  });
  return { clientId: created.clientId, clientSecret: created.clientSecret, redirectUri: redirectUris[0] as string };
}

/** A person in the organization, optionally with a role on its root. */
export async function createMember(t: TestPlatform, org: OrgFixture, roleName?: string) {
  const email = `user-${randomUUID().slice(0, 8)}@example.test`;
  const user = await t.admin.createUser({ email, password: PASSWORD, orgId: org.orgId });
  if (roleName) await t.admin.grantMembership({ nodeId: org.orgId, principalId: user.id, roleId: org.roles[roleName] as string });
  return { id: user.id, email, password: PASSWORD };
}

export interface Pkce {
  verifier: string;
  challenge: string;
  state: string;
}

export async function newPkce(): Promise<Pkce> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier), state: oauth.generateRandomState() };
}

/** The consent URL of the spec's step 1: `scopes` repeated once per scope. */
export function consentUrl(
  t: TestPlatform,
  app: CodeApp,
  pkce: Pkce,
  overrides: Record<string, string | null> = {},
  scopes = ['read:basic', 'read:hierarchy'],
) {
  const params: Record<string, string | null> = {
    response_type: 'code',
    code_challenge_method: 'S256',
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    code_challenge: pkce.challenge,
    state: pkce.state,
    ...overrides,
  };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) query.append(name, value);
  for (const scope of scopes) query.append('scopes', scope);
  return `${t.authUrl}/consent?${query}`;
}

/**
 * A browser without a browser: follows the consent page's forms with fetch and a cookie jar.
 * For the many error cases; the real browser drives the main flow.
 */
export class FormAgent {
  private readonly cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<ApiResponse<string>> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, body: await response.text(), headers: response.headers };
  }

  post(url: string, form: URLSearchParams) {
    return this.request(url, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }
}

/** The value of a hidden input of a page. */
export function hiddenField(page: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  if (!match) throw new Error(`no field ${name} in page: ${page.slice(0, 500)}`);
  return (match[1] as string)
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** Signs in on the consent page and returns the consent form, ready for a decision. */
export async function signInForConsent(agent: FormAgent, url: string, user: { email: string; password: string }) {
  const signInPage = await agent.request(url);
  if (signInPage.status !== 200) throw new Error(`consent page ${signInPage.status}: ${signInPage.body.slice(0, 300)}`);
  const form = new URLSearchParams({
    csrf_token: hiddenField(signInPage.body, 'csrf_token'),
    request: hiddenField(signInPage.body, 'request'),
    email: user.email,
    password: user.password,
  });
  const signedIn = await agent.post(`${url.split('/consent?')[0]}/consent/sign-in`, form);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const consent = await agent.request(signedIn.headers.get('location') as string);
  if (!consent.body.includes('name="decision"')) throw new Error(`no consent form: ${consent.body.slice(0, 500)}`);
  return consent.body;
}

/** Signs in and allows (or denies); returns the redirect's Location. */
export async function authorizeWithForms(
  t: TestPlatform,
  url: string,
  user: { email: string; password: string },
  decision: { allow: boolean; orgId?: string; scopes?: string[] } = { allow: true },
): Promise<URL> {
  const agent = new FormAgent();
  const page = await signInForConsent(agent, url, user);
  const form = new URLSearchParams({
    csrf_token: hiddenField(page, 'csrf_token'),
    request: hiddenField(page, 'request'),
    decision: decision.allow ? 'allow' : 'deny',
  });
  if (decision.orgId) form.set('org_id', decision.orgId);
  const requested = [...page.matchAll(/name="scopes" value="([^"]+)"/g)].map((match) => match[1] as string);
  for (const scope of decision.scopes ?? requested) form.append('scopes', scope);
  const answer = await agent.post(`${t.authUrl}/consent/decision`, form);
  if (answer.status !== 303) throw new Error(`decision answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return new URL(answer.headers.get('location') as string);
}

/** The code of an approved redirect, through oauth4webapi's checks of state and iss. */
export function codeFrom(as: oauth.AuthorizationServer, app: CodeApp, redirect: URL, state: string): URLSearchParams {
  return oauth.validateAuthResponse(as, { client_id: app.clientId }, redirect, state);
}

/** A raw code exchange, for refusals; the client library is used on the happy path. */
export function exchangeCode(
  t: TestPlatform,
  app: CodeApp,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
  authorization?: string,
) {
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirectUri,
    code_verifier: verifier,
  };
  // With Basic the client names itself in the header; the form names it otherwise.
  if (!authorization) form.client_id = app.clientId;
  return requestToken(t, { ...form, ...extra }, authorization);
}

export function refresh(t: TestPlatform, app: CodeApp, refreshToken: string, extra: Record<string, string> = {}) {
  return requestToken(t, { grant_type: 'refresh_token', client_id: app.clientId, refresh_token: refreshToken, ...extra });
}

export async function discover(t: TestPlatform): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(t.authUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}
