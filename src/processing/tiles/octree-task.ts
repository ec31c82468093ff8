import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Box, childBox, geometricErrorOf, nextSampled } from './octree-box.js';
import { writeContent } from './octree-content.js';
import { loadSpill, PointRecords, RECORD_DOUBLES, readSpill, SEGMENT_POINTS, SPILL_RECORD, SpillWriter } from './spill-file.js';
import { type SpillMeter, spillRemoved, spillWritten } from './spill-meter.js';
import { childCounts, splitTwoLevels } from './two-level-split.js';

/**
 * One unit of tiling work: the subtree of one box, whose points sit in spill files. A task
 * depends on nothing but its files, so tasks run in any order, on any thread, and give the
 * same tiles: that is what lets worker threads share the octree without changing a byte.
 *
 * A box with more than `memoryPoints` is never loaded: its points stream past once, the
 * tile's subsample is kept and the rest go to eight spill files, one per child, which become
 * tasks of their own; where most of the children are that large too, the pass goes two levels
 * down, the children's tiles made on the way and the grandchildren's spills the new tasks
 * (two-level-split.ts). A smaller box is loaded and its whole subtree built in memory. Each
 * tile holds an even subsample of the points in its box (at most `tilePoints`) and its
 * children hold the rest (refine ADD: every point is in exactly one tile).
 */
/**
 * Boxes of more points than this many boxes in memory are looked at for a split two levels down
 * (two-level-split.ts): a surface's box has four children of points, so a quarter of such a box
 * is still too large to load.
 */
const TWO_LEVELS_FROM = 4;

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
  /** Counts the bytes the spill files hold, on every thread (spill-meter.ts). */
  spillMeter?: SpillMeter;
  /** Records in one spill file (default SEGMENT_POINTS): a streamed box removes each once read. */
  segmentPoints?: number;
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

/**
 * A finished node; a streamed one's children are still to be built from `childTasks`, in this
 * order: tasks, or (split two levels down) children finished already with tasks of their own.
 */
export interface TaskResult {
  node: TileNode;
  childTasks: (OctreeTask | TaskResult)[];
}

export async function runOctreeTask(
  task: OctreeTask,
  settings: OctreeSettings,
  onPoints: (placed: number) => void,
): Promise<TaskResult> {
  if (task.count <= settings.memoryPoints || task.depth >= settings.maxDepth) {
    const records = await loadSpill(task.inputs, task.count);
    await removeInputs(task, settings);
    const builder = new InMemoryBuilder(records, task.count, settings, onPoints);
    return { node: await builder.build(task.box, task.address, task.depth), childTasks: [] };
  }
  if (task.depth + 1 < settings.maxDepth && task.count > TWO_LEVELS_FROM * settings.memoryPoints) {
    // Counting the children costs a read of the points: worth it where most will stream too.
    const counts = await childCounts(task, settings.tilePoints);
    const streamed = counts.filter((count) => count > settings.memoryPoints).reduce((sum, count) => sum + count, 0);
    if (streamed >= task.count / 2) return splitTwoLevels(task, counts, settings, onPoints);
  }
  return splitStreamed(task, settings, onPoints);
}

async function splitStreamed(task: OctreeTask, settings: OctreeSettings, onPoints: (placed: number) => void) {
  const splitter = await StreamSplitter.create(task, settings);
  // Each input segment goes once read: the spills hold about one copy of the points, not two.
  for await (const { records, count } of readSpill(task.inputs, { meter: settings.spillMeter }))
    await splitter.add(records, count);
  const result = await splitter.finish();
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
  private nextKept: number;

  private constructor(
    private readonly task: Omit<OctreeTask, 'inputs'>,
    private readonly settings: OctreeSettings,
    private readonly children: SpillWriter[],
  ) {
    this.kept = new PointRecords(Math.min(settings.tilePoints, task.count));
    this.nextKept = nextSampled(0, settings.tilePoints, task.count);
  }

  static async create(task: Omit<OctreeTask, 'inputs'>, settings: OctreeSettings): Promise<StreamSplitter> {
    const children = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map((octant) =>
        SpillWriter.create(path.join(settings.spillDir, `${task.address}${octant}.bin`), {
          meter: settings.spillMeter,
          segmentPoints: settings.segmentPoints ?? SEGMENT_POINTS,
        }),
      ),
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
    const first = this.index;
    // Kept are the indices isSampled keeps (below `total`: nextSampled never passes it).
    let kept = this.nextKept;
    for (let i = 0; i < count; i += 1) {
      if (first + i === kept) {
        this.kept.copyFrom(records, i, this.keptCount);
        this.keptCount += 1;
        kept = nextSampled(this.keptCount, keep, total);
        continue;
      }
      const at = i * RECORD_DOUBLES;
      const octant = (d[at]! >= cx ? 1 : 0) | (d[at + 1]! >= cy ? 2 : 0) | (d[at + 2]! >= cz ? 4 : 0);
      const child = this.children[octant]!;
      if (child.add(records, i)) await child.flush();
    }
    this.index = first + count;
    this.nextKept = kept;
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
        await child.discard();
        continue;
      }
      const childAddress = `${address}${octant}`;
      childTasks.push({
        inputs: child.paths,
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
    spillWritten(this.settings.spillMeter, this.keptCount * SPILL_RECORD);
    return [keptPath, ...this.children.flatMap((child) => child.paths)];
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
    let sampled = nextSampled(0, keep, total);
    for (let n = 0; n < total; n += 1) {
      const i = start + n;
      if (n === sampled) {
        this.kept.copyFrom(from, i, kept);
        kept += 1;
        sampled = nextSampled(kept, keep, total);
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

/** A task's input files hold its points, every one once: `count` records. */
async function removeInputs(task: OctreeTask, settings: OctreeSettings): Promise<void> {
  await Promise.all(task.inputs.map((file) => rm(file, { force: true })));
  spillRemoved(settings.spillMeter, task.count * SPILL_RECORD);
}
