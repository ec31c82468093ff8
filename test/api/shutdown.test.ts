import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { adminService } from '../../src/composition/platform-services.js';
import { loadConfig } from '../../src/config/config.js';
import { openPlatform } from '../../src/platform.js';
import { administratorClient } from '../support/fixtures.js';
import { buildServerInto } from '../support/fresh-build.js';
import { freePort } from '../support/ports.js';

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** One request on `agent` (a keep-alive agent, or false for a connection of its own). */
function request(
  port: number,
  options: { path: string; method?: string; headers?: Record<string, string>; agent: http.Agent | false; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: options.agent,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/**
 * A POST whose body arrives in two parts: the request stays in flight, as a slow one does, until
 * `finish()` sends the rest. `answer` settles with the response or the connection's error.
 */
function slowRequest(port: number, path: string, headers: Record<string, string>, body: string) {
  const outgoing = http.request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    agent: false,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: text }),
      );
    });
    outgoing.on('error', reject);
  });
  answer.catch(() => undefined);
  outgoing.flushHeaders();
  outgoing.write(body.slice(0, 3));
  return { answer, finish: () => outgoing.end(body.slice(3)) };
}

/**
 * SIGTERM under load (docs/design/processes.md#stopping), against `node dist/main.js` as
 * `npm start` runs it: /readyz turns 503 at once, requests in flight finish and every answer closes
 * its connection, then the process exits 0 within the grace period; past the grace it exits anyway.
 */
describe('a stop on SIGTERM under load', () => {
  const buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-shutdown-'));
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  const storeEnv: Record<string, string> = {
    RDP_DATA_DIR: path.join(buildDir, 'data'),
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
  };
  let orgId: string;
  let credentials: string;
  const children: ChildProcess[] = [];

  /** The server on a free port, once it answers /readyz; `exited` settles with its exit status. */
  async function start(env: Record<string, string>) {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, [path.join(buildDir, 'dist', 'main.js')], {
      cwd: buildDir,
      // The load outruns an organization's default request budget: no buckets here.
      env: {
        PATH: process.env.PATH ?? '',
        RDP_LOG_LEVEL: 'warn',
        RDP_RATE_LIMIT_DISABLED: '1',
        PORT: String(port),
        ...storeEnv,
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once('exit', (code) => resolve({ code, at: performance.now() })),
    );
    const started = performance.now();
    for (;;) {
      const ready = await request(port, { path: '/readyz', agent: false }).catch(() => undefined);
      if (ready?.status === 200) break;
      if (child.exitCode !== null || performance.now() - started > 20_000) throw new Error(`the server did not start: ${stderr}`);
      await sleep(20);
    }
    const token = await request(port, {
      path: '/auth/oauth/token',
      method: 'POST',
      agent: false,
      headers: { authorization: credentials, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const headers = { authorization: `Bearer ${JSON.parse(token.body).access_token}` };
    return { port, child, exited, headers, stderr: () => stderr };
  }

  beforeAll(async () => {
    await buildServerInto(buildDir);

    const platform = await openPlatform(loadConfig({ ...storeEnv, RDP_LOG_LEVEL: 'silent' }));
    try {
      const admin = adminService(platform);
      const org = await admin.createOrganization({ name: 'Draining', region: 'eu' });
      orgId = org.id;
      credentials = await administratorClient(admin, org.id, 'Load', ['read:hierarchy', 'write:hierarchy']);
    } finally {
      await platform.close();
    }
  }, 120_000);

  afterAll(async () => {
    // A server that failed to stop must not outlive the test.
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
    fs.rmSync(buildDir, { recursive: true, force: true });
  });

  it('turns /readyz 503, finishes every request in flight with Connection: close, and exits 0 within the grace', async () => {
    const grace = 10;
    const server = await start({ RDP_SHUTDOWN_GRACE_SECONDS: String(grace), RDP_SHUTDOWN_DELAY_SECONDS: '1' });
    const { port, headers } = server;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const read = { path: `/eu/reality/v1/nodes/${orgId}/browse`, headers, agent };
    const answers: Answer[] = [];
    const failures: string[] = [];
    // The load balancer: sends until it sees /readyz answer 503, as one that probes it would.
    let outOfRotation = false;
    const client = async () => {
      while (!outOfRotation) {
        try {
          answers.push(await request(port, read));
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    };
    const load = Promise.all([client(), client(), client(), client()]);
    await sleep(300);
    const servedBefore = answers.length;
    const slow = slowRequest(port, `/eu/reality/v1/nodes/${orgId}/division`, headers, JSON.stringify({ name: 'Slow' }));
    await sleep(100);

    const signalled = performance.now();
    server.child.kill('SIGTERM');
    let readiness: Answer | undefined;
    while (!readiness || readiness.status === 200) {
      readiness = await request(port, { path: '/readyz', agent: false });
      await sleep(10);
    }
    outOfRotation = true;
    await load;
    // Still draining: the slow request is in flight. It finishes, answered in full.
    slow.finish();
    const slowAnswer = await slow.answer;
    const { code, at } = await server.exited;
    agent.destroy();

    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.body)).toMatchObject({ statusCode: 503, status: 'draining' });
    expect(failures).toEqual([]);
    expect(servedBefore).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(servedBefore);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    // The answers of the drain told the clients to reopen elsewhere.
    expect(answers.some((answer) => answer.connection === 'close')).toBe(true);
    expect(slowAnswer.status).toBe(201);
    expect(slowAnswer.connection).toBe('close');
    console.log(
      `SIGTERM to exit: ${(at - signalled).toFixed(0)} ms, ${answers.length - servedBefore} reads after the first 300 ms`,
    );
    expect(code).toBe(0);
    expect((at - signalled) / 1000).toBeLessThan(grace);
    expect(server.stderr()).toBe('');
  }, 60_000);

  it('does not outlive a short grace for a request that never ends', async () => {
    const server = await start({ RDP_SHUTDOWN_GRACE_SECONDS: '1' });
    const stuck = slowRequest(
      server.port,
      `/eu/reality/v1/nodes/${orgId}/division`,
      server.headers,
      JSON.stringify({ name: 'Stuck' }),
    );
    await sleep(100);
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    const { code, at } = await server.exited;
    await expect(stuck.answer).rejects.toThrow();
    console.log(`SIGTERM to exit past a 1 s grace: ${(at - signalled).toFixed(0)} ms`);
    expect(code).toBe(0);
    // The grace and a margin for closing the stores, far from the minute the defect took.
    expect((at - signalled) / 1000).toBeLessThan(4);
  }, 60_000);
});
