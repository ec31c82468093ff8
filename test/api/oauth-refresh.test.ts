import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, basicAuthorization, createOrg, globalSnapshot, type OrgFixture, requestToken } from '../support/fixtures.js';
import {
  authorizeWithForms,
  type CodeApp,
  consentUrl,
  createMember,
  exchangeCode,
  newPkce,
  refresh,
  registerCodeApp,
} from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** Tokens of a signed-in user on a platform: approve with the forms, then exchange the code. */
async function userTokens(
  t: TestPlatform,
  org: OrgFixture,
  app: CodeApp,
  user: { email: string; password: string },
  scopes?: string[],
) {
  const pkce = await newPkce();
  const redirect = await authorizeWithForms(t, consentUrl(t, app, pkce, {}, scopes), user, { allow: true, orgId: org.orgId });
  const response = await exchangeCode(t, app, redirect.searchParams.get('code') as string, pkce.verifier);
  if (response.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(response.body)}`);
  return response.body as { access_token: string; refresh_token: string; scope: string };
}

describe('POST {auth_url}/oauth/token with grant_type=refresh_token', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let app: CodeApp;
  let user: { id: string; email: string; password: string };

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    app = await registerCodeApp(t, org);
    user = await createMember(t, org, 'Organization Administrator');
  });

  const browse = (token: string) => new ApiClient(t.regionUrl(org.region), token).get(`/v1/nodes/${org.orgId}/browse`);

  it('rotates: each use gives a new refresh token and retires the old one', async () => {
    const first = await userTokens(t, org, app, user);
    const second = await refresh(t, app, first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.scope).toBe(first.scope);
    expect((await browse(second.body.access_token)).status).toBe(200);
    const third = await refresh(t, app, second.body.refresh_token);
    expect(third.status).toBe(200);

    // The store knows the two used tokens by their hashes only, both of one family.
    const hashes = [first.refresh_token, second.body.refresh_token].map((token) =>
      createHash('sha256').update(token).digest('base64url'),
    );
    const rows = (await globalSnapshot(t)).refreshTokenUses.filter((row) => hashes.includes(row.token_hash));
    expect(JSON.stringify(rows)).not.toContain(first.refresh_token);
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.family_id)).size).toBe(1);
  });

  it('revokes the whole family when a used refresh token comes back', async () => {
    const first = await userTokens(t, org, app, user);
    const second = await refresh(t, app, first.refresh_token);
    expect((await browse(second.body.access_token)).status).toBe(200);

    // A replay is caught even when the request is otherwise wrong (here: a widened scope).
    const replay = await refresh(t, app, first.refresh_token, { scope: 'read:basic write:user' });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // The newest refresh token of the family no longer works, and its access token stops within a second.
    expect((await refresh(t, app, second.body.refresh_token)).body.error).toBe('invalid_grant');
    t.clock.advance(1_100);
    expect((await browse(second.body.access_token)).status).toBe(401);
    expect((await browse(first.access_token)).status).toBe(401);
  });

  it('may narrow the scope, never widen it', async () => {
    const first = await userTokens(t, org, app, user, ['read:basic', 'read:hierarchy']);
    const widened = await refresh(t, app, first.refresh_token, { scope: 'read:hierarchy write:hierarchy' });
    expect(widened.status).toBe(400);
    expect(widened.body.error).toBe('invalid_scope');
    const unknown = await refresh(t, app, first.refresh_token, { scope: 'read:everything' });
    expect(unknown.body.error).toBe('invalid_scope');

    // The refusals did not use the token up.
    const narrowed = await refresh(t, app, first.refresh_token, { scope: 'read:hierarchy' });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('read:hierarchy');
    // Narrowed stays narrowed: the next refresh cannot win back read:basic.
    const back = await refresh(t, app, narrowed.body.refresh_token, { scope: 'read:basic read:hierarchy' });
    expect(back.body.error).toBe('invalid_scope');
    const plain = await refresh(t, app, narrowed.body.refresh_token);
    expect(plain.body.scope).toBe('read:hierarchy');
  });

  it("refuses another client's refresh token without harming its family", async () => {
    const first = await userTokens(t, org, app, user);
    const other = await registerCodeApp(t, org);
    const stolen = await refresh(t, other, first.refresh_token);
    expect(stolen.body.error).toBe('invalid_grant');
    expect((await refresh(t, app, first.refresh_token)).status).toBe(200);
  });

  it('refreshes the tokens of client credentials too, with the client secret', async () => {
    const service = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Refreshing service',
      flow: 'client-credentials',
      scopes: ['read:hierarchy'],
    });
    const authorization = basicAuthorization(service.clientId, service.clientSecret as string);
    const issued = await requestToken(t, { grant_type: 'client_credentials' }, authorization);
    const refreshed = await requestToken(
      t,
      { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token },
      authorization,
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('read:hierarchy');
    const withoutSecret = await requestToken(t, {
      grant_type: 'refresh_token',
      client_id: service.clientId,
      refresh_token: refreshed.body.refresh_token,
    });
    expect(withoutSecret.status).toBe(401);
  });
});

describe('the refresh reuse grace period (RDP_REFRESH_REUSE_GRACE_SECONDS)', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let app: CodeApp;
  let user: { email: string; password: string };

  beforeAll(async () => {
    t = await startPlatform({ RDP_REFRESH_REUSE_GRACE_SECONDS: '10' });
    org = await createOrg(t);
    app = await registerCodeApp(t, org);
    user = await createMember(t, org, 'Organization Administrator');
  });
  afterAll(() => t.close());

  it('honours a retry within the period and revokes the family after it', async () => {
    const first = await userTokens(t, org, app, user);
    const lost = await refresh(t, app, first.refresh_token);
    expect(lost.status).toBe(200);
    t.clock.advance(5_000);
    const retry = await refresh(t, app, first.refresh_token);
    expect(retry.status).toBe(200);
    expect(retry.body.refresh_token).not.toBe(lost.body.refresh_token);

    t.clock.advance(6_000); // 11 s after the first use
    const late = await refresh(t, app, first.refresh_token);
    expect(late.body.error).toBe('invalid_grant');
    expect((await refresh(t, app, retry.body.refresh_token)).body.error).toBe('invalid_grant');
  });
});
