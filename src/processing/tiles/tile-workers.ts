import { Worker } from 'node:worker_threads';
import type { LazChunkRequest } from '../point-clouds/laz-chunks.js';
import type { OctreeSettings, OctreeTask, TaskResult } from './octree-task.js';
import type { TileReply, TileRequest } from './tile-worker.js';

/**
 * Worker threads that run octree tasks, one task per thread at a time, so memory stays the
 * task's bound times the thread count. Started before the decoding pass, so their start-up
 * overlaps it.
 */
export class TileWorkers {
  private readonly idle: Worker[] = [];
  private readonly queue: { request: TileRequest; settle: Settle<never> }[] = [];
  private readonly running = new Map<number, Settle<never>>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor(
    size: number,
    private readonly onPoints: (placed: number) => void,
  ) {
    for (let i = 0; i < size; i += 1) this.idle.push(this.spawn());
  }

  run(task: OctreeTask, settings: OctreeSettings): Promise<TaskResult> {
    return this.send({ id: this.nextId++, task, settings });
  }

  /** Decompresses a LAZ chunk on a worker: to lend the LAZ reader while the input is decoded. */
  readonly decodeLazChunk = (lazChunk: LazChunkRequest): Promise<Uint8Array> => this.send({ id: this.nextId++, lazChunk });

  private send<T>(request: TileRequest): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ request, settle: { resolve, reject } as Settle<unknown> as Settle<never> });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    const workers = [...this.idle, ...[...this.running.values()].map((settle) => settle.worker)];
    this.idle.length = 0;
    await Promise.all(workers.filter((worker): worker is Worker => worker !== undefined).map((worker) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const { request, settle } = this.queue.shift()!;
      settle.worker = worker;
      this.running.set(request.id, settle);
      worker.postMessage(request);
    }
  }

  private spawn(): Worker {
    const worker = startWorker();
    worker.on('message', (reply: TileReply) => {
      if ('points' in reply) {
        this.onPoints(reply.points);
        return;
      }
      const settle = this.running.get(reply.id);
      if (!settle) return;
      this.running.delete(reply.id);
      this.idle.push(worker);
      if ('error' in reply) settle.reject(new Error(reply.error));
      else settle.resolve(('result' in reply ? reply.result : reply.records) as never);
      this.dispatch();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`A tiling worker stopped with exit code ${code}`));
    });
    return worker;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const settle of this.running.values()) settle.reject(error);
    this.running.clear();
    for (const { settle } of this.queue.splice(0)) settle.reject(error);
  }
}

interface Settle<T> {
  resolve: (result: T) => void;
  reject: (error: Error) => void;
  worker?: Worker;
}

/**
 * Built code runs tile-worker.js directly. From source (tsx, vitest) the worker must first
 * register tsx's loader and only then import the .ts entry: a loader given by --import
 * registers too late for a worker's own entry point on Node 20.
 */
function startWorker(): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './tile-worker.ts' : './tile-worker.js', import.meta.url);
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry);
  const tsx = typeof import.meta.resolve === 'function' ? import.meta.resolve('tsx/esm/api') : 'tsx/esm/api';
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}
