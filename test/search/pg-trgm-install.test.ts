import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores, type Stores } from '../../src/adapters/db/database.js';
import { loadConfig } from '../../src/config/config.js';
import { similarity } from '../../src/domain/search/trigrams.js';

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

/**
 * A database of its own without pg_trgm, and a user who may create schemas in it (as the platform
 * needs) but may not install the extension. A user who may create schemas may install a trusted
 * extension such as pg_trgm, so the refusal is an event trigger standing in for what refuses it
 * elsewhere: a managed service's list of allowed extensions, a server without the contrib
 * modules. The platform must refuse to start, saying what is missing and what to do.
 */
describe.skipIf(!databaseUrl)('pg_trgm, required by the regional stores', () => {
  const name = `rdp_t_${randomBytes(5).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-pg-trgm-'));
  const admin = (database: string) => {
    const url = new URL(databaseUrl as string);
    url.pathname = `/${database}`;
    return new pg.Client({ connectionString: url.href });
  };
  const userUrl = () => {
    const url = new URL(databaseUrl as string);
    url.username = name;
    url.password = '';
    url.pathname = `/${name}`;
    return url.href;
  };
  const open = () =>
    openStores(
      loadConfig({
        RDP_DATA_DIR: dataDir,
        RDP_LOG_LEVEL: 'silent',
        RDP_DATABASE_URL: userUrl(),
        RDP_DATABASE_SCHEMA_PREFIX: 'rdp',
      }),
      { regions: ['eu'] },
    );
  let stores: Stores | undefined;

  beforeAll(async () => {
    const client = admin(new URL(databaseUrl as string).pathname.slice(1));
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name}"`);
      await client.query(`CREATE ROLE "${name}" LOGIN`);
      await client.query(`GRANT CREATE ON DATABASE "${name}" TO "${name}"`);
    } finally {
      await client.end();
    }
    const inside = admin(name);
    await inside.connect();
    try {
      await inside.query(`CREATE FUNCTION public.refuse_extensions() RETURNS event_trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'extensions may not be created in this database'; END $$`);
      await inside.query(`CREATE EVENT TRIGGER refuse_extensions ON ddl_command_start WHEN TAG IN ('CREATE EXTENSION')
        EXECUTE FUNCTION public.refuse_extensions()`);
    } finally {
      await inside.end();
    }
  });
  afterAll(async () => {
    await stores?.close();
    const client = admin(new URL(databaseUrl as string).pathname.slice(1));
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.query(`DROP ROLE IF EXISTS "${name}"`);
    } finally {
      await client.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses to start where it may not install the extension, naming pg_trgm and the remedy', async () => {
    const refusal = await open().then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refusal?.message).toMatch(/database migration 0013-name-closeness failed/);
    expect(refusal?.message).toMatch(/extension pg_trgm is not installed in this database, and installing it failed/);
    expect(refusal?.message).toMatch(/extensions may not be created in this database/);
    expect(refusal?.message).toMatch(/CREATE EXTENSION pg_trgm/);
  });

  it('starts once an administrator has installed it, in whatever schema, and computes closeness with it', async () => {
    const client = admin(name);
    await client.connect();
    try {
      await client.query('DROP EVENT TRIGGER refuse_extensions');
      await client.query('CREATE SCHEMA extensions');
      await client.query('CREATE EXTENSION pg_trgm WITH SCHEMA extensions');
      await client.query(`GRANT USAGE ON SCHEMA extensions TO "${name}"`);
    } finally {
      await client.end();
    }
    stores = await open();
    const { rows } = await sql<{ value: number }>`SELECT similarity('word', 'two words') AS value`.execute(
      stores.regions.eu?.db as NonNullable<Stores['regions']['eu']>['db'],
    );
    expect(rows.map(({ value }) => Math.fround(value))).toEqual([similarity('word', 'two words')]);
  });
});
