import { setTimeout as delay } from 'node:timers/promises';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { ApiError } from '../../domain/errors.js';
import { preparedName } from './prepared-statements.js';

// int8 (COUNT, SUM, bigint columns) as numbers: sizes stay far below 2^53. Set here, where every
// pool and client the platform makes comes from.
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * PostgreSQL connections that die (a restart, a failover, pg_terminate_backend) must cost a
 * request at most, never the process (docs/design/processes.md#lost-connections). pg reports a
 * connection lost while idle as an 'error' event on its pool, or on the client when it is checked
 * out between two statements; an event without a listener ends the process. Every pool and client
 * the platform makes comes from here, with listeners on both.
 */

/** The server ended the session: admin_shutdown, crash_shutdown, cannot_connect_now; class 08: connection exceptions. */
const LOST_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const LOST_ERRNOS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const LOST_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended unexpectedly/i;

/** Whether an error means the database connection was lost or could not be made (not a refusal by SQL). */
export function isConnectionLost(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (LOST_SQLSTATES.has(code) || LOST_ERRNOS.has(code))) return true;
    if (typeof message === 'string' && LOST_MESSAGES.test(message)) return true;
    current = cause;
  }
  return false;
}

/**
 * A statement or a connection lost with its database, as the request's answer: 503
 * DatabaseUnavailable with Retry-After (the pool makes a new connection for the retry). Only
 * errors of these pools become it: a peer's reset socket elsewhere (S3, SMTP) stays what it is.
 */
function unavailable(error: unknown): ApiError {
  const refusal = new ApiError('DatabaseUnavailable');
  refusal.cause = error;
  return refusal;
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unparseable URL';
  }
}

/** A pg error's own message, which never holds the URL or its password. */
function reason(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  return [message, code && !message?.includes(code) ? `(${code})` : ''].filter(Boolean).join(' ');
}

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The first connection of a start, alone: when PostgreSQL is unreachable the error names
 * RDP_DATABASE_URL (its password masked) instead of surfacing as a stack from deep in pg.
 */
export async function connectOrExplain(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new DatabaseUnreachable(`PostgreSQL at RDP_DATABASE_URL=${redactUrl(url)} is unreachable: ${reason(error)}`, {
      cause: error,
    });
  }
  return client;
}

/** PostgreSQL could not be reached at start: the process says so and exits 1. */
export class DatabaseUnreachable extends Error {}

/** A pg pool whose lost connections are reported (onError) and replaced, never thrown at the process. */
export function openPool(config: pg.PoolConfig, onError: (error: Error) => void = () => undefined): pg.Pool {
  const pool = new pg.Pool({ connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...config });
  // An idle connection lost: the pool has already dropped it; the next checkout makes a new one.
  pool.on('error', (error) => onError(error));
  // A checked-out connection lost between statements: the statement in progress or the next one
  // fails, and the release drops the connection; the event itself must not end the process.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

const CONNECT_ATTEMPTS = 4;
const CONNECT_BACKOFF_MS = 100;

/** pool.connect(), again a few times while the server refuses or drops new connections (a restart, a failover). */
export async function connectWithRetry(pool: pg.Pool): Promise<pg.PoolClient> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pool.connect();
    } catch (error) {
      // Nothing ran on a connection that never opened: trying again is always safe. A wait for a
      // free connection that timed out (a busy pool) is not tried again: that would only wait longer.
      const busy = /timeout exceeded/i.test((error as Error).message);
      if (!isConnectionLost(error) || busy || attempt >= CONNECT_ATTEMPTS) throw error;
      await delay(CONNECT_BACKOFF_MS * 2 ** (attempt - 1));
    }
  }
}

/**
 * The pool Kysely runs on. A new connection is retried while the server refuses it. A statement
 * whose connection died is run once more on a new connection only when that cannot repeat a
 * change: a plain SELECT outside a transaction, or the BEGIN that opens one. Anything else (a
 * write, a statement inside a transaction, whose work died with the connection or may have
 * committed just before) fails with the connection error, which the HTTP layer answers with 503
 * DatabaseUnavailable and Retry-After.
 */
