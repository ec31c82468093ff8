import { setImmediate as nextTurn } from 'node:timers/promises';
import type { HousekeepingRegions } from './housekeeping.js';

/**
 * The housekeeper's retention (docs/operations.md, "Retention"): what has outlived its use is
 * removed, each kind in bounded batches, so that no statement holds a table for long and the
 * process serves requests between batches. Every step is a database statement that finds nothing
 * left after another copy ran it, so every copy of a deployment may run them.
 */

/** Rows one statement removes at most. */
export const RETENTION_BATCH = 1000;

/** How long the webhook delivery log keeps finished deliveries (docs/webhooks.md). */
export const WEBHOOK_LOG_RETENTION_MS = 30 * 86_400_000;

/**
 * How long what ended (an embed session, an upload and its session) is kept after its expiry, so
 * that the viewer page and the upload session's answer can still say "expired" rather than
 * "not found" to a client that comes back late.
 */
export const ENDED_RETENTION_MS = 7 * 86_400_000;

const DAY_MS = 86_400_000;

/** Runs `removeBatch` until a batch removes nothing, letting other work run between batches; the rows removed. */
export async function inBatches(removeBatch: () => Promise<number>): Promise<number> {
  let removed = 0;
  for (;;) {
    const batch = await removeBatch();
    if (batch === 0) return removed;
    removed += batch;
    await nextTurn();
  }
}

function before(platform: HousekeepingRegions<never>, ms: number): string {
  return new Date(platform.clock.now().getTime() - ms).toISOString();
}

/** Removes finished webhook deliveries older than 30 days, then the events of that age left without any. */
export async function purgeWebhookLog(platform: HousekeepingRegions<'webhooks'>): Promise<number> {
  const cutoff = before(platform, WEBHOOK_LOG_RETENTION_MS);
  let removed = 0;
  for (const { webhooks } of platform.openedRegions()) {
    removed += await inBatches(() => webhooks.deleteFinishedBefore(cutoff, RETENTION_BATCH));
    // Events a page at a time through the old ones (those still waiting for a delivery stay).
    let after: { createdAt: string; id: string } | undefined;
    do {
      const page = await webhooks.deleteUnreferencedEventsPage(cutoff, RETENTION_BATCH, after);
      removed += page.removed;
      after = page.last;
      await nextTurn();
    } while (after);
  }
  return removed;
}

/** Removes embed sessions a week after they ended (expired, or revoked and then expired). */
export async function purgeEmbedSessions(platform: HousekeepingRegions<'embedSessions'>): Promise<number> {
  const cutoff = before(platform, ENDED_RETENTION_MS);
  let removed = 0;
  for (const { embedSessions } of platform.openedRegions()) {
    removed += await inBatches(() => embedSessions.deleteExpiredBefore(cutoff, RETENTION_BATCH));
  }
  return removed;
}

/**
 * Removes the rows of uploads and upload sessions a week after they expired. Expiring them
 * (collectUploads) gave their reservations back and queued their bytes already.
 */
export async function purgeExpiredUploads(platform: HousekeepingRegions<'uploads'>): Promise<number> {
  const cutoff = before(platform, ENDED_RETENTION_MS);
  let removed = 0;
  for (const { uploads } of platform.openedRegions()) {
    removed += await inBatches(() => uploads.deleteExpiredBefore(cutoff, RETENTION_BATCH));
  }
  return removed;
}

/** Removes audit events older than `days` (RDP_AUDIT_RETENTION_DAYS). */
export async function purgeAuditEvents(platform: HousekeepingRegions<'audit'>, days: number): Promise<number> {
  const cutoff = before(platform, days * DAY_MS);
  let removed = 0;
  for (const { audit } of platform.openedRegions()) {
    removed += await inBatches(() => audit.deleteBefore(cutoff, RETENTION_BATCH));
  }
  return removed;
}
