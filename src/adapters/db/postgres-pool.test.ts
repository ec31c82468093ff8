import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../domain/errors.js';
import { isConnectionLost, openPool, ResilientPool, redactUrl } from './postgres-pool.js';
import { preparedName, registerPrepared } from './prepared-statements.js';

/** What a request then answers: 503 DatabaseUnavailable, the lost connection kept as its cause for the log. */
const isDatabaseUnavailable = (error: unknown) =>
  error instanceof ApiError && error.status === 503 && error.retryAfterSeconds === 1 && isConnectionLost(error.cause);

describe('isConnectionLost', () => {
  it('recognizes a session the server ended, a broken socket and a client pg gave up on', () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(isConnectionLost(terminated)).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLost(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isConnectionLost(new Error('wrapped', { cause: terminated }))).toBe(true);
  });

  it('leaves refusals by SQL alone', () => {
    expect(isConnectionLost(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isConnectionLost(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isConnectionLost(undefined)).toBe(false);
  });
});

describe('redactUrl', () => {
  it('masks the password and keeps the rest', () => {
    expect(redactUrl('postgres://rdp:s3cret@db.example:5432/rdp')).toBe('postgres://rdp:***@db.example:5432/rdp');
    expect(redactUrl('postgres://rdp@db.example/rdp')).toBe('postgres://rdp@db.example/rdp');
  });
});

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

/** What the stores' pool does when the server ends the session under a checked-out connection. */
describe.skipIf(!databaseUrl)('ResilientPool on PostgreSQL', () => {
  const errors: Error[] = [];
  let raw: pg.Pool;
  let pool: ResilientPool;
  let admin: pg.Client;

  beforeAll(async () => {
    raw = openPool({ connectionString: databaseUrl, max: 2, application_name: 'rdp-pool-test' }, (error) => errors.push(error));
    pool = new ResilientPool(raw);
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.end();
  });

  /** A checked-out connection whose backend has just been terminated. */
  async function terminatedConnection() {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid', []);
    await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return client;
  }

  it('runs a read outside a transaction again on a new connection', async () => {
    const client = await terminatedConnection();
    const { rows } = await client.query<{ one: number }>('select 1 as one', []);
    expect(rows).toEqual([{ one: 1 }]);
    client.release();
  });

  it('fails a write and any statement inside a transaction, and the process lives', async () => {
    const writer = await terminatedConnection();
    await expect(writer.query("set application_name = 'changed'", [])).rejects.toSatisfy(isDatabaseUnavailable);
    writer.release();

    const inTransaction = await pool.connect();
    await inTransaction.query('begin', []);
    const { rows } = await inTransaction.query<{ pid: number }>('select pg_backend_pid() as pid', []);
    await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(inTransaction.query('select 1', [])).rejects.toSatisfy(isDatabaseUnavailable);
    await expect(inTransaction.query('rollback', [])).rejects.toSatisfy(isDatabaseUnavailable);
    inTransaction.release();

    // The pool made new connections for what came next.
    const fresh = await pool.connect();
    expect((await fresh.query<{ one: number }>('select 1 as one', [])).rows).toEqual([{ one: 1 }]);
    fresh.release();
  });

  it('runs a read again past every idle connection that died with the rest (a failover ends them all at once)', async () => {
    const wide = new ResilientPool(openPool({ connectionString: databaseUrl, max: 4, application_name: 'rdp-pool-wide' }));
    try {
      // pg drops an idle connection only once its socket reports the end; a read right after the
      // terminations can be handed one dead connection after another. Before the retry went past
      // them, about 8 rounds in 20 failed here.
      for (let round = 0; round < 20; round++) {
        const held = await Promise.all([1, 2, 3, 4].map(() => wide.connect()));
        for (const client of held) await client.query('select 1', []);
        for (const client of held) client.release();
        await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'rdp-pool-wide'");
        const client = await wide.connect();
        try {
          expect((await client.query<{ round: number }>('select $1::int as round', [round])).rows).toEqual([{ round }]);
        } finally {
          client.release();
        }
      }
    } finally {
      await wide.end();
    }
  });

  it('sends a registered statement prepared, once per connection, and prepares it again on the connection of a retry', async () => {
    const text = 'select $1::int + 1 as next';
    registerPrepared(text);
    const name = preparedName(text) as string;
    const prepared = async (client: Awaited<ReturnType<ResilientPool['connect']>>) =>
      (await client.query<{ name: string }>('select name from pg_prepared_statements', [])).rows.map((row) => row.name);
    const client = await pool.connect();
    expect(await prepared(client)).not.toContain(name);
    expect((await client.query<{ next: number }>(text, [1])).rows).toEqual([{ next: 2 }]);
    expect((await client.query<{ next: number }>(text, [2])).rows).toEqual([{ next: 3 }]);
    expect(await prepared(client)).toEqual([name]);
    // Texts not registered stay unprepared.
    await client.query('select $1::int as other', [1]);
    expect(await prepared(client)).toEqual([name]);
    client.release();

    const retried = await terminatedConnection();
    expect((await retried.query<{ next: number }>(text, [41])).rows).toEqual([{ next: 42 }]);
    expect(await prepared(retried)).toContain(name);
    retried.release();
  });

  it('reports an idle connection the server ended, and replaces it', async () => {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid', []);
    client.release();
    errors.length = 0;
    await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
    await expect.poll(() => errors.length).toBeGreaterThan(0);
    expect(isConnectionLost(errors[0])).toBe(true);
    const next = await pool.connect();
    expect((await next.query<{ one: number }>('select 1 as one', [])).rows).toEqual([{ one: 1 }]);
    next.release();
  });
});
