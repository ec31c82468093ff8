import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization, createOrg, type OrgFixture, requestToken } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/** What the token endpoint's group commit and its one-second directory cache must keep. */
describe('POST {auth_url}/oauth/token under concurrency', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  const grant = { grant_type: 'client_credentials' };

  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
  });
  afterAll(() => t.close());

  async function newApplication(name: string) {
    const created = await t.admin.createApplication({
      orgId: org.orgId,
      name,
      flow: 'client-credentials',
      scopes: ['read:hierarchy'],
    });
    return basicAuthorization(created.clientId, created.clientSecret as string);
  }

  it('answers 50 concurrent requests with 50 refresh tokens, each stored before its response', async () => {
    const basic = await newApplication('Concurrent');
    const stored = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const response = await requestToken(t, grant, basic);
        expect(response.status).toBe(200);
        const hash = createHash('sha256').update(response.body.refresh_token).digest('base64url');
        return (await t.platform.tokens.findRefreshToken(hash))?.token_hash;
      }),
    );
    expect(stored.every((hash) => typeof hash === 'string')).toBe(true);
    expect(new Set(stored).size).toBe(50);
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
