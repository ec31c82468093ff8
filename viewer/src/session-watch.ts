import { SessionRefusedError, type TwinApi } from './api.js';

/** How long each held request waits: under the 60 s a proxy commonly allows a quiet response. */
const WAIT_SECONDS = 45;
/** After a failure of the network or the API, the next ask: not a tight loop. */
const RETRY_MS = 5000;

/**
 * An embed session's viewer holds one request that the API answers when the session ends (revoked
 * or expired), so the page stops within a second even with no tile to fetch (docs/embedding.md,
 * "When a session ends"). `ended` runs once, at the end; an API without the route ends the watch.
 */
export async function watchSession(api: TwinApi, ended: () => void): Promise<void> {
  while (!api.refused) {
    try {
      if (!(await api.waitWhileOpen(WAIT_SECONDS))) return;
    } catch (error) {
      if (error instanceof SessionRefusedError) {
        ended();
        return;
      }
      await new Promise((resolve) => window.setTimeout(resolve, RETRY_MS));
    }
  }
}
