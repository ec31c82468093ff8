import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { ApiClient, basicAuthorization, type OrgFixture } from '../support/fixtures.js';
import {
  authorizeWithForms,
  type CodeApp,
  codeFrom,
  consentUrl,
  createMember,
  discover,
  exchangeCode,
  insecure,
  newPkce,
  refresh,
  registerCodeApp,
} from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** The token endpoint's side of the code flow: every way an exchange can go wrong. */
describe('POST {auth_url}/oauth/token with grant_type=authorization_code', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let app: CodeApp;
  let as: oauth.AuthorizationServer;
  let user: { id: string; email: string; password: string };

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    app = await registerCodeApp(t, org);
    as = await discover(t);
    user = await createMember(t, org, 'Organization Administrator');
  });

  async function approvedCode(target: CodeApp = app) {
    const pkce = await newPkce();
    const redirect = await authorizeWithForms(t, consentUrl(t, target, pkce), user, { allow: true, orgId: org.orgId });
    const params = codeFrom(as, target, redirect, pkce.state);
    return { pkce, code: params.get('code') as string, params };
  }

  const browse = (token: string) => new ApiClient(t.regionUrl(org.region), token).get(`/v1/nodes/${org.orgId}/browse`);

  it('exchanges a code once for tokens that act as the user', async () => {
    const { pkce, code } = await approvedCode();
    const response = await exchangeCode(t, app, code, pkce.verifier);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body.hasError).toBe(false);
    expect((await browse(response.body.access_token)).status).toBe(200);
    const [, payload = ''] = (response.body.access_token as string).split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ sub: user.id, org: org.orgId, idp: 'local', client_id: app.clientId });
    expect(typeof claims.grant).toBe('string');
  });

  it('stores the code hashed', async () => {
    const { code } = await approvedCode();
    const rows = await t.platform.stores.global.db.selectFrom('authorization_codes').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('is refused by the client library when the state differs', async () => {
    const pkce = await newPkce();
    const redirect = await authorizeWithForms(t, consentUrl(t, app, pkce), user, { allow: true, orgId: org.orgId });
    expect(redirect.searchParams.get('state')).toBe(pkce.state);
    expect(() => codeFrom(as, app, redirect, oauth.generateRandomState())).toThrow(/state/i);
  });

  it('refuses a wrong code_verifier with invalid_grant, and a malformed one with invalid_request', async () => {
    const { pkce, code } = await approvedCode();
    const other = await newPkce();
    const wrong = await exchangeCode(t, app, code, other.verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const short = await exchangeCode(t, app, code, 'a'.repeat(42));
    expect(short.body.error).toBe('invalid_request');
    const badAlphabet = await exchangeCode(t, app, code, `${'a'.repeat(42)}+`);
    expect(badAlphabet.body.error).toBe('invalid_request');
    // None of the refusals used the code up.
    expect((await exchangeCode(t, app, code, pkce.verifier)).status).toBe(200);
  });

  it('refuses a redirect_uri other than the one of the request', async () => {
    const { pkce, code } = await approvedCode();
    for (const redirectUri of [`${app.redirectUri}/`, 'https://app.example.test/other', 'https://evil.example.test/callback']) {
      const response = await exchangeCode(t, app, code, pkce.verifier, { redirect_uri: redirectUri });
      expect(response.body.error).toBe('invalid_grant');
    }
    const missing = await exchangeCode(t, app, code, pkce.verifier, { redirect_uri: '' });
    expect(missing.body.error).toBe('invalid_request');
  });

  it('refuses a code used twice and revokes the tokens of the first use', async () => {
    const { pkce, code } = await approvedCode();
    const first = await exchangeCode(t, app, code, pkce.verifier);
    expect(first.status).toBe(200);
    expect((await browse(first.body.access_token)).status).toBe(200);

    const second = await exchangeCode(t, app, code, pkce.verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    t.clock.advance(1_100); // past the verifier's one-second revocation cache
    expect((await browse(first.body.access_token)).status).toBe(401);
    const refreshed = await refresh(t, app, first.body.refresh_token);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('refuses a code after 60 seconds', async () => {
    const { pkce, code } = await approvedCode();
    t.clock.advance(61_000);
    const response = await exchangeCode(t, app, code, pkce.verifier);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
  });

  it('requires the secret exactly when the application has one', async () => {
    const confidential = await registerCodeApp(t, org, { secret: true });
    const noSecret = await approvedCode(confidential);
    const refused = await exchangeCode(t, confidential, noSecret.code, noSecret.pkce.verifier);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');

    const withBasic = await approvedCode(confidential);
    const client: oauth.Client = { client_id: confidential.clientId };
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(confidential.clientSecret as string),
      withBasic.params,
      confidential.redirectUri,
      withBasic.pkce.verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect((await browse(tokens.access_token)).status).toBe(200);

    // A public client that sends a secret it does not have is refused too.
    const publicCode = await approvedCode();
    const extra = await exchangeCode(t, app, publicCode.code, publicCode.pkce.verifier, { client_secret: 'invented' });
    expect(extra.status).toBe(401);
    const wrongSecret = await approvedCode(confidential);
    const wrong = await exchangeCode(
      t,
      confidential,
      wrongSecret.code,
      wrongSecret.pkce.verifier,
      {},
      basicAuthorization(confidential.clientId, 'wrong'),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('stops the tokens within a second once the application is deleted', async () => {
    const doomed = await registerCodeApp(t, org);
    const { pkce, code } = await approvedCode(doomed);
    const tokens = await exchangeCode(t, doomed, code, pkce.verifier);
    expect((await browse(tokens.body.access_token)).status).toBe(200);
    await t.platform.stores.global.db.deleteFrom('oauth_applications').where('client_id', '=', doomed.clientId).execute();
    t.clock.advance(1_100);
    expect((await browse(tokens.body.access_token)).status).toBe(401);
  });
});
