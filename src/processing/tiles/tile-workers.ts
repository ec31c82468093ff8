import type { LazChunkRequest } from '../point-clouds/laz-chunks.js';
import { ThreadPool, threadEntry } from '../thread-pool.js';
import type { OctreeSettings, OctreeTask, TaskResult } from './octree-task.js';
import type { TileRequest, TileResult } from './tile-worker.js';

/**
 * The tiler's threads: they run octree tasks, one per thread at a time, so memory stays the
 * task's bound times the thread count, and report placed points on the way. Started before the
 * decoding pass, so their start-up overlaps it; while it runs they decompress LAZ chunks.
 */
export class TileWorkers {
  private readonly pool: ThreadPool<TileRequest, TileResult, number>;

  constructor(size: number, onPoints: (placed: number) => void) {
    this.pool = new ThreadPool(threadEntry(import.meta.url, './tile-worker'), size, 'tiling', onPoints);
  }

  run(task: OctreeTask, settings: OctreeSettings): Promise<TaskResult> {
    return this.pool.run({ task, settings }) as Promise<TaskResult>;
  }

  /** Decompresses a LAZ chunk on a thread: to lend the LAZ reader while the input is decoded. */
  readonly decodeLazChunk = (lazChunk: LazChunkRequest): Promise<Uint8Array> =>
    this.pool.run({ lazChunk }) as Promise<Uint8Array>;

  close(): Promise<void> {
    return this.pool.close();
  }
}
