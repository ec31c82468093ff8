import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchemas, openStores, type Store, type Stores } from '../../src/adapters/db/database.js';
import type { RegionalSchema } from '../../src/adapters/db/schema.js';
import { loadConfig } from '../../src/config/config.js';
import { float4Decimal, similarity, trigrams } from '../../src/domain/search/trigrams.js';

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

/**
 * Spaces, punctuation, the underscore, digits, both cases, letters beyond ASCII (two and three
 * UTF-8 bytes, one beyond the BMP), characters whose lower case changes their length in bytes
 * (İ, the Kelvin sign, Ⱥ), and non-letters beyond ASCII (², an emoji).
 */
const ALPHABET = [...'abcdeoABCDE0129 -_.,/éÉßÖöøØ中İ\u212AȺⱥǅ٣²𝐀😀'];

/** Pairs of texts: unrelated ones, and a text beside an edited copy of it (many trigrams shared). */
function textPairs(count: number, seed: number, maxLength: number): [string, string][] {
  const characters = fc.array(fc.constantFrom(...ALPHABET), { maxLength });
  const unrelated = fc.tuple(characters, characters);
  const edited = fc
    .tuple(characters, fc.nat(maxLength), fc.nat(3), characters)
    .map(([text, at, removed, inserted]) => [text, [...text.slice(0, at), ...inserted, ...text.slice(at + removed)]] as const);
  const pairs = fc.sample(fc.oneof(unrelated, edited), { numRuns: count, seed });
  return pairs.map(([a, b]) => [a.join(''), b.join('')]);
}

/** similarity(a, b) of each pair, computed by the store in one statement. */
async function storeSimilarities(store: Store<RegionalSchema>, pairs: [string, string][]) {
  if (store.dialect === 'postgres') {
    const { rows } = await sql<{ exact: number; printed: number }>`
      SELECT similarity(t.a, t.b)::float8 AS exact, similarity(t.a, t.b) AS printed
      FROM unnest(${pairs.map(([a]) => a)}::text[], ${pairs.map(([, b]) => b)}::text[]) WITH ORDINALITY AS t(a, b, n)
      ORDER BY t.n`.execute(store.db);
    return rows;
  }
  const { rows } = await sql<{ exact: number }>`
    SELECT similarity(j.value ->> 0, j.value ->> 1) AS exact FROM json_each(${JSON.stringify(pairs)}) AS j
    ORDER BY j.key`.execute(store.db);
  return rows.map((row) => ({ ...row, printed: float4Decimal(row.exact) }));
}

describe(`name closeness on ${databaseUrl ? 'PostgreSQL (pg_trgm)' : 'SQLite (the registered function)'}`, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-closeness-'));
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  let stores: Stores;
  let store: Store<RegionalSchema>;
  beforeAll(async () => {
    const env = {
      RDP_DATA_DIR: dataDir,
      RDP_LOG_LEVEL: 'silent',
      ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
    };
    stores = await openStores(loadConfig(env), { regions: ['eu'] });
    store = stores.regions.eu as Store<RegionalSchema>;
  });
  afterAll(async () => {
    await stores?.close();
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives the domain function’s value, as a float4, for 4,000 pairs of random texts', async () => {
    // Names are up to 255 characters: some texts that long among many short ones.
    const pairs = [...textPairs(3800, 20261123, 24), ...textPairs(200, 1123, 300)];
    const rows = await storeSimilarities(store, pairs);
    expect(rows).toHaveLength(pairs.length);
    const differing = pairs
      .map(([a, b], index) => ({ a, b, expected: similarity(a, b), found: rows[index]?.exact, printed: rows[index]?.printed }))
      .filter(({ expected, found, printed }) => found !== expected || printed !== float4Decimal(expected));
    expect(differing.slice(0, 10)).toEqual([]);
    // The pairs are no trivial sample: many share some trigrams without being alike.
    const partial = pairs.filter(([a, b]) => similarity(a, b) > 0 && similarity(a, b) < 1).length;
    expect(partial).toBeGreaterThan(1000);
  });

  it('answers NULL for a NULL argument and refuses what is not text', async () => {
    const { rows } = await sql<{ left: number | null; right: number | null }>`
      SELECT similarity(${null}, 'abc') AS "left", similarity('abc', ${null}) AS "right"`.execute(store.db);
    expect(rows).toEqual([{ left: null, right: null }]);
    if (store.dialect === 'sqlite') {
      await expect(sql`SELECT similarity(12, 'abc')`.execute(store.db)).rejects.toThrow(/takes two texts/);
    }
  });

  it('is there on every connection: reads, read-only transactions, transactions that write, write statements', async () => {
    const expected = [{ value: similarity('Pump house 3', 'pump-house') }];
    // PostgreSQL sends a real as its shortest decimal: Math.fround gives back the float4 itself.
    const query = async (db: Kysely<RegionalSchema>) => {
      const { rows } = await sql<{ value: number }>`SELECT similarity('Pump house 3', 'pump-house') AS value`.execute(db);
      return rows.map(({ value }) => ({ value: Math.fround(value) }));
    };
    expect(await query(store.db)).toEqual(expected);
    expect(await store.db.transaction().setAccessMode('read only').execute(query)).toEqual(expected);
    expect(await store.db.transaction().execute(query)).toEqual(expected);
    // A write statement outside a transaction runs on the writer (SQLite: its worker thread).
    const updated = await sql`UPDATE rdp_migrations SET applied_at = applied_at
      WHERE similarity(name, ${'0013-name-closeness'}) = 1`.execute(store.db);
    expect(Number(updated.numAffectedRows)).toBe(1);
  });

  it('orders names as the domain function does, ties included', async () => {
    const names = ['Pump 1', 'pump-2', 'Pumps', 'PUMP_1', 'Pumpe', 'Valve 1', 'Tank 1', 'pump', 'Pümp', ''];
    const search = 'pump 1';
    const rows =
      store.dialect === 'postgres'
        ? (
            await sql<{ n: number }>`SELECT t.n::int AS n FROM unnest(${names}::text[]) WITH ORDINALITY AS t(name, n)
              ORDER BY similarity(t.name, ${search}) DESC, t.n`.execute(store.db)
          ).rows
        : (
            await sql<{ n: number }>`SELECT j.key + 1 AS n FROM json_each(${JSON.stringify(names)}) AS j
              ORDER BY similarity(j.value, ${search}) DESC, j.key`.execute(store.db)
          ).rows;
    const expected = names
      .map((name, index) => ({ n: index + 1, closeness: similarity(name, search) }))
      .sort((x, y) => y.closeness - x.closeness || x.n - y.n)
      .map(({ n }) => ({ n }));
    expect(rows).toEqual(expected);
    expect(similarity('PUMP_1', search)).toBe(similarity('Pump 1', search));
  });
});

