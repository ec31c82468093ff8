import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { CompiledQuery, QueryResult } from 'kysely';

/**
 * The worker's code, as plain JavaScript so that it runs the same under tsc's output, tsx and
 * vitest. It owns the writer connection and runs one statement per message.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driverPath);
const db = new SQLite(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const statements = new Map();
const toBuffer = (value) => (value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value);
// The platform's SQL functions (sqlite-functions.ts), loaded when a statement first names one:
// from source it takes tsx's loader, a tenth of a second of work that most stores never need.
let functions;
let functionsReady = false;
const loadFunctions = () => (functions ??= (async () => {
  if (workerData.tsxApi) (await import(workerData.tsxApi)).register();
  const { registerSqliteFunctions } = await import(workerData.functionsUrl);
  registerSqliteFunctions(db);
  functionsReady = true;
})());
async function prepare(sql) {
  try {
    return db.prepare(sql);
  } catch (error) {
    if (functionsReady || !/^no such function: /.test(String(error && error.message))) throw error;
    await loadFunctions();
    return db.prepare(sql);
  }
}
async function handle({ id, sql, parameters, close }) {
  if (close) {
    db.close();
    parentPort.postMessage({ id });
    return;
  }
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = await prepare(sql);
      if (statements.size > 2000) statements.clear();
      statements.set(sql, statement);
    }
    const values = parameters.map(toBuffer);
    if (statement.reader) {
      parentPort.postMessage({ id, result: { rows: statement.all(values) } });
    } else {
      const { changes, lastInsertRowid } = statement.run(values);
      parentPort.postMessage({ id, result: { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] } });
    }
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
}
// One statement at a time, in the order sent, even while one waits for the functions to load. What
// handle() does not answer (a failing close) ends the worker, as an uncaught error would.
let previous = Promise.resolve();
parentPort.on('message', (message) => {
  previous = previous.then(() => handle(message)).catch((error) => process.nextTick(() => { throw error; }));
});
`;

/**
 * Where the worker finds registerSqliteFunctions: the built .js beside this file, or from source
 * (tsx, vitest) the .ts, which it imports after registering tsx's loader in its own thread.
 */
function sqliteFunctionsModule(): { functionsUrl: string; tsxApi?: string } {
  const fromSource = import.meta.url.endsWith('.ts');
  const functionsUrl = new URL(fromSource ? './sqlite-functions.ts' : './sqlite-functions.js', import.meta.url).href;
  if (!fromSource) return { functionsUrl };
  // As tile-workers.ts does: the ESM entry of tsx's API (its CommonJS one fails to load in a worker).
  return { functionsUrl, tsxApi: typeof import.meta.resolve === 'function' ? import.meta.resolve('tsx/esm/api') : 'tsx/esm/api' };
}

type Reply = { id: number; result?: QueryResult<unknown>; error?: { message: string; code?: string } };

/**
 * The writer connection of a SQLite store, in a worker thread. A statement runs synchronously in
 * better-sqlite3, and a large change (a subtree move rewrites the paths of every node in it, and
 * its commit writes them all to the WAL) would otherwise hold the event loop for seconds. In the
 * worker it holds only the worker; the main thread keeps serving reads from its own connections,
 * which WAL lets see the last committed state meanwhile.
 */
export class SqliteWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { resolve: (result: QueryResult<unknown>) => void; reject: (error: Error) => void }
  >();
  private nextId = 0;

  constructor(file: string) {
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driverPath, ...sqliteFunctionsModule() } });
    // Referenced only while a statement is pending, so an idle store never keeps a process alive.
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error) => this.failAll(error));
  }

  run<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.send({ sql: query.sql, parameters: query.parameters }) as Promise<QueryResult<R>>;
  }

  async close(): Promise<void> {
    await this.send({ close: true });
    await this.worker.terminate();
  }

  private send(message: object): Promise<QueryResult<unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error) {
      // The same error class and code as a statement run in this thread, for callers that test them.
      waiting.reject(new SQLite.SqliteError(reply.error.message, reply.error.code ?? 'SQLITE_ERROR'));
    } else {
      waiting.resolve(reply.result as QueryResult<unknown>);
    }
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
