import { parentPort } from 'node:worker_threads';
import { decodeLazChunk, type LazChunkRequest } from '../point-clouds/laz-chunks.js';
import { type OctreeSettings, type OctreeTask, runOctreeTask } from './octree-task.js';

/**
 * A tiling worker thread: runs one octree task per message and answers with its result,
 * reporting placed points on the way so the job's progress keeps moving. While the input is
 * decoded, before there are tasks, it decompresses LAZ chunks.
 */
export type TileRequest = { id: number } & (
  | { task: OctreeTask; settings: OctreeSettings; lazChunk?: undefined }
  | { lazChunk: LazChunkRequest; task?: undefined }
);

export type TileReply =
  | { id: number; points: number }
  | { id: number; result: Awaited<ReturnType<typeof runOctreeTask>> }
  | { id: number; records: Uint8Array }
  | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('tile-worker runs as a worker thread only');
const failed = (id: number) => (error: unknown) =>
  port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies TileReply);
port.on('message', (request: TileRequest) => {
  const { id } = request;
  if ('settings' in request) {
    const onPoints = (points: number) => port.postMessage({ id, points } satisfies TileReply);
    runOctreeTask(request.task, request.settings, onPoints).then(
      (result) => port.postMessage({ id, result } satisfies TileReply),
      failed(id),
    );
    return;
  }
  decodeLazChunk(request.lazChunk).then(
    (records) => port.postMessage({ id, records } satisfies TileReply, [records.buffer as ArrayBuffer]),
    failed(id),
  );
});
