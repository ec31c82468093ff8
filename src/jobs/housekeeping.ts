import { randomUUID } from 'node:crypto';
import type { BlobDeletionRow } from '../adapters/db/schema.js';
import { nodeServices, regionLifecycles } from '../composition/region-services.js';
import { STALE_SENDING_MS } from '../domain/people/invitation-rules.js';
import type { Platform, RegionContext } from '../platform.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import {
  inBatches,
  purgeAuditEvents,
  purgeEmbedSessions,
  purgeExpiredUploads,
  purgeWebhookLog,
  RETENTION_BATCH,
} from './retention.js';

/**
 * What a housekeeping step uses of the platform: the clock and, of each opened region, the
 * repositories named. The platform itself fits (the schedule below passes it).
 */
export interface HousekeepingRegions<Used extends keyof RegionContext> {
  clock: Clock;
  openedRegions(): Pick<RegionContext, Used>[];
}

/** Removes, in every region this process opened, what has been in the trash longer than the retention period. */
export async function purgeTrash(platform: Platform): Promise<Record<string, number>> {
  const purged: Record<string, number> = {};
  for (const context of platform.openedRegions()) {
    purged[context.region] = await nodeServices(platform, context).tree.purgeExpired();
  }
  return purged;
}

/** What is kept of an expired grant for a day: a late retry gets invalid_grant, not a surprise. */
const EXPIRED_GRANT_GRACE_MS = 86_400_000;

/** Removes expired browser sessions, and refresh tokens and authorization codes a day past expiry. */
export async function purgeExpiredGrants(platform: Pick<Platform, 'clock' | 'sessions' | 'tokens'>): Promise<number> {
  const now = platform.clock.now();
  const sessions = await platform.sessions.deleteExpired(now.toISOString());
  const cutoff = new Date(now.getTime() - EXPIRED_GRANT_GRACE_MS).toISOString();
  return sessions + (await platform.tokens.deleteExpired(cutoff));
}

export interface HousekeepingLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

const DELETION_BATCH = 100;
/**
 * How long a copy holds the batch of deletions it claimed: far longer than a batch of store calls
 * takes. A copy that dies holding one delays those deletions by this much, no more.
 */
export const DELETION_LEASE_MS = 10 * 60_000;

/**
 * Expires uploads past their time, in batches (their reservations released; a library model's unfinished
 * upload removes the model), then empties the blob deletion
 * queue: the bytes of expired uploads and of removed nodes, and the multipart uploads still open
 * under them. A key ending in "/" is a prefix (a derivative's files). Every copy runs this: each
 * takes the queue in batches it claims for a lease, so each deletion reaches the blob store once.
 * A deletion that fails is logged and given back at the end of the run, so the next run tries it
 * again; the others go on. Returns the entries done.
 */
export async function collectUploads(
  platform: HousekeepingRegions<'uploads' | 'tree' | 'libraryModels'> & { blobs: BlobStore },
  log?: HousekeepingLog,
): Promise<number> {
  let deleted = 0;
  for (const { uploads, tree, libraryModels } of platform.openedRegions()) {
    const now = platform.clock.now().toISOString();
    await inBatches(() =>
      tree.transaction(async (tx) => {
        const expired = await uploads.expire(tx, now, RETENTION_BATCH);
        // Library models whose upload was never finalized go with their bytes (docs/asset-library.md).
        const models = await libraryModels.expireUploads(tx, now, RETENTION_BATCH);
        await uploads.queueDeletions(tx, models, now);
        return expired + models.length;
      }),
    );
    const owner = randomUUID();
    try {
      for (;;) {
        const now = platform.clock.now();
        const until = new Date(now.getTime() + DELETION_LEASE_MS).toISOString();
        const batch = await uploads.claimDeletions(owner, DELETION_BATCH, now.toISOString(), until);
        if (batch.length === 0) break;
        const done: string[] = [];
        for (const entry of batch) {
          try {
            await removeBlob(platform.blobs, entry);
            done.push(entry.blob_key);
          } catch (err) {
            log?.warn({ err, blobKey: entry.blob_key }, 'blob deletion failed; retried at the next run');
          }
        }
        await uploads.deletionsDone(owner, done);
        deleted += done.length;
      }
    } finally {
      await uploads.releaseDeletions(owner);
    }
  }
  return deleted;
}

function removeBlob(blobs: BlobStore, entry: BlobDeletionRow): Promise<void> {
  if (entry.upload_id) return blobs.abortUpload(entry.blob_key, entry.upload_id);
  return entry.blob_key.endsWith('/') ? blobs.deletePrefix(entry.blob_key) : blobs.delete(entry.blob_key);
}

/**
 * Removes invitations left `sending` by a request that died between storing one and hearing
 * from the mail server: nothing was promised to the client, and the address can be invited again.
 */
export async function removeStaleInvitations(platform: HousekeepingRegions<'invitations'>): Promise<number> {
  const staleBefore = new Date(platform.clock.now().getTime() - STALE_SENDING_MS).toISOString();
  let removed = 0;
  for (const region of platform.openedRegions()) {
    removed += await region.invitations.deleteStaleSending(staleBefore);
  }
  return removed;
}

/** Finishes, in every region this process opened, the processing launches a stopped process left pending (docs/uploads.md, "Processing"). */
export async function finishInterruptedLaunches(platform: Platform): Promise<number> {
  let finished = 0;
  for (const context of platform.openedRegions()) {
    finished += await regionLifecycles(platform, context).processings.finishInterruptedLaunches();
  }
  return finished;
}

/**
 * One run of the housekeeping, step by step: the trash purge, the expired grants, expired
 * uploads, stale invitations, interrupted processing launches, and the retention of jobs/retention.ts (the webhook log's old
 * deliveries, ended embed sessions and uploads, old audit events). Each step is idempotent (the
 * trash transactional per entry), so several processes may run it: the blob deletions, the one
 * step that calls out (to S3), are claimed by one copy each; the others are database statements
 * that find nothing left after the first copy. A failed step is logged and the others run.
 */
export async function runHousekeeping(platform: Platform, log: HousekeepingLog): Promise<void> {
  const steps: [string, () => Promise<unknown>][] = [
    ['trash purge', () => purgeTrash(platform)],
    ['expired grants', () => purgeExpiredGrants(platform)],
    ['uploads', () => collectUploads(platform, log)],
    ['stale invitations', () => removeStaleInvitations(platform)],
    ['interrupted launches', () => finishInterruptedLaunches(platform)],
    ['webhook log', () => purgeWebhookLog(platform)],
    ['embed sessions', () => purgeEmbedSessions(platform)],
    ['expired uploads', () => purgeExpiredUploads(platform)],
    ['audit events', () => purgeAuditEvents(platform, platform.config.auditRetentionDays)],
  ];
  for (const [step, run] of steps) {
    await run().catch((err) => log.error({ err, step }, 'housekeeping step failed'));
  }
}

/** Runs the housekeeping every RDP_TRASH_PURGE_INTERVAL_SECONDS; a failed step is retried at the next tick. */
export function scheduleHousekeeping(platform: Platform, log: HousekeepingLog): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await runHousekeeping(platform, log);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, platform.config.trashPurgeIntervalSeconds * 1000);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
