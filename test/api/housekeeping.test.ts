import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredGrants } from '../../src/jobs/housekeeping.js';
import { clientCredentialsToken, createOrg, type OrgFixture } from '../support/fixtures.js';
import { authorizeWithForms, consentUrl, createMember, newPkce, registerCodeApp } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const DAY_MS = 86_400_000;

/** The scheduled housekeeping removes sessions, codes and refresh tokens once they have expired. */
describe('housekeeping of expired grants', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
  });
  afterAll(() => t.close());

  const counts = async () => {
    const db = t.platform.stores.global.db;
    const count = async (table: 'sessions' | 'authorization_codes' | 'refresh_tokens') =>
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
      refresh: await count('refresh_tokens'),
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
    const live = await counts();
    expect(live.sessions).toBeGreaterThan(0);
    expect(live.codes).toBeGreaterThan(0);
    expect(live.refresh).toBeGreaterThan(0);

    expect(await purgeExpiredGrants(t.platform)).toBe(0);
    expect(await counts()).toEqual(live);

    t.clock.advance(32 * DAY_MS); // past the session, the code and the 30-day refresh tokens, plus the day's grace
    const service = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Fresh',
      flow: 'client-credentials',
      scopes: ['read:basic'],
    });
    await clientCredentialsToken(t, service.clientId, service.clientSecret as string);
    expect(await purgeExpiredGrants(t.platform)).toBe(live.sessions + live.codes + live.refresh);
    expect(await counts()).toEqual({ sessions: 0, codes: 0, refresh: 1 });
  });
});
