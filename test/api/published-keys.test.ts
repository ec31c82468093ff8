import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_AUDIENCE } from '../../src/oauth/access-tokens.js';
import type { OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/**
 * Regions verify tokens with the published key set. A key that another copy of the
 * authorization server adds to the store (rotation) is picked up without a restart.
 */
describe('the published key set', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  async function tokenSignedByNewKey(): Promise<{ token: string; publish: () => Promise<void> }> {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const kid = randomUUID();
    const now = Math.floor(t.clock.now().getTime() / 1000);
    // The verifier refuses tokens of applications that no longer exist: name the admin's real one.
    const application = await t.platform.stores.global.db
      .selectFrom('oauth_applications')
      .select('client_id')
      .where('service_user_id', '=', org.adminServiceUserId)
      .executeTakeFirstOrThrow();
    const token = await new SignJWT({
      org: org.orgId,
      client_id: application.client_id,
      scope: 'read:hierarchy',
      aud: ACCESS_TOKEN_AUDIENCE,
      iss: t.authUrl,
      sub: org.adminServiceUserId,
    })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' })
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(privateKey);
    const publish = async () =>
      t.platform.tokens.insertSigningKey({
        kid,
        algorithm: 'EdDSA',
        private_jwk: JSON.stringify(await exportJWK(privateKey)),
        public_jwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' }),
        created_at: t.clock.now().toISOString(),
        retired_at: null,
      });
    return { token, publish };
  }

  it('refuses a token of an unpublished key, and accepts it once the key is published', async () => {
    const { token, publish } = await tokenSignedByNewKey();
    const caller = org.admin.withToken(token);
    expect((await caller.get(`/v1/nodes/${org.orgId}/browse`)).body.error).toBe('invalid_token');

    await publish();
    t.clock.advance(11_000); // the key set is read again at most every ten seconds
    const browse = await caller.get(`/v1/nodes/${org.orgId}/browse`);
    expect(browse.status).toBe(200);
  });
});