describe.skipIf(!databaseUrl)('the domain function against PostgreSQL’s own pg_trgm', () => {
  let stores: Stores;
  let store: Store<RegionalSchema>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-closeness-'));
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  beforeAll(async () => {
    const env = { RDP_DATA_DIR: dataDir, RDP_DATABASE_URL: databaseUrl as string, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix };
    stores = await openStores(loadConfig(env), { regions: ['eu'] });
    store = stores.regions.eu as Store<RegionalSchema>;
  });
  afterAll(async () => {
    await stores?.close();
    await dropPostgresSchemas(databaseUrl as string, schemaPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes the same characters as words, lower-cased and hashed alike, for every code point', async () => {
    // A word character alone is a word: show_trgm() lists its two trigrams ("  x", " x ").
    const { rows } = await sql<{ c: number; shown: string[] }>`
      SELECT c, ${sql.id(await extensionSchema(store), 'show_trgm')}(chr(c)) AS shown
      FROM generate_series(1, 1114111) AS c
      WHERE (c < 55296 OR c > 57343) AND cardinality(${sql.id(await extensionSchema(store), 'show_trgm')}(chr(c))) > 0`.execute(
      store.db,
    );
    const words = new Map(rows.map(({ c, shown }) => [c, shown]));
    const differing: string[] = [];
    for (let c = 1; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const shown = words.get(c) ?? [];
      // Three printable characters as themselves ("0xQ" among them), any other three as 0x and six hex digits.
      const expected = shown.map((trigram) => (trigram.length === 3 ? trigramCode(trigram) : Number.parseInt(trigram, 16)));
      if (expected.sort((x, y) => x - y).join() !== trigrams(String.fromCodePoint(c)).join()) differing.push(c.toString(16));
    }
    expect(words.size).toBeGreaterThan(100_000);
    expect(differing.slice(0, 20)).toEqual([]);
  });

  it('prints every closeness of up to 512 trigrams, and 20,000 other reals, as PostgreSQL prints a real', async () => {
    const { rows } = await sql<{ shared: number; union: number; printed: number }>`
      SELECT shared, "union", shared::float4 / "union"::float4 AS printed
      FROM generate_series(1, 512) AS "union", generate_series(0, "union") AS shared`.execute(store.db);
    const differing = rows.filter(({ shared, union, printed }) => float4Decimal(Math.fround(shared / union)) !== printed);
    expect(differing.slice(0, 10)).toEqual([]);
    const reals = fc.sample(fc.float({ min: 0, max: 1, noNaN: true }), { numRuns: 20_000, seed: 1123 });
    const printed = await sql<{ value: number; printed: number }>`
      SELECT value, value::float4 AS printed FROM unnest(${reals}::float8[]) AS value`.execute(store.db);
    const misprinted = printed.rows.filter(({ value, printed }) => float4Decimal(value) !== printed);
    expect(misprinted.slice(0, 10)).toEqual([]);
  });
});

async function extensionSchema(store: Store<RegionalSchema>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`
    SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm'`.execute(store.db);
  return rows[0]?.schema as string;
}

/** A trigram of three plain characters as show_trgm() prints it, as the number trigrams() gives. */
function trigramCode(shown: string): number {
  return (shown.charCodeAt(0) << 16) | (shown.charCodeAt(1) << 8) | shown.charCodeAt(2);
}
