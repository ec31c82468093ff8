import { REGIONS } from '../domain/regions.js';
import { regionServices } from '../http/region-app.js';
import type { Platform } from '../platform.js';

/** Removes, in every region, what has been in the trash longer than the retention period. */
export async function purgeTrash(platform: Platform): Promise<Record<string, number>> {
  const purged: Record<string, number> = {};
  for (const region of REGIONS) purged[region] = await regionServices(platform, region).tree.purgeExpired();
  return purged;
}

/**
 * Runs the purge on a schedule. Each run is idempotent and transactional per trash entry, so
 * several processes may run it; a failed run is logged and retried at the next tick.
 */
export function scheduleTrashPurge(platform: Platform, log: { error(o: object, m: string): void }): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await purgeTrash(platform);
    } catch (err) {
      log.error({ err }, 'trash purge failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, platform.config.trashPurgeIntervalSeconds * 1000);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
