import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminService } from '../../src/composition/platform-services.js';
import { loadConfig } from '../../src/config/config.js';
import { openPlatform } from '../../src/platform.js';
import { administratorClient } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { type ServerProcess, startServer } from '../support/server-process.js';

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

/** Ends every session of the database but the caller's: what a failover or a restart does to a process. */
const TERMINATE_ALL =
  'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()';

/**
 * Issue 10 defect 5: terminating PostgreSQL backends made every process exit on an unhandled pool
 * 'error'. A server under a small concurrent load of reads and writes, whose every database
 * session is terminated several times, stays up; every answer is 2xx or 503 DatabaseUnavailable
 * with Retry-After (no 500, no reset connection), and a read right after a termination succeeds.
 * The server runs alone in a database of its own, so the terminations touch no other test.
 */
describe.skipIf(!databaseUrl)('a server whose PostgreSQL connections are terminated', () => {
  const database = `rdp_lost_${randomBytes(5).toString('hex')}`;
  let url: string;
  let server: ServerProcess;
  let token: string;
  let orgId: string;

  async function onDatabase<T>(target: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: target });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    await onDatabase(databaseUrl as string, (client) => client.query(`CREATE DATABASE ${database}`));
    const parsed = new URL(databaseUrl as string);
    parsed.pathname = `/${database}`;
    url = parsed.toString();
    const storeEnv = { RDP_DATABASE_URL: url, RDP_LOG_LEVEL: 'silent' };
    const platform = await openPlatform(loadConfig(storeEnv));
    let basic: string;
    try {
      const admin = adminService(platform);
      orgId = (await admin.createOrganization({ name: 'Lost', region: 'eu' })).id;
      basic = await administratorClient(admin, orgId, 'Load', ['read:hierarchy', 'write:hierarchy']);
    } finally {
      await platform.close();
    }
    // Every role, so every pool: the stores', the job queue's (pg-boss, the worker, housekeeping).
    server = await startServer(await freePort(), { ...storeEnv, RDP_DATABASE_POOL_SIZE: '4', RDP_RATE_LIMIT_DISABLED: '1' });
    const issued = await fetch(`${server.origin}/auth/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    token = ((await issued.json()) as { access_token: string }).access_token;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await onDatabase(databaseUrl as string, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  const call = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    fetch(`${server.origin}/eu/reality/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  it('stays up, answers 2xx or 503 with Retry-After, and reads again right after', async () => {
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let running = true;
    const loop = async (worker: number) => {
      for (let i = 0; running; i++) {
        try {
          const response =
            i % 2 === 0
              ? await call('GET', `/nodes/${orgId}/browse`)
              : await call('POST', `/nodes/${orgId}/division`, { name: `Division ${worker}-${i}` });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const body = (await response.json()) as { statusCode?: number; error?: string };
          if (response.status === 503) {
            if (body.error !== 'Service Unavailable' || response.headers.get('retry-after') !== '1') {
              failures.push(`503 without our shape or Retry-After: ${JSON.stringify(body)}`);
            }
          } else if (response.status >= 300) failures.push(`${response.status}: ${JSON.stringify(body)}`);
        } catch (error) {
          failures.push(`request failed: ${(error as Error).message}`);
        }
      }
    };
    const load = Array.from({ length: 6 }, (_, worker) => loop(worker));
    let terminated = 0;
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      terminated += await onDatabase(url, async (client) => (await client.query(TERMINATE_ALL)).rows[0].n as number);
    }
    running = false;
    await Promise.all(load);

    expect(terminated).toBeGreaterThan(5);
    expect(server.child.exitCode, server.output()).toBeNull();
    expect(failures.slice(0, 5)).toEqual([]);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0);
    console.log(
      `statuses under terminations: ${JSON.stringify(Object.fromEntries(statuses))}, sessions terminated: ${terminated}`,
    );

    // Every idle session dead again: a read right after is retried on a new connection.
    await onDatabase(url, (client) => client.query(TERMINATE_ALL));
    const read = await call('GET', `/nodes/${orgId}/browse`);
    expect(read.status).toBe(200);
    expect((await call('POST', `/nodes/${orgId}/division`, { name: 'After' })).status).toBe(201);
    expect(server.child.exitCode).toBeNull();
  }, 60_000);
});
