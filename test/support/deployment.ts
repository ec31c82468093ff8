import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { BUCKET, startMoto } from '../blobs/support/s3-peers.js';
import { freePort } from './ports.js';

/**
 * A deployment as an operator runs it (docs/deploy.md): separate processes of the built server
 * (`node dist/main.js`), each with its roles, on one PostgreSQL schema prefix, S3 (moto) and
 * Redis, all sharing the public address (the token issuer) and the blob signing key. Used by
 * test/deployment/ and bench/scale-out.ts; it registers no test hooks itself.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN_JS = path.join(ROOT, 'dist', 'main.js');
const CLI_JS = path.join(ROOT, 'dist', 'cli', 'rdp.js');
const REDIS_URL = 'redis://127.0.0.1:6379';

/** Whether the server and the command line are built (`npx tsc -p tsconfig.build.json`). */
export const builtServerAvailable = fs.existsSync(MAIN_JS) && fs.existsSync(CLI_JS);

export interface ProcessSpec {
  /** A name for messages, e.g. "api-1". */
  name: string;
  /** RDP_ROLES: a comma-separated subset of auth, api, worker. */
  roles: string;
  /** RDP_REGIONS; default all four. */
  regions?: string;
  env?: Record<string, string>;
  /** The folder of the server to run (its dist/main.js): an earlier release's (scripts/releases.mjs); default this checkout. */
  serverDir?: string;
}

/** One process of the deployment: restartable on the same port (a load balancer knows its address). */
export class DeployedProcess {
  readonly origin: string;
  child: ChildProcess | undefined;
  /** Everything the process printed, across restarts, for failure messages. */
  readonly output: string[] = [];
  /** Settles with the exit code or signal of the current child. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> = Promise.resolve({ code: null, signal: null });
  /** The working directory of the process: its RDP_DATA_DIR and its TMPDIR (processing work folders) live here. */
  readonly dir: string;
  /**
   * Set when the deployment closes: a test that timed out may still be running and try to start
   * the process again, which would leave it running after the test file ends.
   */
  retired = false;
  /** The folder of the server the next start runs; a rolling upgrade points it at another build. */
  serverDir: string;

  constructor(
    readonly spec: ProcessSpec,
    readonly port: number,
    private readonly env: Record<string, string>,
    root: string,
  ) {
    this.origin = `http://127.0.0.1:${port}`;
    this.dir = path.join(root, spec.name);
    this.serverDir = spec.serverDir ?? ROOT;
    fs.mkdirSync(path.join(this.dir, 'tmp'), { recursive: true });
  }

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether the current child is running (not yet exited). */
  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The folder the process's temporary files go to (os.tmpdir() in it). */
  get tmpDir(): string {
    return path.join(this.dir, 'tmp');
  }

  start(): void {
    if (this.retired) throw new Error(`${this.name}: the deployment is closed`);
    if (this.alive) throw new Error(`${this.name} is already running`);
    const child = spawn(process.execPath, [path.join(this.serverDir, 'dist', 'main.js')], {
      cwd: this.serverDir,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(this.port),
        RDP_ROLES: this.spec.roles,
        ...(this.spec.regions ? { RDP_REGIONS: this.spec.regions } : {}),
        RDP_DATA_DIR: path.join(this.dir, 'data'),
        TMPDIR: this.tmpDir,
        ...this.env,
        ...this.spec.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const started = `--- ${new Date().toISOString()} ${this.name} started (pid ${child.pid}) ---`;
    this.output.push(started);
    const collect = (chunk: Buffer) => {
      // Long lines (a logged error with its stack) are cut: the tail is for reading.
      for (const line of chunk.toString().split('\n')) if (line) this.output.push(line.slice(0, 400));
      if (this.output.length > 2000) this.output.splice(0, this.output.length - 2000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.output.push(`--- ${new Date().toISOString()} ${this.name} exited (code ${code}, signal ${signal}) ---`);
        resolve({ code, signal });
      }),
    );
  }

  /**
   * Sends a signal and, unless it is SIGSTOP or SIGCONT, waits for the exit: undefined when the
   * process was not running, or still runs after `withinMs`.
   */
  async signal(
    signal: NodeJS.Signals,
    withinMs = 30_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
    if (!this.alive) return undefined;
    this.output.push(`--- ${new Date().toISOString()} ${this.name} sent ${signal} ---`);
    this.child?.kill(signal);
    if (signal === 'SIGSTOP' || signal === 'SIGCONT') return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), withinMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Waits until the process answers 200 on /readyz. While /readyz does not exist yet (404),
   * /health stands in for it.
   */
  async waitReady(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.alive) throw new Error(`${this.name} exited before it was ready:\n${this.tail()}`);
      if ((await probeReady(this.origin)) === 200) return;
      if (Date.now() > deadline) throw new Error(`${this.name} not ready within ${timeoutMs} ms:\n${this.tail()}`);
      await delay(100);
    }
  }

  /** The last lines of output, for a failure message. */
  tail(lines = 40): string {
    return this.output.slice(-lines).join('\n');
  }
}

/** The readiness answer of a process: /readyz, or /health where /readyz is not served (404); 0 when unreachable. */
export async function probeReady(origin: string): Promise<number> {
  try {
    const ready = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2000) });
    await ready.arrayBuffer();
    if (ready.status !== 404) return ready.status;
    const health = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) });
    await health.arrayBuffer();
    return health.status;
  } catch {
    return 0;
  }
}

