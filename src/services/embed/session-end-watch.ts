/** How often a held wait reads its session again: a revocation made by another process bites within it. */
const RECHECK_MS = 1000;

/**
 * The held requests of embedded viewers waiting for their session to end (docs/embedding.md,
 * "When a session ends"): one request per open viewer, answered at once when the session is
 * revoked in this process, within a second when another process revoked it or it expired (its row
 * read again each second), else when the wait is over. Nothing is polled by the browser.
 */
export class SessionEndWatch {
  private readonly waiting = new Map<string, Set<(ended: boolean) => void>>();

  constructor(private readonly isOpen: (sessionId: string) => Promise<boolean>) {}

  /** True as soon as the session ends; false after `waitMs`, when `signal` aborts (the viewer left) or at close. */
  wait(sessionId: string, waitMs: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      let done = false;
      let recheck: NodeJS.Timeout | undefined;
      const waiters = this.waiting.get(sessionId) ?? new Set();
      this.waiting.set(sessionId, waiters);
      const finish = (ended: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearTimeout(recheck);
        signal.removeEventListener('abort', aborted);
        waiters.delete(finish);
        if (waiters.size === 0 && this.waiting.get(sessionId) === waiters) this.waiting.delete(sessionId);
        resolve(ended);
      };
      const aborted = () => finish(false);
      const check = async () => {
        // A failed read is no end: the next one decides.
        const open = await this.isOpen(sessionId).catch(() => true);
        if (!open) finish(true);
        else if (!done) recheck = setTimeout(check, RECHECK_MS);
      };
      const timer = setTimeout(() => finish(false), waitMs);
      waiters.add(finish);
      signal.addEventListener('abort', aborted);
      if (signal.aborted) aborted();
      else recheck = setTimeout(check, RECHECK_MS);
    });
  }

  /** The session was revoked in this process: its waits answer now. */
  ended(sessionId: string): void {
    for (const finish of [...(this.waiting.get(sessionId) ?? [])]) finish(true);
  }

  /** The server is closing: every wait answers (the session still open) so no request holds it up. */
  close(): void {
    for (const waiters of [...this.waiting.values()]) for (const finish of [...waiters]) finish(false);
  }
}
