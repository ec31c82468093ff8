import { cellDistances } from './cell-distances.js';
import { cellM3c2 } from './cell-m3c2.js';
import type { CloudCell } from './cloud-cells.js';
import { type EncodedDistances, encodeDistances } from './distance-outputs.js';
import type { M3c2Scales } from './m3c2.js';

/**
 * One cell of a comparison, as a comparison thread runs it (comparison-thread.ts) or the
 * comparison itself when it runs without threads: the cell is cells[cell]; its neighbours are
 * read from their spill files, so a task carries only the cells' descriptions.
 */
export type CellTask = { cell: number; cells: readonly CloudCell[] } & (
  | { method: 'c2c'; maxDistance: number; marginPoints: number }
  | { method: 'm3c2'; scales: M3c2Scales }
);

/** The cell's distances measured and encoded as the outputs want them. */
export async function runCellTask(task: CellTask, signal?: AbortSignal): Promise<EncodedDistances> {
  const cell = task.cells[task.cell]!;
  if (task.method === 'm3c2') {
    const { records, distances, ...detection } = await cellM3c2(cell, task.cells, task.scales, signal);
    return encodeDistances(records, distances, cell.comparedCount, true, detection);
  }
  const { records, distances } = await cellDistances(cell, task.cells, task.maxDistance, task.marginPoints, signal);
  return encodeDistances(records, distances, cell.comparedCount, false);
}
