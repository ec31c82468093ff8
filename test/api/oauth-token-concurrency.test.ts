import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { basicAuthorization, type OrgFixture, requestToken } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** What the token endpoint's group commit and its one-second directory cache must keep. */
describe('POST {auth_url}/oauth/token under concurrency', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  const grant = { grant_type: 'client_credentials' };

  withPlatformAndOrg((started) => ({ t, org } = started));

  async function newApplication(name: string) {
    const created = await t.admin.createApplication({
      orgId: org.orgId,
      name,
      flow: 'client-credentials',
      scopes: ['read:hierarchy'],
    });
    return basicAuthorization(created.clientId, created.clientSecret as string);
  }

  it('answers 50 concurrent requests with 50 distinct refresh tokens, each good for one concurrent refresh', async () => {
    const basic = await newApplication('Concurrent');
    const issued = await Promise.all(Array.from({ length: 50 }, () => requestToken(t, grant, basic)));
    expect(issued.every((response) => response.status === 200)).toBe(true);
    const tokens = issued.map((response) => response.body.refresh_token as string);
    expect(new Set(tokens).size).toBe(50);

    const refreshOnce = (token: string) => requestToken(t, { grant_type: 'refresh_token', refresh_token: token }, basic);
    const refreshed = await Promise.all(tokens.map(refreshOnce));
    expect(refreshed.map((response) => response.status)).toEqual(tokens.map(() => 200));
    const uses = await t.platform.stores.global.db.selectFrom('refresh_token_uses').select('token_hash').execute();
    const hashes = new Set(uses.map((row) => row.token_hash));
    for (const token of tokens) expect(hashes.has(createHash('sha256').update(token).digest('base64url'))).toBe(true);
  });

  it('lets exactly one of two concurrent refreshes with one token win, and revokes the family', async () => {
    const basic = await newApplication('Raced');
    const token: string = (await requestToken(t, grant, basic)).body.refresh_token;
    const refreshOnce = () => requestToken(t, { grant_type: 'refresh_token', refresh_token: token }, basic);
    const answers = await Promise.all([refreshOnce(), refreshOnce(), refreshOnce()]);
    const winners = answers.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((response) => response.body.error === 'invalid_grant')).toHaveLength(2);
    // The reuse revoked the family: the winner's new refresh token no longer works either.
    const next = await requestToken(t, { grant_type: 'refresh_token', refresh_token: winners[0]?.body.refresh_token }, basic);
    expect(next.body.error).toBe('invalid_grant');
  });

  it('refuses a deleted application within about a second', async () => {
    const basic = await newApplication('Soon deleted');
    expect((await requestToken(t, grant, basic)).status).toBe(200);
    const clientId = Buffer.from(basic.slice('Basic '.length), 'base64').toString().split(':')[0] as string;
    await t.platform.stores.global.db.deleteFrom('oauth_applications').where('client_id', '=', clientId).execute();
    const started = Date.now();
    let response = await requestToken(t, grant, basic);
    while (response.status === 200 && Date.now() - started < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      response = await requestToken(t, grant, basic);
    }
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: 'invalid_client' });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
