import type { Bounds } from '../point-clouds/point-cloud.js';
import { loadSpill, PointRecords, RECORD_DOUBLES } from '../tiles/spill-file.js';
import { boundsOf, positionsOf, readChunks } from './cell-distances.js';
import type { CloudCell } from './cloud-cells.js';
import { type M3c2Scales, m3c2, m3c2Scales } from './m3c2.js';
import { PointKdTree } from './point-kd-tree.js';

/** One cell's M3C2 results for its compared points (the core points), NaN where not computable. */
export interface CellM3c2 {
  records: PointRecords;
  distances: Float64Array;
  lod95: Float64Array;
  significant: Uint8Array;
}

/**
 * The scales of a whole comparison (docs/comparisons.md, "M3C2"): from the point spacing of the
 * cell holding the most reference points, read at full density, so that every cell uses the same.
 */
export async function comparisonScales(cells: readonly CloudCell[], maxDepth: number): Promise<M3c2Scales> {
  const densest = cells.reduce((best, cell) => (cell.referenceCount > best.referenceCount ? cell : best), cells[0]!);
  if (!densest?.reference) throw new RangeError('M3C2 needs reference points to measure a spacing from');
  const records = await loadSpill([densest.reference], densest.referenceCount);
  return m3c2Scales(new PointKdTree(positionsOf(records, densest.referenceCount)), { maxDepth });
}

/**
 * M3C2 at a cell's compared points: every point of either scan a cylinder or a normal's
 * neighbourhood could reach (within maxDepth plus half the larger scale of the cell's points)
 * is gathered from the cells around, then m3c2.ts measures. Memory is the cell plus that margin.
 */
export async function cellM3c2(
  cell: CloudCell,
  cells: readonly CloudCell[],
  scales: M3c2Scales,
  signal?: AbortSignal,
): Promise<CellM3c2> {
  const count = cell.comparedCount;
  const records = await loadSpill([cell.compared!], count);
  const reach = scales.maxDepth + Math.max(scales.normalScale, scales.projectionScale) / 2;
  const own = boundsOf(records, count);
  const box: Bounds = {
    min: [own.min[0] - reach, own.min[1] - reach, own.min[2] - reach],
    max: [own.max[0] + reach, own.max[1] + reach, own.max[2] + reach],
  };
  const reference = await gathered(cells, 'reference', box, signal);
  const compared = await gathered(cells, 'compared', box, signal);
  const result = m3c2(reference, compared, positionsOf(records, count), {
    maxDepth: scales.maxDepth,
    normalScale: scales.normalScale,
    projectionScale: scales.projectionScale,
    signal,
  });
  return { records, distances: result.distance, lod95: result.lod95, significant: result.significant };
}

/** The positions of one scan's points inside `box`, from every cell whose points of that scan it overlaps. */
async function gathered(
  cells: readonly CloudCell[],
  side: 'reference' | 'compared',
  box: Bounds,
  signal?: AbortSignal,
): Promise<Float64Array> {
  let positions = new Float64Array(3 * 65_536);
  let count = 0;
  const chunk = new PointRecords(65_536);
  for (const cell of cells) {
    const file = cell[side];
    const bounds = side === 'reference' ? cell.referenceBounds : cell.comparedBounds;
    if (!file || !overlaps(bounds, box)) continue;
    signal?.throwIfAborted();
    for await (const read of readChunks(file, chunk)) {
      const q = chunk.doubles;
      for (let j = 0; j < read; j += 1) {
        const at = j * RECORD_DOUBLES;
        const x = q[at]!;
        const y = q[at + 1]!;
        const z = q[at + 2]!;
        if (x < box.min[0] || x > box.max[0] || y < box.min[1] || y > box.max[1] || z < box.min[2] || z > box.max[2]) continue;
        if ((count + 1) * 3 > positions.length) {
          const grown = new Float64Array(positions.length * 2);
          grown.set(positions);
          positions = grown;
        }
        positions[count * 3] = x;
        positions[count * 3 + 1] = y;
        positions[count * 3 + 2] = z;
        count += 1;
      }
    }
  }
  return positions.slice(0, count * 3);
}

function overlaps(a: Bounds, b: Bounds): boolean {
  for (let axis = 0; axis < 3; axis += 1) if (a.min[axis]! > b.max[axis]! || b.min[axis]! > a.max[axis]!) return false;
  return true;
}
