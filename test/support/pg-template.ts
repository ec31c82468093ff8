// PostgreSQL runs: the stores' migrations and pg-boss's schema are made once per run in a template
// database, and each test platform gets a database of its own cloned from it (CREATE DATABASE …
// TEMPLATE), a few hundred milliseconds instead of seconds of migrations per platform (docs/ci.md).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStores } from '../../src/adapters/db/database.js';
import { openJobStore } from '../../src/adapters/jobs/open-job-store.js';
import { loadConfig } from '../../src/config/config.js';
import { ManualClock } from '../../src/ports/clock.js';

/** The schema prefix of the template's stores, and so of every platform cloned from it. */
export const TEMPLATE_SCHEMA_PREFIX = 't_template';

/** Where the global setup tells the test files the run's template (the forks inherit it). */
export const TEMPLATE_ENV = 'RDP_TEST_TEMPLATE_DATABASE';

async function onServer(baseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The URL of another database on the server of `baseUrl`. */
export function databaseUrlOf(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A database name beside the run's one, so that a run's leftovers are found by its prefix. */
export function nameBeside(baseUrl: string, suffix: string): string {
  const base = decodeURIComponent(new URL(baseUrl).pathname.slice(1)) || 'postgres';
  const name = `${base}_${suffix}`;
  // PostgreSQL truncates identifiers past 63 bytes: two names could then collide.
  if (Buffer.byteLength(name) > 63) throw new Error(`the test database name ${base} is too long for clones (${name})`);
  return name;
}

/** Makes the run's template: the stores and the job queue's schema, migrated and closed. */
export async function createTemplateDatabase(baseUrl: string): Promise<string> {
  const database = nameBeside(baseUrl, `tpl${randomBytes(3).toString('hex')}`);
  await onServer(baseUrl, `CREATE DATABASE "${database}"`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-template-'));
  try {
    const config = loadConfig({
      RDP_DATA_DIR: dataDir,
      RDP_LOG_LEVEL: 'silent',
      RDP_DATABASE_URL: databaseUrlOf(baseUrl, database),
      RDP_DATABASE_SCHEMA_PREFIX: TEMPLATE_SCHEMA_PREFIX,
    });
    // Only what the migrations and pg-boss's install write: no server secrets, no signing keys,
    // which each platform makes for itself when it first opens, as on a new deployment.
    const stores = await openStores(config);
    try {
      const jobs = await openJobStore({ config, clock: new ManualClock(), stores });
      await jobs.close();
    } finally {
      await stores.close();
    }
  } catch (error) {
    await dropDatabase(baseUrl, database).catch(() => undefined);
    throw error;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return database;
}

/** A new database cloned from the template; its URL. */
export async function cloneTemplateDatabase(baseUrl: string, template: string): Promise<{ database: string; url: string }> {
  const database = nameBeside(baseUrl, randomBytes(5).toString('hex'));
  await onServer(baseUrl, `CREATE DATABASE "${database}" TEMPLATE "${template}"`);
  return { database, url: databaseUrlOf(baseUrl, database) };
}

/** A new empty database beside the run's one (for data another release's code makes); its URL. */
export async function createEmptyDatabase(baseUrl: string): Promise<{ database: string; url: string }> {
  const database = nameBeside(baseUrl, `e${randomBytes(5).toString('hex')}`);
  await onServer(baseUrl, `CREATE DATABASE "${database}"`);
  return { database, url: databaseUrlOf(baseUrl, database) };
}

export async function dropDatabase(baseUrl: string, database: string): Promise<void> {
  await onServer(baseUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
