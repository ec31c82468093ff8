import { InvitationRepository } from '../adapters/db/repositories/invitation-repository.js';
import { SessionRepository } from '../adapters/db/repositories/session-repository.js';
import { STALE_SENDING_MS } from '../domain/people/invitation-rules.js';
import { REGIONS } from '../domain/regions.js';
import { regionServices } from '../http/region-app.js';
import type { Platform } from '../platform.js';

/** Removes, in every region, what has been in the trash longer than the retention period. */
export async function purgeTrash(platform: Platform): Promise<Record<string, number>> {
  const purged: Record<string, number> = {};
  for (const region of REGIONS) purged[region] = await regionServices(platform, region).tree.purgeExpired();
  return purged;
}

/** What is kept of an expired grant for a day: a late retry gets invalid_grant, not a surprise. */
const EXPIRED_GRANT_GRACE_MS = 86_400_000;

/** Removes expired browser sessions, and refresh tokens and authorization codes a day past expiry. */
export async function purgeExpiredGrants(platform: Platform): Promise<number> {
  const now = platform.clock.now();
  const sessions = await new SessionRepository(platform.stores.global.db).deleteExpired(now.toISOString());
  const cutoff = new Date(now.getTime() - EXPIRED_GRANT_GRACE_MS).toISOString();
  return sessions + (await platform.tokens.deleteExpired(cutoff));
}

/**
 * Expires uploads past their time (their reservations released, their multipart uploads
 * aborted), then empties the blob deletion queue: the bytes of expired uploads and of removed
 * nodes. A key ending in "/" is a prefix (a derivative's files). Returns the blobs deleted.
 */
export async function collectUploads(platform: Platform): Promise<number> {
  const now = platform.clock.now().toISOString();
  let deleted = 0;
  for (const region of REGIONS) {
    const { uploads } = regionServices(platform, region).uploads;
    const expired = await platform.regions[region].tree.transaction((tx) => uploads.expire(tx, now));
    for (const row of expired) {
      if (row.multipart_upload_id) await platform.blobs.abortUpload(row.blob_key, row.multipart_upload_id);
    }
    for (;;) {
      const keys = await uploads.pendingDeletions(100);
      for (const key of keys) await (key.endsWith('/') ? platform.blobs.deletePrefix(key) : platform.blobs.delete(key));
      await uploads.deletionsDone(keys);
      deleted += keys.length;
      if (keys.length < 100) break;
    }
  }
  return deleted;
}

/**
 * Removes invitations left `sending` by a request that died between storing one and hearing
 * from the mail server: nothing was promised to the client, and the address can be invited again.
 */
export async function removeStaleInvitations(platform: Platform): Promise<number> {
  const staleBefore = new Date(platform.clock.now().getTime() - STALE_SENDING_MS).toISOString();
  let removed = 0;
  for (const region of REGIONS) {
    removed += await new InvitationRepository(platform.regions[region].store.db).deleteStaleSending(staleBefore);
  }
  return removed;
}

/**
 * Runs the housekeeping on a schedule: the trash purge, the expired grants, expired uploads and
 * stale invitations. Each run is idempotent (the trash transactional per entry), so several
 * processes may run it; a failed run is logged and retried at the next tick.
 */
export function scheduleHousekeeping(platform: Platform, log: { error(o: object, m: string): void }): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await purgeTrash(platform);
      await purgeExpiredGrants(platform);
      await collectUploads(platform);
      await removeStaleInvitations(platform);
    } catch (err) {
      log.error({ err }, 'housekeeping failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, platform.config.trashPurgeIntervalSeconds * 1000);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
