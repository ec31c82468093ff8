import { ThreadPool, threadEntry } from '../thread-pool.js';
import {
  type CellTask,
  type ComparisonResult,
  type ComparisonTask,
  type DecodedNote,
  runComparisonTask,
  type ScanSide,
} from './comparison-task.js';
import type { EncodedDistances } from './distance-outputs.js';
import type { SideChild, SpilledScan, SplitPlan } from './side-split.js';

/**
 * Where a comparison's pieces run: on comparison threads, the two scans' passes side by side
 * and cells ahead of the one being written, or, with no threads, here one after another.
 */
export class ComparisonWorkers {
  private readonly pool: ThreadPool<ComparisonTask, ComparisonResult, DecodedNote> | undefined;
  /** An abort stops the threads at once: a task on a thread does not see the signal itself. */
  private readonly stop = () => void this.pool?.close();

  constructor(
    readonly threads: number,
    private readonly onDecoded: (decoded: DecodedNote) => void,
    private readonly signal?: AbortSignal,
  ) {
    this.pool =
      threads > 0
        ? new ThreadPool(threadEntry(import.meta.url, './comparison-thread'), threads, 'comparison', onDecoded)
        : undefined;
    signal?.addEventListener('abort', this.stop, { once: true });
  }

  spill(input: string, spillPath: string, side: ScanSide): Promise<SpilledScan> {
    return this.run({ kind: 'spill', input, spillPath, side }) as Promise<SpilledScan>;
  }

  readonly splitSide = (file: string, side: ScanSide, plan: SplitPlan): Promise<SideChild[]> =>
    this.run({ kind: 'split', file, side, plan }) as Promise<SideChild[]>;

  measure(cell: CellTask): Promise<EncodedDistances> {
    return this.run({ kind: 'cell', cell }) as Promise<EncodedDistances>;
  }

  close(): Promise<void> {
    this.signal?.removeEventListener('abort', this.stop);
    return this.pool?.close() ?? Promise.resolve();
  }

  private async run(task: ComparisonTask): Promise<ComparisonResult> {
    if (!this.pool) return (await runComparisonTask(task, this.onDecoded, this.signal)).result;
    try {
      return await this.pool.run(task);
    } catch (error) {
      // Stopped by an abort, the task failed for that reason, not for its thread's exit.
      this.signal?.throwIfAborted();
      throw error;
    }
  }
}