export class ResilientPool implements PostgresPool {
  constructor(private readonly pool: pg.Pool) {}

  async connect(): Promise<PostgresPoolClient> {
    try {
      return new ResilientClient(await connectWithRetry(this.pool), this.pool);
    } catch (error) {
      throw isConnectionLost(error) ? unavailable(error) : error;
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

const READ = /^\s*select\b/i;
const BEGIN = /^\s*(begin|start transaction)\b/i;
const END = /^\s*(commit|rollback|end)\b/i;

class ResilientClient {
  private inTransaction = false;
  private lost: Error | undefined;
  /** The dead connection was given back and no new one could be had. */
  private released = false;

  constructor(
    private client: pg.PoolClient,
    private readonly pool: pg.Pool,
  ) {}

  // Kysely's cursor form is not used by the platform; it is passed through untouched.
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query(cursor: never): never;
  query(sql: string, parameters?: ReadonlyArray<unknown>): unknown {
    if (typeof sql !== 'string') return this.client.query(sql);
    return this.run(sql, parameters ?? []);
  }

  private async run(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<never>> {
    const opens = BEGIN.test(sql);
    try {
      const result = await this.send(sql, parameters);
      if (opens) this.inTransaction = true;
      else if (END.test(sql)) this.inTransaction = false;
      return result as unknown as PostgresQueryResult<never>;
    } catch (error) {
      if (!isConnectionLost(error)) throw error;
      const retryable = !this.inTransaction && (opens || (READ.test(sql) && !/\bpg_advisory|\bnextval\b/i.test(sql)));
      if (!retryable) {
        this.lost = error as Error;
        throw unavailable(error);
      }
      return this.again(sql, parameters, opens, error as Error);
    }
  }

  /**
   * The retry of a statement whose connection died. When a session ends, every idle connection of
   * the pool may have died with it, and pg drops one only once its socket reports so: the pool
   * can hand the retry another dead one. Each attempt gives back its dead connection for good,
   * so within the pool's size plus one attempts the retry runs on a connection made after the loss.
   */
  private async again(sql: string, parameters: ReadonlyArray<unknown>, opens: boolean, lost: Error) {
    const attempts = (this.pool.options.max ?? 10) + 1;
    for (let attempt = 1; ; attempt++) {
      this.client.release(lost);
      this.released = true;
      try {
        this.client = await connectWithRetry(this.pool);
      } catch (error) {
        throw isConnectionLost(error) ? unavailable(error) : error;
      }
      this.released = false;
      try {
        // A new connection has not seen the statement: pg prepares it there on first use.
        const result = await this.send(sql, parameters);
        if (opens) this.inTransaction = true;
        return result as unknown as PostgresQueryResult<never>;
      } catch (error) {
        if (!isConnectionLost(error)) throw error;
        lost = error as Error;
        if (attempt >= attempts) {
          this.lost = lost;
          throw unavailable(error);
        }
      }
    }
  }

  /**
   * A registered hot statement goes as a named one (pg prepares it once per connection). With a
   * callback, not pg's promise form: under load that form's objects outlived the young generation
   * (about 1.5 MB promoted per scavenge, a fifth of the API's CPU in the collector), the callback
   * form's none (docs/performance.md, "The caller through a group").
   */
  private send(sql: string, parameters: ReadonlyArray<unknown>): Promise<pg.QueryResult> {
    const name = preparedName(sql);
    const values = parameters as unknown[];
    return new Promise((resolve, reject) => {
      const done = (error: Error | null, result: pg.QueryResult) => (error ? reject(error) : resolve(result));
      if (name) this.client.query({ name, text: sql, values }, done);
      else this.client.query(sql, values, done);
    });
  }

  release(): void {
    // A lost connection goes, never back to the pool (pg would also see it is not queryable).
    if (!this.released) this.client.release(this.lost);
  }
}
