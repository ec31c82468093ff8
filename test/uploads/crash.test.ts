import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
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
const FILES = 50;
/** kill -9 at most this often, so the run's length stays bounded by restarts on a loaded machine. */
const KILLS = 20;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The server as `npm start` runs it (compiled, `node dist/main.js`, from a fresh build of today's
 * sources), on one port and one store, killed with SIGKILL and started again at will. Through tsx
 * every restart compiled the sources again: seconds of CPU each, which under CI's load could
 * outlast a client's patience and say nothing about durability.
 */
class CrashingServer {
  private child: ChildProcess | undefined;
  kills = 0;
  /** Time spent starting copies, for the run's report. */
  startingMs = 0;
  /** The last lines the running copy wrote (warnings and errors). */
  output = '';

  constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly buildDir: string,
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [path.join(this.buildDir, 'dist', 'main.js')], {
      cwd: this.buildDir,
      env: { PATH: process.env.PATH ?? '', RDP_LOG_LEVEL: 'warn', PORT: String(this.port), ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    // Why a start failed or a request hung (a refused database connection, say), for the failure message.
    let stderr = '';
    const keep = (chunk: Buffer) => (this.output = stderr = (stderr + chunk).slice(-4000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const began = Date.now();
    const deadline = began + 30_000;
    while (Date.now() < deadline) {
      const health = await fetch(`${this.origin}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
      if (health?.status === 200) {
        this.startingMs += Date.now() - began;
        return;
      }
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} at start: ${stderr}`);
      await pause(50);
    }
    throw new Error(`the server did not start within 30 s: ${stderr}`);
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.kills += 1;
  }
}

/** A request of the test that no answer has come to in this time is a hang of the server, never a slow CI. */
const ANSWER_WITHIN_MS = 45_000;

/** What PostgreSQL's sessions of this test are doing: after a hang, which statement waits on what. */
async function databaseSessions(): Promise<string> {
  if (!databaseUrl) return '';
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT pid, state, wait_event_type, wait_event, now() - xact_start AS in_transaction, left(query, 200) AS query
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
    );
    return JSON.stringify(rows, null, 1);
  } catch (error) {
    return `(sessions not read: ${String(error)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Retries a step while the server is down (a refused or cut connection), as a client would, for
 * up to a minute: a restart on a loaded two-core machine has taken over 20 s (CI, 2026-11-25).
 */
const RETRY_FOR_MS = 60_000;
async function retried<T>(step: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() > deadline || !(error instanceof TypeError)) throw error; // fetch failed: connection refused or reset
      await pause(50);
    }
  }
}

describe('kill -9 during uploads and finalizes', () => {
  const buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-crash-'));
  const dataDir = path.join(buildDir, 'data');
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  const storeEnv: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
  };
  let server: CrashingServer;
  let orgId: string;
  let folderId: string;
  let basic: string;

  beforeAll(async () => {
    await buildServerInto(buildDir);
    server = new CrashingServer(await freePort(), storeEnv, buildDir);
    const platform = await openPlatform(loadConfig({ ...storeEnv, RDP_LOG_LEVEL: 'silent', PORT: String(server.port) }));
    const admin = adminService(platform);
    const org = await admin.createOrganization({ name: 'Crash', region: 'eu', storageQuota: 1024 * 1024 * 1024 });
    orgId = org.id;
    basic = await administratorClient(admin, orgId, 'Uploader', ['read:hierarchy', 'write:hierarchy']);
    await platform.close();
    await server.start();
  }, 120_000);

  afterAll(async () => {
    await server.kill();
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
    fs.rmSync(buildDir, { recursive: true, force: true });
  });

  it('keeps every finalized file byte for byte, shows no unfinalized upload, and counts exactly the stored bytes', async () => {
    // A request left unanswered fails the test naming it, with what the server and the database were doing.
    let answers = 0;
    const answered = async (label: string, url: string, init: RequestInit = {}) => {
      try {
        const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
        answers += 1;
        return response;
      } catch (error) {
        if (!(error instanceof DOMException && error.name === 'TimeoutError')) throw error;
        throw new Error(
          `${label} was not answered within ${ANSWER_WITHIN_MS / 1000} s (after ${server.kills} kills)\n` +
            `server output:\n${server.output}\ndatabase sessions:\n${await databaseSessions()}`,
        );
      }
    };
    const token = async () => {
      const response = await answered('the token request', `${server.origin}/auth/oauth/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      return ((await response.json()) as { access_token: string }).access_token;
    };
    const bearer = await retried(token);
    const api = async (method: string, route: string, body?: unknown) => {
      const response = await answered(`${method} ${route}`, `${server.origin}/eu/reality${route}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const division = await retried(() => api('POST', `/v1/nodes/${orgId}/division`, { name: 'D' }));
    const site = await retried(() => api('POST', `/v1/nodes/${division.body.id}/site`, { name: 'S', address: 'A' }));
    folderId = (await retried(() => api('POST', `/v1/nodes/${site.body.id}/folder`, { name: 'F' }))).body.id;

    // The killer: kill -9 at a random moment while the uploads run, and start again. Each copy
    // first answers one request, then lives a random 0–100 ms more: on a loaded machine a fixed
    // lifetime could end every copy before any request finished, and the uploads never would.
    let uploading = true;
    const killer = (async () => {
      while (uploading && server.kills < KILLS) {
        const seen = answers;
        while (uploading && answers === seen) await pause(5);
        await pause(Math.random() * 100);
        if (!uploading) break;
        await server.kill();
        await server.start();
      }
    })();

    const finalized = new Map<string, Buffer>();
    // Each refused step is counted; a run of them with no file finalized is a server stuck refusing.
    const refusals: string[] = [];
    const refused = (step: string, status: number, body: unknown) => {
      refusals.push(`${step} ${status} ${JSON.stringify(body).slice(0, 200)}`);
      if (refusals.length >= 60) throw new Error(`60 steps refused in a row:\n${refusals.join('\n')}\n${server.output}`);
    };
    try {
      for (let i = 0; finalized.size < FILES; i += 1) {
        const bytes = Buffer.from(`file ${i}\n${randomBytes(1_000 + Math.floor(Math.random() * 60_000)).toString('base64')}\n`);
        // A lost answer to an initiation leaves a pending upload of that name: the next try takes a new name.
        const initiated = await retried(() =>
          api('POST', '/v1/site-files', { parentId: folderId, name: `file-${i}.txt`, size: bytes.length }),
        );
        if (initiated.status !== 201) {
          refused('initiate', initiated.status, initiated.body);
          continue;
        }
        const put = await retried(() =>
          answered(`PUT of file-${i}.txt`, initiated.body.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) }),
        );
        if (put.status !== 200) {
          refused('put', put.status, await put.text().catch(() => ''));
          continue;
        }
        const etag = createHash('md5').update(bytes).digest('hex');
        const done = await retried(() => api('POST', `/v1/site-files/${initiated.body.id}/finalize`, { etag }));
        if (done.status === 200) {
          finalized.set(initiated.body.id, bytes);
          refusals.length = 0;
        } else refused('finalize', done.status, done.body);
      }
    } finally {
      uploading = false;
      await killer;
    }
    console.log(
      `${FILES} files finalized through ${server.kills} kills -9 (${databaseUrl ? 'PostgreSQL' : 'SQLite'}; ` +
        `a start took ${Math.round(server.startingMs / Math.max(1, server.kills + 1))} ms on average)`,
    );
    expect(server.kills).toBeGreaterThan(0);
    await server.kill();
    await server.start();

    // Every finalized file reads back byte for byte.
    for (const [id, bytes] of finalized) {
      const download = await fetch(`${server.origin}/eu/reality/v1/site-files/${id}/download`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    }
    // Only finalized files are nodes.
    const listed = await api('GET', `/v1/nodes/${folderId}/browse?limit=500`);
    expect(new Set(listed.body.map((node: { id: string }) => node.id))).toEqual(new Set(finalized.keys()));

    // The bytes counted are the bytes stored: each finalized blob holds its file, nothing more.
    await server.kill();
    const platform = await openPlatform(loadConfig({ ...storeEnv, RDP_LOG_LEVEL: 'silent', PORT: String(server.port) }));
    try {
      const use = await adminService(platform).storageUse(orgId);
      const stored = [...finalized.values()].reduce((sum, bytes) => sum + bytes.length, 0);
      expect(use.activeBytes).toBe(stored);
      for (const [id, bytes] of finalized) {
        expect((await platform.blobs.head(`orgs/${orgId}/nodes/${id}/file`))?.size).toBe(bytes.length);
      }
      // What is reserved belongs to uploads that never finalized, and only to them.
      const pending = await platform
        .region('eu')
        .store.db.selectFrom('stored_objects')
        .select(['id', 'reserved_bytes'])
        .where('org_id', '=', orgId)
        .where('state', '=', 'pending')
        .execute();
      expect(pending.every((row) => !finalized.has(row.id))).toBe(true);
      expect(use.reservedBytes).toBe(pending.reduce((sum, row) => sum + Number(row.reserved_bytes), 0));
    } finally {
      await platform.close();
    }
  }, 300_000);
});
