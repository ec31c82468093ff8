import { setTimeout as delay } from 'node:timers/promises';

export type Phase = 'starting' | 'ready' | 'draining';

/** Where the process is in its life: what /readyz answers before it asks the stores. */
export class Lifecycle {
  private current: Phase = 'starting';
  private readonly drainListeners: (() => void)[] = [];

  get phase(): Phase {
    return this.current;
  }

  get draining(): boolean {
    return this.current === 'draining';
  }

  /** Serving: called once the process listens. A draining process never becomes ready again. */
  ready(): void {
    if (this.current === 'starting') this.current = 'ready';
  }

  drain(): void {
    if (this.current === 'draining') return;
    this.current = 'draining';
    for (const listener of this.drainListeners) listener();
  }

  /** Calls `listener` when the drain begins. */
  onDrain(listener: () => void): void {
    this.drainListeners.push(listener);
  }
}

export interface ShutdownSteps {
  lifecycle: Lifecycle;
  graceMs: number;
  /** Stops scheduled work (housekeeping) at once. */
  stopTimers?: () => void;
  /** Lets in-flight requests finish within the grace, then closes what is left (src/http/draining.ts). */
  drainHttp?: (deadline: number) => Promise<void>;
  /** Lets running jobs finish within the grace, then releases them to the queue (the worker's stop()). */
  stopWorker?: () => Promise<void>;
  /** Closes the stores once nothing uses them. */
  closeStores: () => Promise<void>;
  log: { info(message: string): void; warn(object: object, message: string): void };
}

/** How long past the grace closing the stores may take before the process leaves without them. */
const CLOSE_MARGIN_MS = 5000;

/**
 * The process's stop on SIGTERM or SIGINT (docs/design/processes.md#stopping): /readyz answers 503
 * from the first moment, requests and jobs in flight finish side by side within the grace period,
 * whatever is left then is cut (connections closed, jobs released to the queue), the stores close,
 * and the caller exits 0. A stop that hangs past the grace and a margin resolves all the same.
 */
export async function shutdown(steps: ShutdownSteps): Promise<void> {
  const { lifecycle, graceMs, log } = steps;
  const deadline = performance.now() + graceMs;
  lifecycle.drain();
  steps.stopTimers?.();
  log.info(`draining: finishing requests and jobs in flight (grace ${graceMs / 1000} s)`);
  const stopped = (async () => {
    const results = await Promise.allSettled([steps.drainHttp?.(deadline), steps.stopWorker?.()]);
    for (const result of results) if (result.status === 'rejected') log.warn({ err: result.reason }, 'draining failed');
    await steps.closeStores().catch((err) => log.warn({ err }, 'closing the stores failed'));
    return 'stopped';
  })();
  const timeout = delay(graceMs + CLOSE_MARGIN_MS, 'timeout', { ref: false });
  if ((await Promise.race([stopped, timeout])) === 'timeout') {
    log.warn({}, 'the stop did not end within the grace period: exiting anyway');
  } else {
    log.info('stopped');
  }
}
