import { decodeLazChunk, type LazChunkRequest } from '../point-clouds/laz-chunks.js';
import { serveThreadTasks } from '../thread-pool.js';
import { type OctreeSettings, type OctreeTask, runOctreeTask, type TaskResult } from './octree-task.js';

/**
 * A tiling thread (tile-workers.ts): runs one octree task per message, noting placed points on
 * the way so the job's progress keeps moving. While the input is decoded, before there are
 * tasks, it decompresses LAZ chunks.
 */
export type TileRequest = { task: OctreeTask; settings: OctreeSettings } | { lazChunk: LazChunkRequest };
export type TileResult = TaskResult | Uint8Array;

serveThreadTasks<TileRequest, TileResult, number>(async (request, notePoints) => {
  if ('task' in request) return { result: await runOctreeTask(request.task, request.settings, notePoints) };
  const records = await decodeLazChunk(request.lazChunk);
  return { result: records, transfer: [records.buffer as ArrayBuffer] };
});
