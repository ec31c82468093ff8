import { describe, expect, it } from 'vitest';
import { purgeExpiredGrants } from '../../src/jobs/housekeeping.js';
import { basicAuthorization, type OrgFixture, requestToken } from '../support/fixtures.js';
import { authorizeWithForms, consentUrl, createMember, newPkce, registerCodeApp } from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

const DAY_MS = 86_400_000;

/** The scheduled housekeeping removes sessions, codes and refresh tokens once they have expired. */
describe('housekeeping of expired grants', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  const counts = async () => {
    const db = t.platform.stores.global.db;
    const count = async (table: 'sessions' | 'authorization_codes' | 'refresh_token_uses' | 'revoked_grants') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      sessions: await count('sessions'),
      codes: await count('authorization_codes'),
      refresh: (await count('refresh_token_uses')) + (await count('revoked_grants')),
    };
  };

  it('keeps what is live, and removes sessions at expiry and codes and refresh tokens a day after', async () => {
    const member = await createMember(t, org, 'Organization Reader');
    const app = await registerCodeApp(t, org);
    const redirected = await authorizeWithForms(t, consentUrl(t, app, await newPkce()), member, {
      allow: true,
      orgId: org.orgId,
    });
    expect(redirected.searchParams.get('code')).toBeTruthy();
    // A used refresh token and a revoked grant: the two records refresh tokens leave.
    const service = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Live',
      flow: 'client-credentials',
      scopes: ['read:basic'],
    });
    const basic = basicAuthorization(service.clientId, service.clientSecret as string);
    const issued: string = (await requestToken(t, { grant_type: 'client_credentials' }, basic)).body.refresh_token;
    const refreshWith = (token: string) => requestToken(t, { grant_type: 'refresh_token', refresh_token: token }, basic);
    expect((await refreshWith(issued)).status).toBe(200);
    expect((await refreshWith(issued)).body.error).toBe('invalid_grant'); // reuse: the family is revoked
    const live = await counts();
    expect(live.refresh).toBe(2);
    expect(live.sessions).toBeGreaterThan(0);
    expect(live.codes).toBeGreaterThan(0);
    expect(live.refresh).toBeGreaterThan(0);

    expect(await purgeExpiredGrants(t.platform)).toBe(0);
    expect(await counts()).toEqual(live);

    t.clock.advance(32 * DAY_MS); // past the session, the code and the 30-day refresh tokens, plus the day's grace
    const later = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Fresh',
      flow: 'client-credentials',
      scopes: ['read:basic'],
    });
    const fresh = basicAuthorization(later.clientId, later.clientSecret as string);
    const token: string = (await requestToken(t, { grant_type: 'client_credentials' }, fresh)).body.refresh_token;
    expect((await requestToken(t, { grant_type: 'refresh_token', refresh_token: token }, fresh)).status).toBe(200);
    expect(await purgeExpiredGrants(t.platform)).toBe(live.sessions + live.codes + live.refresh);
    expect(await counts()).toEqual({ sessions: 0, codes: 0, refresh: 1 });
  });
});
