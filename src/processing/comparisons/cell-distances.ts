import { open } from 'node:fs/promises';
import type { Bounds } from '../point-clouds/point-cloud.js';
import { loadSpill, PointRecords, RECORD_DOUBLES, SPILL_RECORD } from '../tiles/spill-file.js';
import type { CloudCell } from './cloud-cells.js';
import { PointKdTree } from './point-kd-tree.js';
import { spatialOrder } from './spatial-order.js';

/**
 * The exact C2C distances of one cell's compared points (docs/comparisons-c2c.md): the nearest
 * reference point within maxDistance among ALL reference points, Infinity where there is none.
 * First a k-d tree over the cell's own reference points; then, for the points whose nearest
 * could lie in another cell (that cell's reference bounds nearer than the point's distance so
 * far, or than maxDistance), the other cell's reference points near enough to matter are
 * gathered as a margin, at most `marginPoints` at a time, and queried with the distance so far
 * as the limit.
 */
export async function cellDistances(
  cell: CloudCell,
  cells: readonly CloudCell[],
  maxDistance: number,
  marginPoints: number,
  signal?: AbortSignal,
): Promise<{ records: PointRecords; distances: Float64Array }> {
  const count = cell.comparedCount;
  const records = await loadSpill([cell.compared!], count);
  const p = records.doubles;
  const best = new Float64Array(count).fill(Number.POSITIVE_INFINITY);
  const own = boundsOf(records, count);
  // Queried in space order, not the file's: each query finds the tree where the last left it.
  const order = spatialOrder(p, RECORD_DOUBLES, count, own);
  if (cell.reference) {
    const reference = await loadSpill([cell.reference], cell.referenceCount);
    const tree = new PointKdTree(positionsOf(reference, cell.referenceCount), cell.referenceCount);
    for (let k = 0; k < count; k += 1) {
      const i = order[k]!;
      const at = i * RECORD_DOUBLES;
      best[i] = tree.nearestDistance(p[at]!, p[at + 1]!, p[at + 2]!, maxDistance);
    }
  }
  const others = cells
    .filter((other) => other !== cell && other.referenceCount > 0)
    .map((other) => ({ other, gap: boxGap(own, other.referenceBounds) }))
    .filter(({ gap }) => gap <= maxDistance * maxDistance)
    .sort((a, b) => a.gap - b.gap);
  const needing = new Int32Array(count);
  const margin = new Float64Array(3 * marginPoints);
  const chunk = new PointRecords(Math.min(READ_POINTS, Math.max(1, ...others.map(({ other }) => other.referenceCount))));
  for (const { other } of others) {
    signal?.throwIfAborted();
    // The points that other cell could still bring nearer, the box around them and their reach
    // (scalars, not Bounds: these loops run over every point for every neighbour).
    let needed = 0;
    let reach = 0;
    const [x0, y0, z0] = other.referenceBounds.min;
    const [x1, y1, z1] = other.referenceBounds.max;
    let ax0 = Infinity;
    let ay0 = Infinity;
    let az0 = Infinity;
    let ax1 = -Infinity;
    let ay1 = -Infinity;
    let az1 = -Infinity;
    for (let k = 0; k < count; k += 1) {
      const i = order[k]!;
      const limit = Math.min(best[i]!, maxDistance);
      const at = i * RECORD_DOUBLES;
      const x = p[at]!;
      const y = p[at + 1]!;
      const z = p[at + 2]!;
      if (pointGap(x, y, z, x0, y0, z0, x1, y1, z1) > limit * limit) continue;
      needing[needed++] = i;
      if (limit > reach) reach = limit;
      if (x < ax0) ax0 = x;
      if (x > ax1) ax1 = x;
      if (y < ay0) ay0 = y;
      if (y > ay1) ay1 = y;
      if (z < az0) az0 = z;
      if (z > az1) az1 = z;
    }
    if (needed === 0) continue;
    // A hair of slack: a reference point kept needlessly costs nothing, one missed would.
    const reachSquared = reach * reach * (1 + 1e-9);
    let held = 0;
    const query = () => {
      const tree = new PointKdTree(margin, held);
      for (let k = 0; k < needed; k += 1) {
        const i = needing[k]!;
        const at = i * RECORD_DOUBLES;
        const d = tree.nearestDistance(p[at]!, p[at + 1]!, p[at + 2]!, Math.min(best[i]!, maxDistance));
        if (d < best[i]!) best[i] = d;
      }
      held = 0;
    };
    // Only its points near its faces can be nearer to a point outside it (cloud-cells.ts).
    for await (const read of readChunks(other.referenceBorder ?? other.reference!, chunk)) {
      const q = chunk.doubles;
      for (let j = 0; j < read; j += 1) {
        const at = j * RECORD_DOUBLES;
        if (pointGap(q[at]!, q[at + 1]!, q[at + 2]!, ax0, ay0, az0, ax1, ay1, az1) > reachSquared) continue;
        margin[held * 3] = q[at]!;
        margin[held * 3 + 1] = q[at + 1]!;
        margin[held * 3 + 2] = q[at + 2]!;
        held += 1;
        if (held === marginPoints) query();
      }
    }
    if (held > 0) query();
  }
  return { records, distances: best };
}

/** Records per read of a neighbour's reference points. */
const READ_POINTS = 65_536;

/** Reads a spill file into one reused buffer (a cell's neighbours are many small files); the count read each time. */
export async function* readChunks(file: string, records: PointRecords): AsyncGenerator<number> {
  const handle = await open(file, 'r');
  try {
    for (;;) {
      const { bytesRead } = await handle.read(records.bytes, 0, records.capacity * SPILL_RECORD, null);
      const count = Math.floor(bytesRead / SPILL_RECORD);
      if (count === 0) break;
      yield count;
    }
  } finally {
    await handle.close();
  }
}

export function positionsOf(records: PointRecords, count: number): Float64Array {
  const positions = new Float64Array(count * 3);
  for (let i = 0; i < count; i += 1) {
    positions[i * 3] = records.doubles[i * RECORD_DOUBLES]!;
    positions[i * 3 + 1] = records.doubles[i * RECORD_DOUBLES + 1]!;
    positions[i * 3 + 2] = records.doubles[i * RECORD_DOUBLES + 2]!;
  }
  return positions;
}

export function boundsOf(records: PointRecords, count: number): Bounds {
  const bounds: Bounds = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
  for (let i = 0; i < count; i += 1) {
    for (let axis = 0; axis < 3; axis += 1) {
      const value = records.doubles[i * RECORD_DOUBLES + axis]!;
      if (value < bounds.min[axis]!) bounds.min[axis] = value;
      if (value > bounds.max[axis]!) bounds.max[axis] = value;
    }
  }
  return bounds;
}

/** The squared distance from a point to a box (0 inside), the box as scalars; never more than to any point in the box. */
function pointGap(
  x: number,
  y: number,
  z: number,
  x0: number,
  y0: number,
  z0: number,
  x1: number,
  y1: number,
  z1: number,
): number {
  const dx = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
  const dy = y < y0 ? y0 - y : y > y1 ? y - y1 : 0;
  const dz = z < z0 ? z0 - z : z > z1 ? z - z1 : 0;
  return dx * dx + dy * dy + dz * dz;
}

/** The squared distance between two boxes (0 where they overlap). */
export function boxGap(a: Bounds, b: Bounds): number {
  let sum = 0;
  for (let axis = 0; axis < 3; axis += 1) {
    const gap = Math.max(b.min[axis]! - a.max[axis]!, 0, a.min[axis]! - b.max[axis]!);
    sum += gap * gap;
  }
  return sum;
}
