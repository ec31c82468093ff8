import { rm } from 'node:fs/promises';
import path from 'node:path';
import { BATCH_POINTS, type Bounds, emptyBounds, type PointCloudReader } from '../point-clouds/point-cloud.js';
import { COLOR_WORD, PointRecords, RECORD_DOUBLES, RECORD_WORDS, readSpill, SpillWriter } from '../tiles/spill-file.js';

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
}

/** Set in the top byte of a compared record's color word: the point has a color. */
export const HAS_COLOR = 1 << 24;

/** A cell that holds more points than allowed but is split no further: a pile of identical points. */
const MAX_DEPTH = 12;
/** Cells per axis a split makes at most: few passes over the points, few files open at once. */
const SPLIT = 4;

/** Decodes a scan once into one spill file; its count and bounds. */
export async function spillCloud(
  reader: PointCloudReader,
  spillPath: string,
  onCount: (count: number) => void,
  signal?: AbortSignal,
): Promise<{ path: string; count: number; bounds: Bounds }> {
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

interface Part {
  box: Bounds;
  reference: string | undefined;
  referenceCount: number;
  referenceBounds: Bounds;
  compared: string | undefined;
  comparedCount: number;
  comparedBounds: Bounds;
  depth: number;
}

/**
 * Splits the two spilled scans into cells of at most `cellPoints` points (both scans counted):
 * a box holding more is cut into up to SPLIT cells along each axis long enough to matter, its
 * points streamed into them, until every cell is small enough. Empty cells are dropped; the
 * input spill files are removed once split.
 */
export async function splitIntoCells(
  reference: { path: string; count: number; bounds: Bounds },
  compared: { path: string; count: number; bounds: Bounds },
  cellPoints: number,
  dir: string,
  signal?: AbortSignal,
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
    signal?.throwIfAborted();
    const extent = Math.max(...[0, 1, 2].map((axis) => part.box.max[axis]! - part.box.min[axis]!));
    if (part.referenceCount + part.comparedCount <= cellPoints || part.depth >= MAX_DEPTH || !(extent > 0)) {
      cells.push(part);
      continue;
    }
    const children = await splitPart(part, extent, () => path.join(dir, `cell-${made++}.bin`), signal);
    for (const file of [part.reference, part.compared]) if (file) await rm(file, { force: true });
    pending.push(...children);
  }
  return cells;
}

async function splitPart(part: Part, extent: number, nextPath: () => string, signal?: AbortSignal): Promise<Part[]> {
  // Axes much shorter than the longest are not cut, so that a flat scan's cells stay near square.
  const divisions = [0, 1, 2].map((axis) =>
    Math.max(1, Math.min(SPLIT, Math.round((SPLIT * (part.box.max[axis]! - part.box.min[axis]!)) / extent))),
  );
  const width = [0, 1, 2].map((axis) => (part.box.max[axis]! - part.box.min[axis]!) / divisions[axis]!);
  const children = new Map<number, Part & { referenceWriter?: SpillWriter; comparedWriter?: SpillWriter }>();
  const indexOf = (records: PointRecords, i: number): number => {
    let index = 0;
    for (let axis = 0; axis < 3; axis += 1) {
      const n = divisions[axis]!;
      const at = Math.floor((records.doubles[i * RECORD_DOUBLES + axis]! - part.box.min[axis]!) / width[axis]!);
      index = index * SPLIT + Math.max(0, Math.min(n - 1, Number.isFinite(at) ? at : 0));
    }
    return index;
  };
  const childOf = (index: number) => {
    let child = children.get(index);
    if (!child) {
      const box = emptyBounds();
      for (let axis = 2, rest = index; axis >= 0; axis -= 1, rest = Math.floor(rest / SPLIT)) {
        const cell = rest % SPLIT;
        box.min[axis] = part.box.min[axis]! + cell * width[axis]!;
        box.max[axis] = cell === divisions[axis]! - 1 ? part.box.max[axis]! : part.box.min[axis]! + (cell + 1) * width[axis]!;
      }
      child = {
        box,
        reference: undefined,
        referenceCount: 0,
        referenceBounds: emptyBounds(),
        compared: undefined,
        comparedCount: 0,
        comparedBounds: emptyBounds(),
        depth: part.depth + 1,
      };
      children.set(index, child);
    }
    return child;
  };
  try {
    for (const side of ['reference', 'compared'] as const) {
      const file = part[side];
      if (!file) continue;
      for await (const { records, count } of readSpill([file])) {
        signal?.throwIfAborted();
        for (let i = 0; i < count; i += 1) {
          const child = childOf(indexOf(records, i));
          let writer = side === 'reference' ? child.referenceWriter : child.comparedWriter;
          if (!writer) {
            writer = await SpillWriter.create(nextPath());
            if (side === 'reference') child.referenceWriter = writer;
            else child.comparedWriter = writer;
            child[side] = writer.path;
          }
          extend(side === 'reference' ? child.referenceBounds : child.comparedBounds, records, i);
          if (writer.add(records, i)) await writer.flush();
        }
      }
    }
  } finally {
    for (const child of children.values()) {
      await child.referenceWriter?.close();
      await child.comparedWriter?.close();
    }
  }
  return [...children.values()].map(({ referenceWriter, comparedWriter, ...child }) => ({
    ...child,
    referenceCount: referenceWriter?.count ?? 0,
    comparedCount: comparedWriter?.count ?? 0,
  }));
}

function extend(bounds: Bounds, records: PointRecords, i: number): void {
  for (let axis = 0; axis < 3; axis += 1) {
    const value = records.doubles[i * RECORD_DOUBLES + axis]!;
    if (value < bounds.min[axis]!) bounds.min[axis] = value;
    if (value > bounds.max[axis]!) bounds.max[axis] = value;
  }
}