export interface Deployment {
  /** The public origin every copy shares (RDP_PUBLIC_URL): the token issuer, and the nginx front's address when there is one. */
  publicUrl: string;
  /** The port reserved for the front (nginx) at publicUrl. */
  frontPort: number;
  schemaPrefix: string;
  /** The database URL every copy uses (with an application_name naming the deployment's connections). */
  databaseUrl: string;
  /** The application_name of every PostgreSQL connection of this deployment. */
  applicationName: string;
  /** The environment every copy shares. */
  env: Record<string, string>;
  processes: DeployedProcess[];
  /** Adds a process (not started). */
  add(spec: ProcessSpec): Promise<DeployedProcess>;
  /** `rdp admin … --json` with the deployment's environment; returns its JSON or throws with its output. */
  admin(...args: string[]): Promise<any>;
  /** A client-credentials application whose service user administers the organization, made with the command line. */
  administratorApp(
    orgId: string,
    name: string,
    scopes: string,
  ): Promise<{ clientId: string; clientSecret: string; serviceUserId: string }>;
  /** Every process's output, for failure messages. */
  report(): string;
  /** Kills every process (SIGKILL), stops S3, drops the schemas and removes the files. Safe to call twice. */
  close(): Promise<void>;
}

export interface DeploymentOptions {
  /** Added to every copy's environment (e.g. short job timeouts). */
  env?: Record<string, string>;
  /** A database URL instead of RDP_TEST_DATABASE_URL. */
  databaseUrl?: string;
}

/**
 * Prepares the shared pieces of a deployment: a fresh schema prefix, S3 on moto with its bucket,
 * a Redis key prefix, the public address and the blob signing key. Processes are added with
 * `add` and started by the caller.
 */
export async function createDeployment(options: DeploymentOptions = {}): Promise<Deployment> {
  const baseUrl = options.databaseUrl ?? process.env.RDP_TEST_DATABASE_URL;
  if (!baseUrl) throw new Error('a deployment runs on PostgreSQL: set RDP_TEST_DATABASE_URL');
  if (!builtServerAvailable) {
    throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` first');
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-deployment-'));
  const id = randomBytes(5).toString('hex');
  const schemaPrefix = `t_${id}`;
  const applicationName = `rdp_deployment_${id}`;
  const url = new URL(baseUrl);
  url.searchParams.set('application_name', applicationName);
  const databaseUrl = url.toString();
  const frontPort = await freePort();
  const publicUrl = `http://127.0.0.1:${frontPort}`;
  const s3 = await startMoto();

  const env: Record<string, string> = {
    RDP_PUBLIC_URL: publicUrl,
    RDP_DATABASE_URL: databaseUrl,
    RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix,
    RDP_REDIS_URL: REDIS_URL,
    RDP_REDIS_KEY_PREFIX: `rdp_test_${id}`,
    RDP_BLOB_SIGNING_KEY: randomBytes(32).toString('base64'),
    RDP_BLOB_STORE: 's3',
    RDP_S3_ENDPOINT: s3.endpoint,
    RDP_S3_BUCKET: BUCKET,
    RDP_S3_ACCESS_KEY_ID: 'S3RVER',
    RDP_S3_SECRET_ACCESS_KEY: 'S3RVER',
    RDP_S3_FORCE_PATH_STYLE: '1',
    RDP_LOG_LEVEL: 'info',
    // Four processes at 10 connections a pool could hold 170 of PostgreSQL's 100 beside the
    // suite's other files (CI runs two at once); these loads are bounded: small pools serve them.
    RDP_DATABASE_POOL_SIZE: '4',
    ...options.env,
  };
  const processes: DeployedProcess[] = [];
  let closed = false;

  const deployment: Deployment = {
    publicUrl,
    frontPort,
    schemaPrefix,
    databaseUrl,
    applicationName,
    env,
    processes,
    async add(spec) {
      const added = new DeployedProcess(spec, await freePort(), env, root);
      processes.push(added);
      return added;
    },
    async admin(...args) {
      const run = await runNode(CLI_JS, ['admin', ...args, '--json'], {
        ...env,
        RDP_LOG_LEVEL: 'silent',
        RDP_DATA_DIR: path.join(root, 'cli'),
      });
      if (run.code !== 0) throw new Error(`rdp admin ${args.join(' ')} exited ${run.code}: ${run.stderr}${run.stdout}`);
      return JSON.parse(run.stdout);
    },
    async administratorApp(orgId, name, scopes) {
      const app = await deployment.admin(
        'app',
        'create',
        '--org',
        orgId,
        '--name',
        name,
        '--flow',
        'client-credentials',
        '--scopes',
        scopes,
      );
      await this.admin(
        'membership',
        'grant',
        '--node',
        orgId,
        '--principal',
        app.serviceUserId,
        '--role',
        'organization-administrator',
      );
      return app;
    },
    report() {
      return processes.map((each) => `=== ${each.name} (${each.origin}) ===\n${each.tail(60)}`).join('\n');
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(
        processes.map(async (each) => {
          each.retired = true;
          if (!each.alive) return;
          each.child?.kill('SIGCONT');
          each.child?.kill('SIGKILL');
          await each.exited;
        }),
      );
      await s3.stop().catch(() => undefined);
      await dropPostgresSchemas(baseUrl, schemaPrefix);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return deployment;
}

/** Runs a script of the build with an environment of its own (PATH only besides it). */
function runNode(file: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [file, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns a value other than undefined, or throws after `ms` with `describe()`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms: number, describe: () => string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms: ${describe()}`);
    await delay(100);
  }
}
