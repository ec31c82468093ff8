import { availableParallelism } from 'node:os';
import { parentPort, type Transferable, Worker } from 'node:worker_threads';
import { ProcessingError, type ProcessingErrorCode } from './processing-error.js';

/** Threads a processing runs on by default: one per core, at most 4 (memory is a task's bound times this). */
export const DEFAULT_THREADS = Math.min(4, availableParallelism());

/**
 * Worker threads that run tasks of one kind, one task per thread at a time, so memory stays a
 * task's bound times the thread count (docs/processing.md). Used by the point-cloud tiler and
 * by comparisons; the thread's side is serveThreadTasks below.
 */
export class ThreadPool<Request, Result, Note = never> {
  private readonly idle: Worker[] = [];
  private readonly queue: { message: TaskMessage<Request>; transfer: readonly Transferable[]; settle: Settle<Result> }[] = [];
  private readonly running = new Map<number, Settle<Result>>();
  private nextId = 0;
  private failure: Error | undefined;

  /**
   * `entry` from threadEntry; `onNote` hears what a thread says on the way (progress), `name`
   * names the pool in the error when a thread dies.
   */
  constructor(
    private readonly entry: URL,
    size: number,
    private readonly name: string,
    private readonly onNote: (note: Note) => void = () => {},
  ) {
    for (let i = 0; i < size; i += 1) this.idle.push(this.spawn());
  }

  /** Runs one task on the next free thread; `transfer` lists buffers moved to it rather than copied. */
  run(request: Request, transfer: readonly Transferable[] = []): Promise<Result> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ message: { id: this.nextId++, request }, transfer, settle: { resolve, reject } });
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
      const { message, transfer, settle } = this.queue.shift()!;
      settle.worker = worker;
      this.running.set(message.id, settle);
      worker.postMessage(message, transfer);
    }
  }

  private spawn(): Worker {
    const worker = startWorker(this.entry);
    worker.on('message', (reply: ThreadReply<Result, Note>) => {
      if ('note' in reply) {
        this.onNote(reply.note);
        return;
      }
      const settle = this.running.get(reply.id);
      if (!settle) return;
      this.running.delete(reply.id);
      this.idle.push(worker);
      // A ProcessingError says what is wrong with an input: it stays one across the thread.
      if ('error' in reply)
        settle.reject(reply.processing ? new ProcessingError(reply.processing, reply.error) : new Error(reply.error));
      else settle.resolve(reply.result);
      this.dispatch();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`A ${this.name} thread stopped with exit code ${code}`));
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

interface TaskMessage<Request> {
  id: number;
  request: Request;
}

type ThreadReply<Result, Note> =
  | { id: number; result: Result }
  | { id: number; note: Note }
  | { id: number; error: string; processing?: ProcessingErrorCode };

interface Settle<T> {
  resolve: (result: T) => void;
  reject: (error: Error) => void;
  worker?: Worker;
}

/** A task's answer in the thread: its result and the buffers to move (not copy) back with it. */
export interface ThreadAnswer<Result> {
  result: Result;
  transfer?: readonly Transferable[];
}

/**
 * The thread's side of a ThreadPool: answers every task with `handle`'s result, or its error's
 * message; `note` sends something on the way (progress).
 */
export function serveThreadTasks<Request, Result, Note = never>(
  handle: (request: Request, note: (note: Note) => void) => Promise<ThreadAnswer<Result>>,
): void {
  const port = parentPort;
  if (!port) throw new Error('serveThreadTasks runs in a worker thread only');
  port.on('message', ({ id, request }: TaskMessage<Request>) => {
    const note = (value: Note) => port.postMessage({ id, note: value } satisfies ThreadReply<Result, Note>);
    handle(request, note).then(
      ({ result, transfer }) => port.postMessage({ id, result } satisfies ThreadReply<Result, Note>, transfer),
      (error: unknown) => {
        const reply: ThreadReply<Result, Note> = {
          id,
          error: error instanceof Error ? error.message : String(error),
          processing: error instanceof ProcessingError ? error.code : undefined,
        };
        port.postMessage(reply);
      },
    );
  });
}

/**
 * The entry of a thread module beside the caller: `name` with the caller's own extension, .ts
 * when running from source (tsx, vitest), .js when built.
 */
export function threadEntry(callerUrl: string, name: string): URL {
  return new URL(`${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}

/**
 * Built code runs the entry directly. From source the thread must first register tsx's loader
 * and only then import the .ts entry: a loader given by --import registers too late for a
 * worker's own entry point on Node 20.
 */
function startWorker(entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry);
  const tsx = typeof import.meta.resolve === 'function' ? import.meta.resolve('tsx/esm/api') : 'tsx/esm/api';
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}
