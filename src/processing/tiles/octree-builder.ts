import { mkdir, rm } from 'node:fs/promises';
import { type OctreeSettings, type OctreeTask, runOctreeTask, type TaskResult, type TileNode } from './octree-task.js';
import type { TileWorkers } from './tile-workers.js';

export type { OctreeSettings, TileNode } from './octree-task.js';

export interface OctreeOptions extends OctreeSettings {
  onPoints: (placed: number) => void;
  /** Threads to run the tasks on; without them the tasks run one at a time on this thread. */
  workers?: TileWorkers;
}

/**
 * The level-of-detail octree (see octree-task.ts): the root box is the first task (or was
 * split already while the input was decoded), each streamed box adds its children as tasks, and the tree is put
 * together in octant order whatever order the tasks finish in, so threads change the time,
 * not the tiles.
 */
export async function buildOctree(
  root: { task: OctreeTask } | { result: TaskResult },
  options: OctreeOptions,
): Promise<TileNode> {
  const { onPoints, workers, ...settings } = options;
  await mkdir(settings.contentDir, { recursive: true });
  await mkdir(settings.spillDir, { recursive: true });
  const execute = workers
    ? (task: OctreeTask) => workers.run(task, settings)
    : oneAtATime((task: OctreeTask) => runOctreeTask(task, settings, onPoints));
  // After a failure the queued tasks are not started: their files are about to be removed.
  let failed = false;
  const build = async (task: OctreeTask | TaskResult): Promise<TileNode> => {
    if (failed) throw new Error('Tiling stopped after an earlier failure');
    const done = 'node' in task ? task : execute(task);
    const { node, childTasks } = await Promise.resolve(done).catch((error: unknown) => {
      failed = true;
      throw error;
    });
    // A loaded box comes back whole; a streamed one still has its children to build.
    if (childTasks.length > 0) node.children = await Promise.all(childTasks.map(build));
    return node;
  };
  try {
    return await build('task' in root ? root.task : root.result);
  } finally {
    await rm(settings.spillDir, { recursive: true, force: true });
  }
}

/** Runs calls one after the other, so a thread holds one loaded box at a time. */
function oneAtATime(run: (task: OctreeTask) => Promise<TaskResult>): (task: OctreeTask) => Promise<TaskResult> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const next = last.then(() => run(task));
    last = next.catch(() => {});
    return next;
  };
}
