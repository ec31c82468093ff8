import { rm } from 'node:fs/promises';
import path from 'node:path';
import { type Bounds, emptyBounds } from '../point-clouds/point-cloud.js';
import { AXIS_SPLIT, childBox, type SideChild, type SpilledScan, type SplitPlan } from './side-split.js';

/**
 * The two scans of a comparison parked on disk in cells (docs/comparisons-c2c.md): each cell a
 * box holding at most a bounded number of points of both scans together, its reference points
 * and its compared points in two spill files (the tiler's 32-byte records). A compared record's
 * color word carries HAS_COLOR in its top byte when the file gave the point a color.
 */
export interface CloudCell {
  /** The reference points of the cell, or undefined when it has none. */
  reference: string | undefined;
  referenceCount: number;
  /** The bounds of the cell's reference points (empty when it has none). */
  referenceBounds: Bounds;
  compared: string | undefined;
  comparedCount: number;
  /** The bounds of the cell's compared points (empty when it has none). */
  comparedBounds: Bounds;
  /** The box the cell covers: its points of both scans are in it (to rounding). */
  box: Bounds;
  /**
   * The cell's reference points within the border distance of its box's faces (splitIntoCells's
   * `border`), all a point outside the box can have nearer than that; undefined without one.
   */
  referenceBorder?: string;
}

/** Splits one scan's points of a part into the plan's children: on a comparison thread, or here. */
export type SideSplitter = (file: string, side: 'reference' | 'compared', plan: SplitPlan) => Promise<SideChild[]>;

/** A cell that holds more points than allowed but is split no further: a pile of identical points. */
const MAX_DEPTH = 24;
/** Cells a split makes at most: few files open at once. */
const MOST_CHILDREN = 64;
/**
 * A split makes as many cells as would hold its points at this share of the bound: big cells,
 * as each reads its neighbours' points near its border, yet most need no further split.
 */
const FILL = 0.75;

type Part = CloudCell & { depth: number };

/**
 * Splits the two spilled scans into cells of at most `cellPoints` points (both scans counted):
 * a box holding more is cut into as many cells as its points need (divisionsOf), the points of
 * each scan streamed into them by `splitSide` (the two scans side by side), until every cell is
 * small enough. Empty cells are dropped; the input spill files are removed once split. With
 * `border` (C2C's maxDistance), each cell made by a split also gets the file of its reference
 * points near its faces (CloudCell.referenceBorder), so that its neighbours read those instead
 * of all its points (docs/comparisons-c2c.md).
 */
export async function splitIntoCells(
  reference: SpilledScan,
  compared: SpilledScan,
  cellPoints: number,
  dir: string,
  splitSide: SideSplitter,
  options: { border?: number; signal?: AbortSignal } = {},
): Promise<CloudCell[]> {
  const box = emptyBounds();
  for (const bounds of [reference.bounds, compared.bounds]) {
    for (let axis = 0; axis < 3; axis += 1) {
      box.min[axis] = Math.min(box.min[axis]!, bounds.min[axis]!);
      box.max[axis] = Math.max(box.max[axis]!, bounds.max[axis]!);
    }
  }
  const cells: CloudCell[] = [];
  const pending: Part[] = [
    {
      box,
      reference: reference.count > 0 ? reference.path : undefined,
      referenceCount: reference.count,
      referenceBounds: reference.bounds,
      compared: compared.count > 0 ? compared.path : undefined,
      comparedCount: compared.count,
      comparedBounds: compared.bounds,
      depth: 0,
    },
  ];
  let made = 0;
  for (let part = pending.pop(); part; part = pending.pop()) {
    options.signal?.throwIfAborted();
    const extent = Math.max(...[0, 1, 2].map((axis) => part.box.max[axis]! - part.box.min[axis]!));
    if (part.referenceCount + part.comparedCount <= cellPoints || part.depth >= MAX_DEPTH || !(extent > 0)) {
      const { depth, ...cell } = part;
      cells.push(cell);
      continue;
    }
    const plan: SplitPlan = {
      box: part.box,
      divisions: divisionsOf(part, cellPoints),
      prefix: path.join(dir, `part-${made++}`),
      border: options.border,
    };
    const [references, compareds] = await Promise.all([
      part.reference ? splitSide(part.reference, 'reference', plan) : [],
      part.compared ? splitSide(part.compared, 'compared', plan) : [],
    ]);
    for (const file of [part.reference, part.compared, part.referenceBorder]) if (file) await rm(file, { force: true });
    pending.push(...childrenOf(plan, part.depth + 1, references, compareds));
  }
  return cells;
}

/** The children of a split from what each scan's pass made of them. */
function childrenOf(plan: SplitPlan, depth: number, references: SideChild[], compareds: SideChild[]): Part[] {
  const children = new Map<number, Part>();
  const childOf = (index: number) => {
    let child = children.get(index);
    if (!child) {
      child = {
        box: childBox(plan, index),
        reference: undefined,
        referenceCount: 0,
        referenceBounds: emptyBounds(),
        compared: undefined,
        comparedCount: 0,
        comparedBounds: emptyBounds(),
        depth,
      };
      children.set(index, child);
    }
    return child;
  };
  for (const { index, path, count, bounds, borderPath } of references)
    Object.assign(childOf(index), {
      reference: path,
      referenceCount: count,
      referenceBounds: bounds,
      referenceBorder: borderPath,
    });
  for (const { index, path, count, bounds } of compareds)
    Object.assign(childOf(index), { compared: path, comparedCount: count, comparedBounds: bounds });
  return [...children.values()];
}

/**
 * How many cells along each axis a split cuts a part into: enough for its points at FILL of the
 * bound, each cut on the axis whose pieces are then longest, so that a flat scan's cells stay
 * near square; two at least.
 */
function divisionsOf(part: Part, cellPoints: number): number[] {
  const wanted = Math.min(MOST_CHILDREN, Math.ceil((part.referenceCount + part.comparedCount) / (cellPoints * FILL)));
  const span = [0, 1, 2].map((axis) => part.box.max[axis]! - part.box.min[axis]!);
  const divisions = [1, 1, 1];
  for (let made = 1; made < Math.max(2, wanted); ) {
    let axis = -1;
    for (let a = 0; a < 3; a += 1) {
      if (divisions[a]! >= AXIS_SPLIT || !(span[a]! > 0)) continue;
      if (axis < 0 || span[a]! / divisions[a]! > span[axis]! / divisions[axis]!) axis = a;
    }
    if (axis < 0 || (made / divisions[axis]!) * (divisions[axis]! + 1) > MOST_CHILDREN) break;
    made = (made / divisions[axis]!) * (divisions[axis]! + 1);
    divisions[axis]! += 1;
  }
  return divisions;
}
