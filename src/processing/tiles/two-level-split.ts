import path from 'node:path';
import { type Box, childBox, geometricErrorOf, nextSampled } from './octree-box.js';
import { writeContent } from './octree-content.js';
import type { OctreeSettings, OctreeTask, TaskResult, TileNode } from './octree-task.js';
import { PointRecords, RECORD_DOUBLES, readSpill, SEGMENT_POINTS, SpillWriter } from './spill-file.js';

/**
 * A streamed box split two levels down in one pass over its points, where a pass a level would
 * read and write every point twice: a larger cloud has more streamed levels, and this makes
 * each of them cheaper (docs/performance.md, "Scale").
 *
 * The children's counts come first, from a read of the box's points (childCounts), so each
 * child's subsample is known as its points stream past. The tiles are the same bytes as one level at a
 * time: the box keeps the indices isSampled keeps of its points; each child keeps those of its
 * own points in the same order, as its own task or its in-memory build would; the rest go to
 * the grandchildren's spills in that order, which is the order a child's pass would give them.
 * A child is the node its own task would make: a leaf holding all its points where it has at
 * most `min(memoryPoints, tilePoints)`, as the in-memory build makes one.
 */

/** Records per write buffer of a grandchild's spill: 64 spills of two buffers each stay at 16 MB. */
const GRANDCHILD_BUFFER_POINTS = 4_096;

interface Child {
  octant: number;
  box: Box;
  /** Its points: those of its octant less the ones the box's tile keeps. */
  count: number;
  kept: PointRecords;
  keptCount: number;
  seen: number;
  nextKept: number;
  /** A child with children of its own: their spills. */
  grandchildren?: SpillWriter[];
}

/**
 * The children's counts of a streamed box: per octant, its points less those the box's tile
 * keeps (the indices isSampled keeps of them all). A read of the spill, which stays.
 */
export async function childCounts(task: OctreeTask, keep: number): Promise<number[]> {
  const counts = [0, 0, 0, 0, 0, 0, 0, 0];
  const [cx, cy, cz] = task.box.center;
  let index = 0;
  let kept = 0;
  let nextKept = nextSampled(0, keep, task.count);
  for await (const { records, count } of readSpill(task.inputs)) {
    const d = records.doubles;
    for (let i = 0; i < count; i += 1, index += 1) {
      if (index === nextKept) {
        kept += 1;
        nextKept = nextSampled(kept, keep, task.count);
        continue;
      }
      const at = i * RECORD_DOUBLES;
      counts[(d[at]! >= cx ? 1 : 0) | (d[at + 1]! >= cy ? 2 : 0) | (d[at + 2]! >= cz ? 4 : 0)]! += 1;
    }
  }
  if (index !== task.count) throw new Error(`The point stream gave ${index} points where ${task.count} were counted`);
  return counts;
}

export async function splitTwoLevels(
  task: OctreeTask,
  childCounts: number[],
  settings: OctreeSettings,
  onPoints: (placed: number) => void,
): Promise<TaskResult> {
  const { tilePoints, memoryPoints } = settings;
  const children: (Child | undefined)[] = await Promise.all(
    childCounts.map(async (count, octant) =>
      count === 0 ? undefined : openChild(task, octant, count, count > Math.min(memoryPoints, tilePoints), settings),
    ),
  );
  const kept = new PointRecords(Math.min(tilePoints, task.count));
  let keptCount = 0;
  let nextKept = nextSampled(0, tilePoints, task.count);
  let index = 0;
  const [cx, cy, cz] = task.box.center;
  for await (const { records, count } of readSpill(task.inputs, { meter: settings.spillMeter })) {
    const d = records.doubles;
    for (let i = 0; i < count; i += 1, index += 1) {
      if (index === nextKept) {
        kept.copyFrom(records, i, keptCount);
        keptCount += 1;
        nextKept = nextSampled(keptCount, tilePoints, task.count);
        continue;
      }
      const at = i * RECORD_DOUBLES;
      const x = d[at]!;
      const y = d[at + 1]!;
      const z = d[at + 2]!;
      const child = children[(x >= cx ? 1 : 0) | (y >= cy ? 2 : 0) | (z >= cz ? 4 : 0)];
      if (!child) throw new Error(`A point of box ${task.address} fell in a child counted empty`);
      if (child.seen === child.nextKept) {
        child.seen += 1;
        child.kept.copyFrom(records, i, child.keptCount);
        child.keptCount += 1;
        child.nextKept = nextSampled(child.keptCount, tilePoints, child.count);
        continue;
      }
      child.seen += 1;
      const grand = child.grandchildren;
      if (!grand) throw new Error(`Child ${child.octant} of box ${task.address} has more points than counted`);
      const [gx, gy, gz] = child.box.center;
      const spill = grand[(x >= gx ? 1 : 0) | (y >= gy ? 2 : 0) | (z >= gz ? 4 : 0)]!;
      if (spill.add(records, i)) await spill.flush();
    }
  }
  if (index !== task.count) throw new Error(`The point stream gave ${index} points where ${task.count} were counted`);
  const content = await writeContent(settings, task.address, task.box, kept, 0, keptCount);
  const childResults: TaskResult[] = [];
  let placed = keptCount;
  for (const child of children) {
    if (!child) continue;
    childResults.push(await finishChild(task, child, settings));
    placed += child.keptCount;
  }
  onPoints(placed);
  const geometricError = geometricErrorOf(task.box, tilePoints);
  const node: TileNode = { address: task.address, box: task.box, geometricError, content, pointCount: keptCount, children: [] };
  return { node, childTasks: childResults };
}

async function openChild(task: OctreeTask, octant: number, count: number, split: boolean, settings: OctreeSettings) {
  const box = childBox(task.box, octant);
  const child: Child = {
    octant,
    box,
    count,
    kept: new PointRecords(Math.min(settings.tilePoints, count)),
    keptCount: 0,
    seen: 0,
    nextKept: nextSampled(0, settings.tilePoints, count),
  };
  if (!split) return child;
  const address = `${task.address}${octant}`;
  child.grandchildren = await Promise.all(
    [0, 1, 2, 3, 4, 5, 6, 7].map((below) =>
      SpillWriter.create(path.join(settings.spillDir, `${address}${below}.bin`), {
        meter: settings.spillMeter,
        segmentPoints: settings.segmentPoints ?? SEGMENT_POINTS,
        bufferPoints: GRANDCHILD_BUFFER_POINTS,
      }),
    ),
  );
  return child;
}

/** A child's tile and node, and a task for each of its children that has points. */
async function finishChild(task: OctreeTask, child: Child, settings: OctreeSettings): Promise<TaskResult> {
  const address = `${task.address}${child.octant}`;
  const depth = task.depth + 1;
  if (child.seen !== child.count) throw new Error(`Child ${address} got ${child.seen} points where ${child.count} were counted`);
  const content = await writeContent(settings, address, child.box, child.kept, 0, child.keptCount);
  const grand = child.grandchildren;
  const node: TileNode = {
    address,
    box: child.box,
    geometricError: grand ? geometricErrorOf(child.box, settings.tilePoints) : 0,
    content,
    pointCount: child.keptCount,
    children: [],
  };
  if (!grand) return { node, childTasks: [] };
  const childTasks: OctreeTask[] = [];
  for (const [below, spill] of grand.entries()) {
    await spill.close();
    if (spill.count === 0) {
      await spill.discard();
      continue;
    }
    childTasks.push({
      inputs: spill.paths,
      count: spill.count,
      box: childBox(child.box, below),
      address: `${address}${below}`,
      depth: depth + 1,
    });
  }
  return { node, childTasks };
}
