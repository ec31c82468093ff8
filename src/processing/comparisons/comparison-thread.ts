import { serveThreadTasks } from '../thread-pool.js';
import { type CellTask, runCellTask } from './cell-task.js';
import { type EncodedDistances, encodedBuffers } from './distance-outputs.js';

/** A comparison thread: measures one cell per task and moves its encoded outputs back (compare-clouds.ts). */
serveThreadTasks<CellTask, EncodedDistances>(async (task) => {
  const encoded = await runCellTask(task);
  return { result: encoded, transfer: encodedBuffers(encoded) };
});
