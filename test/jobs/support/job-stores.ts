import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropPostgresSchemas } from '../../../src/adapters/db/database.js';
import { loadConfig } from '../../../src/config/config.js';
import { openPlatform, type Platform } from '../../../src/platform.js';
import { ManualClock } from '../../../src/ports/clock.js';
import type { JobStore } from '../../../src/ports/job-queue.js';

/** One process's view of the queue: its platform (stores) and its job store. */
export interface JobProcess {
  platform: Platform;
  store: JobStore;
  clock: ManualClock;
  close(): Promise<void>;
}

/**
 * Fresh stores for one test file, on the store the suite runs against: SQLite files in a
 * temporary directory, or PostgreSQL (RDP_TEST_DATABASE_URL) under a prefix of its own. Each
 * `open()` is a separate opening of them, as a separate process would make.
 */
export interface JobStores {
  /** The environment a child process needs to open the same stores. */
  env: Record<string, string>;
  open(): Promise<JobProcess>;
  /** Closes what `open()` made and removes the stores. */
  close(): Promise<void>;
}

export function jobStores(): JobStores {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-jobs-'));
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  const databaseUrl = process.env.RDP_TEST_DATABASE_URL;
  const env: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    RDP_LOG_LEVEL: 'silent',
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
  };
  const opened = new Set<JobProcess>();
  return {
    env,
    async open() {
      const clock = new ManualClock();
      const platform = await openPlatform(loadConfig(env), clock);
      const store = platform.jobs;
      const process: JobProcess = {
        platform,
        store,
        clock,
        async close() {
          if (opened.delete(process)) await platform.close();
        },
      };
      opened.add(process);
      return process;
    },
    async close() {
      for (const process of [...opened]) await process.close();
      if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `condition` holds, polling every 10 ms; fails after `timeoutMs`. */
export async function eventually<T>(
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
