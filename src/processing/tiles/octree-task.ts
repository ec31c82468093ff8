import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Box, childBox, geometricErrorOf, isSampled } from './octree-box.js';
import { pointContentGlb } from './point-content.js';
import { loadSpill, PointRecords, RECORD_DOUBLES, readSpill, SPILL_RECORD, SpillWriter } from './spill-file.js';

/**
 * One unit of tiling work: the subtree of one box, whose points sit in spill files. A task
 * depends on nothing but its files, so tasks run in any order, on any thread, and give the
 * same tiles: that is what lets worker threads share the octree without changing a byte.
 *
 * A box with more than `memoryPoints` is never loaded: its points stream past once, the
 * tile's subsample is kept and the rest go to eight spill files, one per child, which become
 * tasks of their own. A smaller box is loaded and its whole subtree built in memory. Each
 * tile holds an even subsample of the points in its box (at most `tilePoints`) and its
 * children hold the rest (refine ADD: every point is in exactly one tile).
 */
export interface OctreeSettings {
  tilePoints: number;
  memoryPoints: number;
  maxDepth: number;
  withColors: boolean;
  /** The file's intensity range, mapped to 0..1 in the tiles; undefined: the tiles carry no intensity. */
  intensityRange?: [number, number];
  withClassification: boolean;
  /** The records' float is a comparison's distance, written as `_DISTANCE` (no `_INTENSITY` then). */
  withDistance?: boolean;
  /** Where .glb files go; their names are returned relative to `contentRoot`. */
  contentDir: string;
  contentRoot: string;
  spillDir: string;
  /** Georeferenced clouds: the point (file coordinates) the tileset's frame is relative to. */
  origin?: [number, number, number];
}

export interface OctreeTask {
  /** Spill files holding the box's points, in order; the task deletes them once read. */
  inputs: string[];
  count: number;
  box: Box;
  address: string;
  depth: number;
}

export interface TileNode {
  address: string;
  box: Box;
  geometricError: number;
  content: string;
  pointCount: number;
  children: TileNode[];
}

/** A finished node; a streamed one's children are still to be built from `childTasks`, in this order. */
export interface TaskResult {
  node: TileNode;
  childTasks: OctreeTask[];
}

export async function runOctreeTask(
  task: OctreeTask,
  settings: OctreeSettings,
  onPoints: (placed: number) => void,
): Promise<TaskResult> {
  if (task.count <= settings.memoryPoints || task.depth >= settings.maxDepth) {
    const records = await loadSpill(task.inputs, task.count);
    await removeAll(task.inputs);
    const builder = new InMemoryBuilder(records, task.count, settings, onPoints);
    return { node: await builder.build(task.box, task.address, task.depth), childTasks: [] };
  }
  return splitStreamed(task, settings, onPoints);
}

async function splitStreamed(task: OctreeTask, settings: OctreeSettings, onPoints: (placed: number) => void) {
  const splitter = await StreamSplitter.create(task, settings);
  for await (const { records, count } of readSpill(task.inputs)) await splitter.add(records, count);
  const result = await splitter.finish();
  await removeAll(task.inputs);
  onPoints(result.node.pointCount);
  return result;
}

/**
 * A streamed box: fed its points in order, it keeps the tile's subsample and sends the rest to
 * one spill file per child. Fed from a spill by a task, or straight from the decoder for the
 * root box when the file declares its count and bounds.
 */
export class StreamSplitter {
  private readonly kept: PointRecords;
  private keptCount = 0;
  private index = 0;

  private constructor(
    private readonly task: Omit<OctreeTask, 'inputs'>,
    private readonly settings: OctreeSettings,
    private readonly children: SpillWriter[],
  ) {
    this.kept = new PointRecords(Math.min(settings.tilePoints, task.count));
  }

