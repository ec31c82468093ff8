import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { adminService } from '../../src/composition/platform-services.js';
import { loadConfig } from '../../src/config/config.js';
import { openPlatform } from '../../src/platform.js';
import { buildServerInto } from '../support/fresh-build.js';
import { freePort } from '../support/ports.js';

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;
/**
 * How long the test waits for the first answer. The 3 s start-up target is measured by
 * bench/startup.ts against a bare server in the same run: CI never fails on an absolute time.
 */
const STARTUP_WAIT_MS = 15_000;

/**
 * `npm start` runs `node dist/main.js`. The code is compiled afresh into a directory of this
 * test (with the project's node_modules linked), so the test measures the current sources and
 * never races another build of dist/.
 */
describe('the server started as `npm start` starts it', () => {
  const buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-start-'));
  const dataDir = path.join(buildDir, 'data');
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  const storeEnv: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
  };
  const mainJs = path.join(buildDir, 'dist', 'main.js');

  /** The server process; `closed` settles with its exit status once its output is all read. */
  function start(env: Record<string, string>): { child: ChildProcess; stderr: () => string; closed: Promise<number | null> } {
    const child = spawn(process.execPath, [mainJs], {
      cwd: buildDir,
      env: { PATH: process.env.PATH ?? '', RDP_LOG_LEVEL: 'warn', ...storeEnv, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    return { child, stderr: () => stderr, closed };
  }

  beforeAll(async () => {
    await buildServerInto(buildDir);

    // An existing store: migrated, with an organization in it.
    const platform = await openPlatform(loadConfig({ ...storeEnv, RDP_LOG_LEVEL: 'silent' }));
    await adminService(platform).createOrganization({ name: 'Existing', region: 'eu' });
    await platform.close();
  }, 120_000);

  afterAll(async () => {
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
    fs.rmSync(buildDir, { recursive: true, force: true });
  });

  it('serves GET /health on an existing store, logs nothing to stderr, and stops on SIGTERM', async () => {
    const port = await freePort();
    const started = performance.now();
    const { child, stderr, closed } = start({ PORT: String(port) });
    try {
      let elapsed = Number.POSITIVE_INFINITY;
      while (performance.now() - started < STARTUP_WAIT_MS && child.exitCode === null) {
        const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        if (response?.status === 200) {
          expect(await response.json()).toEqual({ status: 'ok' });
          elapsed = performance.now() - started;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      console.log(`startup to first /health answer: ${elapsed.toFixed(0)} ms (${databaseUrl ? 'PostgreSQL' : 'SQLite'})`);
      expect(stderr()).toBe('');
      expect(Number.isFinite(elapsed), 'the server never answered GET /health').toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await closed).toBe(0);
  });

  it('stops with exit status 2 and a message naming the variable when the configuration is bad', async () => {
    const { stderr, closed } = start({ PORT: 'abc' });
    expect(await closed).toBe(2);
    expect(stderr()).toBe('rdp: configuration error: PORT must be an integer from 0 to 65535, got "abc"\n');
  });
});
