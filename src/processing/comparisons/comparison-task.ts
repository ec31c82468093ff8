import type { ThreadAnswer } from '../thread-pool.js';
import { cellDistances } from './cell-distances.js';
import { cellM3c2 } from './cell-m3c2.js';
import type { CloudCell } from './cloud-cells.js';
import { type EncodedDistances, encodeDistances, encodedBuffers } from './distance-outputs.js';
import type { M3c2Scales } from './m3c2.js';
import { type SideChild, type SpilledScan, type SplitPlan, spillScan, splitSide } from './side-split.js';

/**
 * The work of a comparison in pieces a comparison thread runs (comparison-thread.ts), or the
 * comparison itself when it runs without threads (comparison-workers.ts): decoding a scan,
 * splitting one scan's points of a part, measuring a cell. Tasks carry paths and descriptions,
 * never points: the points are in spill files.
 */
export type ComparisonTask =
  | { kind: 'spill'; input: string; spillPath: string; side: ScanSide }
  | { kind: 'split'; file: string; side: ScanSide; plan: SplitPlan }
  | { kind: 'cell'; cell: CellTask };

export type ScanSide = 'reference' | 'compared';

/** A cell to measure: cells[cell], its neighbours read from their spill files. */
export type CellTask = { cell: number; cells: readonly CloudCell[] } & (
  | { method: 'c2c'; maxDistance: number; marginPoints: number }
  | { method: 'm3c2'; scales: M3c2Scales }
);

export type ComparisonResult = SpilledScan | SideChild[] | EncodedDistances;

/** Said on the way: the points of a scan decoded so far. */
export interface DecodedNote {
  side: ScanSide;
  count: number;
}

export async function runComparisonTask(
  task: ComparisonTask,
  note: (decoded: DecodedNote) => void,
  signal?: AbortSignal,
): Promise<ThreadAnswer<ComparisonResult>> {
  switch (task.kind) {
    case 'spill':
      return { result: await spillScan(task.input, task.spillPath, (count) => note({ side: task.side, count }), signal) };
    case 'split':
      return { result: await splitSide(task.file, task.side, task.plan, signal) };
    case 'cell': {
      const encoded = await measureCell(task.cell, signal);
      return { result: encoded, transfer: encodedBuffers(encoded) };
    }
  }
}

/** The cell's distances measured and encoded as the outputs want them. */
async function measureCell(task: CellTask, signal?: AbortSignal): Promise<EncodedDistances> {
  const cell = task.cells[task.cell]!;
  if (task.method === 'm3c2') {
    const { records, distances, ...detection } = await cellM3c2(cell, task.cells, task.scales, signal);
    return encodeDistances(records, distances, cell.comparedCount, true, detection);
  }
  const { records, distances } = await cellDistances(cell, task.cells, task.maxDistance, task.marginPoints, signal);
  return encodeDistances(records, distances, cell.comparedCount, false);
}