  static async create(task: Omit<OctreeTask, 'inputs'>, settings: OctreeSettings): Promise<StreamSplitter> {
    const children = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map((octant) => SpillWriter.create(path.join(settings.spillDir, `${task.address}${octant}.bin`))),
    );
    return new StreamSplitter(task, settings, children);
  }

  /** The points seen so far. */
  get seen(): number {
    return this.index;
  }

  get count(): number {
    return this.task.count;
  }

  get box(): Box {
    return this.task.box;
  }

  /** Takes the next `count` records; they may be overwritten once this resolves. */
  async add(records: PointRecords, count: number): Promise<void> {
    const keep = this.settings.tilePoints;
    const total = this.task.count;
    const [cx, cy, cz] = this.task.box.center;
    const d = records.doubles;
    for (let i = 0; i < count; i += 1, this.index += 1) {
      if (this.index < total && isSampled(this.index, keep, total)) {
        this.kept.copyFrom(records, i, this.keptCount);
        this.keptCount += 1;
        continue;
      }
      const at = i * RECORD_DOUBLES;
      const octant = (d[at]! >= cx ? 1 : 0) | (d[at + 1]! >= cy ? 2 : 0) | (d[at + 2]! >= cz ? 4 : 0);
      const child = this.children[octant]!;
      if (child.add(records, i)) await child.flush();
    }
  }

  /** Closes the child spills and writes the tile: the node, and a task for each child that has points. */
  async finish(): Promise<TaskResult> {
    const { box, address, count, depth } = this.task;
    await Promise.all(this.children.map((child) => child.close()));
    if (this.index !== count) throw new Error(`The point stream gave ${this.index} points where ${count} were counted`);
    const content = await writeContent(this.settings, address, box, this.kept, 0, this.keptCount);
    const childTasks: OctreeTask[] = [];
    for (const [octant, child] of this.children.entries()) {
      if (child.count === 0) {
        await rm(child.path, { force: true });
        continue;
      }
      const childAddress = `${address}${octant}`;
      childTasks.push({
        inputs: [child.path],
        count: child.count,
        box: childBox(box, octant),
        address: childAddress,
        depth: depth + 1,
      });
    }
    const geometricError = geometricErrorOf(box, this.settings.tilePoints);
    return { node: { address, box, geometricError, content, pointCount: this.keptCount, children: [] }, childTasks };
  }

  /** Gives up: the kept points and the child spills, in that order, hold every point seen. */
  async abandon(keptPath: string): Promise<string[]> {
    await Promise.all(this.children.map((child) => child.close()));
    await writeFile(keptPath, this.kept.bytes.subarray(0, this.keptCount * SPILL_RECORD));
    return [keptPath, ...this.children.map((child) => child.path)];
  }
}

/**
 * A loaded box's subtree. Two buffers take turns: a node's points are in one, its children's
 * are partitioned (stably, by octant) into the same range of the other, so the whole subtree
 * needs twice the box's points and nothing per node.
 */
class InMemoryBuilder {
  private readonly other: PointRecords;
  private readonly kept: PointRecords;
  private readonly octants: Uint8Array;

  constructor(
    private readonly loaded: PointRecords,
    count: number,
    private readonly settings: OctreeSettings,
    private readonly onPoints: (placed: number) => void,
  ) {
    this.other = new PointRecords(count);
    this.kept = new PointRecords(Math.min(count, settings.tilePoints));
    this.octants = new Uint8Array(count);
  }

  build(box: Box, address: string, depth: number): Promise<TileNode> {
    return this.node(this.loaded, this.other, 0, this.loaded.capacity, box, address, depth);
  }

  private async node(
    from: PointRecords,
    to: PointRecords,
    start: number,
    total: number,
    box: Box,
    address: string,
    depth: number,
  ): Promise<TileNode> {
    const { tilePoints, maxDepth } = this.settings;
    if (total <= tilePoints || depth >= maxDepth) {
      const content = await writeContent(this.settings, address, box, from, start, total);
      this.onPoints(total);
      return { address, box, geometricError: 0, content, pointCount: total, children: [] };
    }
    const keep = tilePoints;
    const [cx, cy, cz] = box.center;
    const d = from.doubles;
    const octants = this.octants;
    const sizes = [0, 0, 0, 0, 0, 0, 0, 0];
    let kept = 0;
    for (let n = 0; n < total; n += 1) {
      const i = start + n;
      if (isSampled(n, keep, total)) {
        this.kept.copyFrom(from, i, kept);
        kept += 1;
        octants[n] = 8;
        continue;
      }
      const at = i * RECORD_DOUBLES;
      const octant = (d[at]! >= cx ? 1 : 0) | (d[at + 1]! >= cy ? 2 : 0) | (d[at + 2]! >= cz ? 4 : 0);
      octants[n] = octant;
      sizes[octant]! += 1;
    }
    const content = await writeContent(this.settings, address, box, this.kept, 0, kept);
    this.onPoints(kept);
    const starts: number[] = [];
    let next = start;
    for (const size of sizes) {
      starts.push(next);
      next += size;
    }
    const fill = [...starts];
    for (let n = 0; n < total; n += 1) {
      const octant = octants[n]!;
      if (octant === 8) continue;
      to.copyFrom(from, start + n, fill[octant]!);
      fill[octant]! += 1;
    }
    const children: TileNode[] = [];
    for (let octant = 0; octant < 8; octant += 1) {
      if (sizes[octant] === 0) continue;
      children.push(
        await this.node(to, from, starts[octant]!, sizes[octant]!, childBox(box, octant), `${address}${octant}`, depth + 1),
      );
    }
    return { address, box, geometricError: geometricErrorOf(box, keep), content, pointCount: kept, children };
  }
}

async function writeContent(
  settings: OctreeSettings,
  address: string,
  box: Box,
  records: PointRecords,
  first: number,
  count: number,
): Promise<string> {
  const file = path.join(settings.contentDir, `${address}.glb`);
  await writeFile(file, pointContentGlb(box, records, first, count, settings, settings.origin));
  return path.relative(settings.contentRoot, file).split(path.sep).join('/');
}

async function removeAll(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map((file) => rm(file, { force: true })));
}
