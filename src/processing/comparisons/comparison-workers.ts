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

  constructor(
    readonly threads: number,
    private readonly onDecoded: (decoded: DecodedNote) => void,
    private readonly signal?: AbortSignal,
  ) {
    this.pool =
      threads > 0
        ? new ThreadPool(threadEntry(import.meta.url, './comparison-thread'), threads, 'comparison', onDecoded)
        : undefined;
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
    return this.pool?.close() ?? Promise.resolve();
  }

  private async run(task: ComparisonTask): Promise<ComparisonResult> {
    if (this.pool) return this.pool.run(task);
    return (await runComparisonTask(task, this.onDecoded, this.signal)).result;
  }
}
