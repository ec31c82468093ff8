import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectUploads, DELETION_LEASE_MS, purgeExpiredGrants } from '../../src/jobs/housekeeping.js';
import { basicAuthorization, type OrgFixture, requestToken } from '../support/fixtures.js';
import { authorizeWithForms, consentUrl, createMember, newPkce, registerCodeApp } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

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

/**
 * Copies of one deployment run the housekeeping each on its own schedule: each queued blob
 * deletion is claimed by one copy, so N copies do not send N times the deletions to the store.
 */
describe('blob deletions claimed once among copies', () => {
  let first: TestPlatform;
  let second: TestPlatform;
  beforeAll(async () => {
    first = await startPlatform();
    second = await startPlatform({}, { sharing: first });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  /** Counts, per key, what the blob store of a copy is asked to remove (and lets other work interleave). */
  function countRemovals(t: TestPlatform, removed: Map<string, number>): () => void {
    const real = t.platform.blobs;
    const counted =
      (remove: (key: string, ...rest: never[]) => Promise<void>) =>
      async (key: string, ...rest: never[]) => {
        removed.set(key, (removed.get(key) ?? 0) + 1);
        await new Promise((resolve) => setImmediate(resolve));
        return remove.call(real, key, ...rest);
      };
    t.platform.blobs = Object.assign(Object.create(real), {
      delete: counted(real.delete),
      deletePrefix: counted(real.deletePrefix),
      abortUpload: counted(real.abortUpload),
    });
    return () => {
      t.platform.blobs = real;
    };
  }

  async function queueBlobs(t: TestPlatform, count: number, tag: string): Promise<string[]> {
    const { uploads } = t.platform.regions.eu;
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      // Files and "folders" (a derivative's prefix), as the queue holds both.
      const key = i % 10 === 0 ? `orgs/o-${tag}/nodes/n-${i}/` : `orgs/o-${tag}/nodes/n-${i}/file`;
      await t.platform.blobs.write(key.endsWith('/') ? `${key}tileset.json` : key, Buffer.from(`bytes ${i}`));
      keys.push(key);
    }
    await uploads.queueDeletions(
      uploads.db,
      keys.map((key) => ({ key })),
      t.clock.now().toISOString(),
    );
    return keys;
  }

  it('deletes each queued key exactly once when two copies collect at the same time, and empties the queue', async () => {
    const keys = await queueBlobs(first, 250, 'concurrent');
    const removed = new Map<string, number>();
    const restore = [countRemovals(first, removed), countRemovals(second, removed)];
    try {
      const done = await Promise.all([collectUploads(first.platform), collectUploads(second.platform)]);
      expect(done[0] + done[1]).toBe(keys.length);
    } finally {
      for (const undo of restore) undo();
    }
    expect([...removed.keys()].sort()).toEqual([...keys].sort());
    expect([...removed.values()].filter((times) => times !== 1)).toEqual([]);
    expect(await first.platform.regions.eu.uploads.pendingDeletions(1_000)).toEqual([]);
    expect(await first.platform.blobs.head(keys[1] as string)).toBeUndefined();
    expect(await first.platform.blobs.head(`${keys[0]}tileset.json`)).toBeUndefined();
  });

  it('takes over the claim of a copy that died holding it once its lease has expired', async () => {
    const keys = await queueBlobs(first, 5, 'died');
    const { uploads } = first.platform.regions.eu;
    // A copy claimed the entries and died before deleting them.
    const now = first.clock.now();
    const claimed = await uploads.claimDeletions(
      'dead-copy',
      100,
      now.toISOString(),
      new Date(now.getTime() + DELETION_LEASE_MS).toISOString(),
    );
    expect(claimed.map((entry) => entry.blob_key).sort()).toEqual([...keys].sort());

    const removed = new Map<string, number>();
    const restore = countRemovals(first, removed);
    try {
      expect(await collectUploads(first.platform)).toBe(0); // still held by the dead copy
      expect(removed.size).toBe(0);
      expect(await uploads.pendingDeletions(1_000)).toHaveLength(keys.length);
      first.clock.advance(DELETION_LEASE_MS + 1_000);
      expect(await collectUploads(first.platform)).toBe(keys.length);
    } finally {
      restore();
    }
    expect([...removed.keys()].sort()).toEqual([...keys].sort());
    expect(await uploads.pendingDeletions(1_000)).toEqual([]);
  });
});
