import type { Region } from '../../domain/regions.js';

/**
 * Tells this process's webhook dispatcher that a region's outbox has been written to, so the new
 * deliveries leave without waiting for the poll (docs/webhooks.md). The signal comes before the
 * writing transaction commits: the dispatcher waits for the store's writes to settle first, and
 * the poll stays the fallback (another process's writes, a store where that wait is unknown).
 */
export class OutboxSignal {
  private readonly listeners = new Set<(region: Region) => void>();

  subscribe(listener: (region: Region) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  written(region: Region): void {
    for (const listener of this.listeners) listener(region);
  }
}
