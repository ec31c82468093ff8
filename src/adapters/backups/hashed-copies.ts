import { availableParallelism } from 'node:os';
import { ThreadPool, threadEntry } from '../../processing/thread-pool.js';
import type { CopyRequest, CopyResult } from './hashed-copy.js';

/**
 * Copies files on threads, hashing each on the way: SHA-256 costs more than the copy itself, so
 * the files of a backup or a restore are spread over the cores (docs/operations.md, "Backups and
 * restores").
 */
export class HashedCopies {
  private readonly pool: ThreadPool<CopyRequest, CopyResult>;

  constructor(threads = Math.min(4, availableParallelism())) {
    this.pool = new ThreadPool(threadEntry(import.meta.url, './hash-copy-thread'), threads, 'copy');
  }

  copy(from: string, to: string, known?: CopyRequest['known']): Promise<CopyResult> {
    return this.pool.run(known ? { from, to, known } : { from, to });
  }

  hash(file: string): Promise<CopyResult> {
    return this.pool.run({ from: file });
  }

  /** Runs `work` on every item, `inFlight` at a time: the pool's queue stays short however many files there are. */
  static async each<T>(items: readonly T[], work: (item: T) => Promise<void>, inFlight = 64): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < items.length) await work(items[next++] as T);
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, items.length) }, lane));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
