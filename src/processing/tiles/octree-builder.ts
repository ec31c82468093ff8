import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PointBatch } from '../point-clouds/point-cloud.js';
import { type Box, childBox, geometricErrorOf, isSampled, octantOf } from './octree-box.js';
import { pointContentGlb } from './point-content.js';
import { readSpill, SpillWriter } from './spill-file.js';

/**
 * The level-of-detail octree. Each tile holds an even subsample of the points in its box (at
 * most `tilePoints`) and its children hold the rest (refine ADD: every point is in exactly one
 * tile). A box with more than `memoryPoints` is never loaded: its points stream past once,
 * the subsample is kept and the rest go to eight spill files on disk, one per child, which
 * are built the same way in turn. Memory is bounded by `memoryPoints`, not by the file.
 */
export interface OctreeOptions {
  tilePoints: number;
  memoryPoints: number;
  maxDepth: number;
  withColors: boolean;
  /** Where .glb files go; their names are returned relative to `contentRoot`. */
  contentDir: string;
  contentRoot: string;
  spillDir: string;
  onPoints: (placed: number) => void;
}

export interface TileNode {
  address: string;
  box: Box;
  geometricError: number;
  content: string;
  pointCount: number;
  children: TileNode[];
}

export async function buildOctree(source: AsyncIterable<PointBatch>, count: number, box: Box, options: OctreeOptions) {
  await mkdir(options.contentDir, { recursive: true });
  await mkdir(options.spillDir, { recursive: true });
  try {
    return await buildStreamed(source, count, box, 'r', 0, options);
  } finally {
    await rm(options.spillDir, { recursive: true, force: true });
  }
}

async function buildStreamed(
  source: AsyncIterable<PointBatch>,
  count: number,
  box: Box,
  address: string,
  depth: number,
  options: OctreeOptions,
): Promise<TileNode> {
  if (count <= options.memoryPoints || depth >= options.maxDepth) {
    const loaded = await load(source, count, options.withColors);
    return buildInMemory(loaded, allIndices(loaded.count), box, address, depth, options);
  }
  const keep = options.tilePoints;
  const kept = { positions: new Float64Array(keep * 3), colors: options.withColors ? new Uint8Array(keep * 3) : undefined };
  let keptCount = 0;
  const spills = await Promise.all(
    [0, 1, 2, 3, 4, 5, 6, 7].map((octant) => SpillWriter.create(path.join(options.spillDir, `${address}${octant}.bin`))),
  );
  let index = 0;
  for await (const batch of source) {
    const { positions, colors } = batch;
    for (let i = 0; i < batch.count; i += 1, index += 1) {
      if (isSampled(index, keep, count)) {
        kept.positions.set(positions.subarray(i * 3, i * 3 + 3), keptCount * 3);
        if (kept.colors && colors) kept.colors.set(colors.subarray(i * 3, i * 3 + 3), keptCount * 3);
        keptCount += 1;
      } else {
        const octant = octantOf(box, positions[i * 3]!, positions[i * 3 + 1]!, positions[i * 3 + 2]!);
        const spill = spills[octant]!;
        if (spill.add(positions, colors, i)) await spill.flush();
      }
    }
  }
  await Promise.all(spills.map((spill) => spill.close()));
  if (index !== count) throw new Error(`The point stream gave ${index} points where ${count} were counted`);
  const content = await writeContent(address, box, kept.positions, kept.colors, keptCount, options);
  const children: TileNode[] = [];
  for (const [octant, spill] of spills.entries()) {
    if (spill.count > 0) {
      const source = readSpill(spill.path, options.withColors);
      children.push(await buildStreamed(source, spill.count, childBox(box, octant), `${address}${octant}`, depth + 1, options));
    }
    await rm(spill.path, { force: true });
  }
  return { address, box, geometricError: geometricErrorOf(box, keep), content, pointCount: keptCount, children };
}

interface LoadedPoints {
  count: number;
  positions: Float64Array;
  colors: Uint8Array | undefined;
}

async function load(source: AsyncIterable<PointBatch>, count: number, withColors: boolean): Promise<LoadedPoints> {
  const positions = new Float64Array(count * 3);
  const colors = withColors ? new Uint8Array(count * 3) : undefined;
  let at = 0;
  for await (const batch of source) {
    if (at + batch.count > count) throw new Error('The point stream gave more points than were counted');
    positions.set(batch.positions.subarray(0, batch.count * 3), at * 3);
    if (colors && batch.colors) colors.set(batch.colors.subarray(0, batch.count * 3), at * 3);
    at += batch.count;
  }
  if (at !== count) throw new Error(`The point stream gave ${at} points where ${count} were counted`);
  return { count, positions, colors };
}

function allIndices(count: number): Uint32Array {
  const indices = new Uint32Array(count);
  for (let i = 0; i < count; i += 1) indices[i] = i;
  return indices;
}

async function buildInMemory(
  points: LoadedPoints,
  indices: Uint32Array,
  box: Box,
  address: string,
  depth: number,
  options: OctreeOptions,
): Promise<TileNode> {
  const total = indices.length;
  const leaf = total <= options.tilePoints || depth >= options.maxDepth;
  const keep = leaf ? total : options.tilePoints;
  const positions = new Float64Array(keep * 3);
  const colors = points.colors ? new Uint8Array(keep * 3) : undefined;
  const octants: number[][] = [[], [], [], [], [], [], [], []];
  let kept = 0;
  for (let n = 0; n < total; n += 1) {
    const i = indices[n]!;
    if (leaf || isSampled(n, keep, total)) {
      positions.set(points.positions.subarray(i * 3, i * 3 + 3), kept * 3);
      if (colors && points.colors) colors.set(points.colors.subarray(i * 3, i * 3 + 3), kept * 3);
      kept += 1;
    } else {
      const p = points.positions;
      octants[octantOf(box, p[i * 3]!, p[i * 3 + 1]!, p[i * 3 + 2]!)]!.push(i);
    }
  }
  const content = await writeContent(address, box, positions, colors, kept, options);
  const children: TileNode[] = [];
  for (const [octant, members] of octants.entries()) {
    if (members.length === 0) continue;
    const child = Uint32Array.from(members);
    octants[octant] = [];
    children.push(await buildInMemory(points, child, childBox(box, octant), `${address}${octant}`, depth + 1, options));
  }
  return { address, box, geometricError: leaf ? 0 : geometricErrorOf(box, keep), content, pointCount: kept, children };
}

async function writeContent(
  address: string,
  box: Box,
  positions: Float64Array,
  colors: Uint8Array | undefined,
  count: number,
  options: OctreeOptions,
): Promise<string> {
  const file = path.join(options.contentDir, `${address}.glb`);
  await writeFile(file, await pointContentGlb(box, positions, colors, count));
  options.onPoints(count);
  return path.relative(options.contentRoot, file).split(path.sep).join('/');
}
