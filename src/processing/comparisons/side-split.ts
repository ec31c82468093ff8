import { openPointCloud } from '../point-clouds/open-point-cloud.js';
import { BATCH_POINTS, type Bounds, emptyBounds } from '../point-clouds/point-cloud.js';
import { COLOR_WORD, PointRecords, RECORD_DOUBLES, RECORD_WORDS, readSpill, SpillWriter } from '../tiles/spill-file.js';

/**
 * The passes over one scan's points that cut a comparison into cells (cloud-cells.ts): decoding
 * a scan into a spill file, and streaming a part's points of one scan into its children. Each
 * runs on a comparison thread, the two scans side by side.
 */

/** Set in the top byte of a compared record's color word: the point has a color. */
export const HAS_COLOR = 1 << 24;

/** Cells per axis a split makes at most (children are numbered with this radix). */
export const AXIS_SPLIT = 8;

export interface SpilledScan {
  path: string;
  count: number;
  bounds: Bounds;
}

/** Decodes a scan's input file once into one spill file; its count and bounds. */
export async function spillScan(
  input: string,
  spillPath: string,
  onCount: (count: number) => void,
  signal?: AbortSignal,
): Promise<SpilledScan> {
  const reader = await openPointCloud(input);
  const writer = await SpillWriter.create(spillPath);
  const bounds = emptyBounds();
  let records = new PointRecords(BATCH_POINTS);
  try {
    for await (const batch of reader.batches()) {
      signal?.throwIfAborted();
      if (batch.count > records.capacity) records = new PointRecords(batch.count);
      records.setBatch(batch);
      for (let i = 0; i < batch.count; i += 1) {
        const word = i * RECORD_WORDS + COLOR_WORD;
        // The class code is not needed here; the byte says whether the color is the file's.
        records.words[word] = batch.colors ? ((records.words[word]! & 0xffffff) | HAS_COLOR) >>> 0 : 0;
        extend(bounds, records, i);
        if (writer.add(records, i)) await writer.flush();
      }
      onCount(writer.count);
    }
  } finally {
    await writer.close();
  }
  return { path: spillPath, count: writer.count, bounds };
}

/** How a part is cut: its box, the cells along each axis, where the children's files go. */
export interface SplitPlan {
  box: Bounds;
  divisions: number[];
  /** Children's files are `${prefix}-${side}-${index}.bin` and `${prefix}-border-${index}.bin`. */
  prefix: string;
  /** With C2C's maxDistance: each child's reference points this near its faces go to a border file too. */
  border?: number;
}

/** One child's points of one scan. */
export interface SideChild {
  index: number;
  path: string;
  count: number;
  bounds: Bounds;
  /** Reference only, with a border: its points near the child's faces. */
  borderPath?: string;
}

/** The box of child `index` of a plan (index digits in AXIS_SPLIT radix, x first). */
export function childBox(plan: SplitPlan, index: number): Bounds {
  const box = emptyBounds();
  for (let axis = 2, rest = index; axis >= 0; axis -= 1, rest = Math.floor(rest / AXIS_SPLIT)) {
    const cell = rest % AXIS_SPLIT;
    const width = (plan.box.max[axis]! - plan.box.min[axis]!) / plan.divisions[axis]!;
    box.min[axis] = plan.box.min[axis]! + cell * width;
    box.max[axis] = cell === plan.divisions[axis]! - 1 ? plan.box.max[axis]! : plan.box.min[axis]! + (cell + 1) * width;
  }
  return box;
}

/** Streams one scan's points of a part (its spill file) into the plan's children. */
export async function splitSide(
  file: string,
  side: 'reference' | 'compared',
  plan: SplitPlan,
  signal?: AbortSignal,
): Promise<SideChild[]> {
  const { box, divisions } = plan;
  const width = [0, 1, 2].map((axis) => (box.max[axis]! - box.min[axis]!) / divisions[axis]!);
  const children = new Map<number, { writer: SpillWriter; bounds: Bounds; box: Bounds; border?: SpillWriter }>();
  const indexOf = (records: PointRecords, i: number): number => {
    let index = 0;
    for (let axis = 0; axis < 3; axis += 1) {
      const at = Math.floor((records.doubles[i * RECORD_DOUBLES + axis]! - box.min[axis]!) / width[axis]!);
      index = index * AXIS_SPLIT + Math.max(0, Math.min(divisions[axis]! - 1, Number.isFinite(at) ? at : 0));
    }
    return index;
  };
  const border = side === 'reference' ? plan.border : undefined;
  try {
    for await (const { records, count } of readSpill([file])) {
      signal?.throwIfAborted();
      for (let i = 0; i < count; i += 1) {
        const index = indexOf(records, i);
        let child = children.get(index);
        if (!child) {
          const writer = await SpillWriter.create(`${plan.prefix}-${side}-${index}.bin`);
          // Made even if it stays empty: a neighbour then reads nothing rather than all the points.
          const borderWriter = border === undefined ? undefined : await SpillWriter.create(`${plan.prefix}-border-${index}.bin`);
          child = { writer, bounds: emptyBounds(), box: childBox(plan, index), border: borderWriter };
          children.set(index, child);
        }
        extend(child.bounds, records, i);
        if (child.writer.add(records, i)) await child.writer.flush();
        if (child.border && nearFaces(child.box, records, i, border!)) {
          if (child.border.add(records, i)) await child.border.flush();
        }
      }
    }
  } finally {
    for (const child of children.values()) {
      await child.writer.close();
      await child.border?.close();
    }
  }
  return [...children].map(([index, child]) => ({
    index,
    path: child.writer.path,
    count: child.writer.count,
    bounds: child.bounds,
    borderPath: child.border?.path,
  }));
}

/**
 * Whether record i lies within `distance` of a face of `box`. A point assigned to another cell
 * lies outside this box but for rounding, so the segment to it from any point here crosses a
 * face: no point farther from the faces can be nearer to it. The slack covers that rounding.
 */
function nearFaces(box: Bounds, records: PointRecords, i: number, distance: number): boolean {
  for (let axis = 0; axis < 3; axis += 1) {
    const value = records.doubles[i * RECORD_DOUBLES + axis]!;
    const slack = distance * 1e-9 + Math.abs(value) * 1e-12;
    if (value - box.min[axis]! <= distance + slack || box.max[axis]! - value <= distance + slack) return true;
  }
  return false;
}

function extend(bounds: Bounds, records: PointRecords, i: number): void {
  for (let axis = 0; axis < 3; axis += 1) {
    const value = records.doubles[i * RECORD_DOUBLES + axis]!;
    if (value < bounds.min[axis]!) bounds.min[axis] = value;
    if (value > bounds.max[axis]!) bounds.max[axis] = value;
  }
}
