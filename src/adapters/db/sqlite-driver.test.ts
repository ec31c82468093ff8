import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRoutingDriver, sqliteRoutingDialect } from './sqlite-driver.js';

/**
 * Reads make their row objects from better-sqlite3's raw values (sqlite-driver.ts, Reading): the
 * rows must be the ones better-sqlite3 makes itself, whatever the columns, also after another
 * process changed the table under a `*` (an expand migration while an older copy runs).
 */
describe('SQLite reads', () => {
  let dir: string;
  let file: string;
  let db: Kysely<any>;
  let driver: SqliteRoutingDriver;

  const open = () => {
    const database = new SQLite(file);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    return database;
  };
  /** The rows better-sqlite3 makes for a statement, on a connection of its own. */
  const expected = (text: string, ...values: unknown[]) => {
    const other = new SQLite(file, { readonly: true });
    try {
      return other.prepare(text).all(...values);
    } finally {
      other.close();
    }
  };
  const read = async (text: string, ...values: unknown[]) => (await db.executeQuery(CompiledQuery.raw(text, values))).rows;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-sqlite-driver-'));
    file = path.join(dir, 'store.sqlite');
    driver = new SqliteRoutingDriver(file, open);
    db = new Kysely<any>({ dialect: sqliteRoutingDialect(driver) });
    await db.executeQuery(
      CompiledQuery.raw('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, size REAL, bytes BLOB, note TEXT)'),
    );
    await db.executeQuery(CompiledQuery.raw('CREATE TABLE u (t_id INTEGER, label TEXT)'));
    await db.executeQuery(
      CompiledQuery.raw(`INSERT INTO t VALUES (1, 'one', 1.5, x'00ff', NULL), (2, 'two "quoted"', NULL, NULL, 'n')`),
    );
    await db.executeQuery(CompiledQuery.raw(`INSERT INTO u VALUES (1, 'first'), (2, 'second')`));
  });

  afterEach(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers the rows better-sqlite3 makes: every type, odd and repeated names', async () => {
    for (const text of [
      'SELECT * FROM t ORDER BY id',
      'SELECT t.*, u.label FROM t JOIN u ON u.t_id = t.id ORDER BY t.id',
      `SELECT id AS "a ""b""", name AS "1", size AS a, note AS a FROM t ORDER BY id`,
      'SELECT count(*) AS n FROM t WHERE id > ?',
    ]) {
      const values = text.includes('?') ? [0] : [];
      const rows = await read(text, ...values);
      expect(rows).toEqual(expected(text, ...values));
      expect(Object.keys(rows[0] as object)).toEqual(Object.keys(expected(text, ...values)[0] as object));
    }
    // The version read beside a read, and streamed rows, are the same objects.
    const { rows, version } = driver.readAtDataVersion(CompiledQuery.raw('SELECT * FROM t ORDER BY id', []));
    expect(rows).toEqual(expected('SELECT * FROM t ORDER BY id'));
    expect(version).toBe(driver.dataVersion());
    const streamed: unknown[] = [];
    for await (const row of db.selectFrom('t').selectAll().orderBy('id').stream()) streamed.push(row);
    expect(streamed).toEqual(expected('SELECT * FROM t ORDER BY id'));
  });

  it('names the values right after another connection adds a column under *', async () => {
    const text = 'SELECT t.*, u.label FROM t JOIN u ON u.t_id = t.id ORDER BY t.id';
    expect(await read(text)).toEqual(expected(text));
    const other = open();
    other.exec(`ALTER TABLE t ADD COLUMN added TEXT DEFAULT 'new'`);
    other.close();
    const rows = await read(text);
    expect(rows).toEqual(expected(text));
    expect(rows[0]).toMatchObject({ added: 'new', label: 'first' });
  });
});
