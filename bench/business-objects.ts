import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { dropPostgresSchemas, sql } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { openPlatform } from '../src/platform.js';
import { fetchToken } from './support/bench-store.js';
import { type BusinessObjectStore, objectName, seedBusinessObjects } from './support/business-object-store.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { percentile, timedRequest } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median } from './support/rounds.js';

/**
 * Business-object search (GET /v1/business-objects) in an organization of 100,000 live objects
 * against the same search in one of 1,000, for the administrator: each ratio is the median of
 * rounds, each round the medians of sequential requests alternating between the two servers
 * (whatever else loads the machine slows both; fewer requests for a slow search, at least 5). The searches find the same objects in both
 * stores (objects 0 to 999 are in each): what grows is only what the search has to pass over.
 * - contains a tag, startsWith a name's first 25 characters (4 objects), exact a name in other
 *   case: target <= 2x;
 * - fuzzy by nameCloseness with a misspelt name that no other name is close to (planted in both
 *   stores): target <= 5x on PostgreSQL, reported on SQLite (which has no trigram index for it and
 *   scans the organization's names);
 * - for information: fuzzy with a misspelt name whose area words an eighth of the names share (an
 *   eighth of the objects match, so its cost grows with them);
 * - for information: a contains search of a word in every twelfth name, and the first page with
 *   no condition (both count all their matches, so they grow with them), and a user who reads a
 *   tenth of the sites.
 * SQLite; PostgreSQL too with RDP_BENCH_DATABASE_URL.
 */
const LARGE = 100_000;
const SMALL = 1_000;
const ROUNDS = quick ? 3 : 7;
const REQUESTS = quick ? 40 : 150;
/** A round's requests to each side: REQUESTS, fewer for a slow search (about this long a side, at least 5). */
const ROUND_MS = quick ? 1500 : 4000;

const TARGET = objectName(417);
const SEARCHES: { measure: string; query: string; target: number | 'postgres' | undefined }[] = [
  { measure: 'contains a tag', query: `searchNameQuery=${encodeURIComponent(TARGET.slice(-8))}`, target: 2 },
  {
    measure: 'startsWith',
    query: `searchNameQuery=${encodeURIComponent(TARGET.slice(0, -2).toLowerCase())}&searchNameMatch=startsWith`,
    target: 2,
  },
  { measure: 'exact', query: `searchNameQuery=${encodeURIComponent(TARGET.toUpperCase())}&searchNameMatch=exact`, target: 2 },
  {
    measure: 'fuzzy by nameCloseness, a name of its own misspelt',
    query: `searchNameQuery=${encodeURIComponent('cryogenic air separaton unit')}&searchNameMatch=fuzzy&sortBy=nameCloseness`,
    target: 'postgres',
  },
  {
    measure: 'fuzzy by nameCloseness, a name whose words an eighth share (info)',
    query: `searchNameQuery=${encodeURIComponent(TARGET.replace('Sensor', 'Sensr'))}&searchNameMatch=fuzzy&sortBy=nameCloseness`,
    target: undefined,
  },
  { measure: 'contains a frequent word (info)', query: 'searchNameQuery=pump', target: undefined },
  { measure: 'no condition, first page (info)', query: '', target: undefined },
];

interface Opened {
  store: BusinessObjectStore;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

async function openStore(label: string, objects: number, databaseUrl: string | undefined): Promise<Opened> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `rdp-bench-objects-${objects}-`));
  const prefix = `b_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: prefix } : {}),
  };
  const cleanup = async () => {
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const started = performance.now();
    const platform = await openPlatform(loadConfig({ ...env, RDP_LOG_LEVEL: 'silent' }));
    try {
      const store = await seedBusinessObjects(platform, objects);
      // Fresh bulk-loaded tables have no statistics yet: settle them as in steady state.
      const { db } = platform.region('eu').store;
      await sql.raw(databaseUrl ? 'VACUUM ANALYZE' : 'ANALYZE').execute(db);
      log(`  ${label}: ${objects} objects on ${store.sites} sites in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      return { store, env, cleanup };
    } finally {
      await platform.close();
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
}

interface Served {
  server: ChildServer;
  url: (query: string) => string;
  admin: Record<string, string>;
  user: Record<string, string>;
}

async function serve(opened: Opened): Promise<Served> {
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...opened.env });
  const bearer = async (client: BusinessObjectStore['admin']) => ({
    authorization: `Bearer ${await fetchToken(server.origin, client)}`,
  });
  return {
    server,
    url: (query) => `${server.origin}/eu/reality/v1/business-objects${query ? `?${query}` : ''}`,
    admin: await bearer(opened.store.admin),
    user: await bearer(opened.store.user),
  };
}

/** What a search answers in a store: its total, checked equal on both sides where the search is selective. */
async function total(served: Served, query: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(served.url(query), { headers });
  if (!response.ok) throw new Error(`${served.url(query)}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { total: number }).total;
}

async function ratio(
  label: string,
  measure: string,
  large: Served,
  small: Served,
  query: string,
  who: 'admin' | 'user',
  target: number | undefined,
): Promise<SummaryRow> {
  const [bigTotal, smallTotal] = [await total(large, query, large[who]), await total(small, query, small[who])];
  const ratios: number[] = [];
  const latencies: [number, number][] = [];
  const send = (served: Served) => timedRequest(served.url(query), { headers: served[who] });
  const requests = Math.max(5, Math.min(REQUESTS, Math.floor(ROUND_MS / (await send(large)))));
  // Warm-up: both servers' statements prepared and caches filled.
  for (let i = 0; i < Math.min(20, requests); i += 1) {
    await send(large);
    await send(small);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    const bigs: number[] = [];
    const littles: number[] = [];
    for (let i = 0; i < requests; i += 1) {
      bigs.push(await send(large));
      littles.push(await send(small));
    }
    const [big, little] = [percentile(bigs, 50), percentile(littles, 50)];
    ratios.push(big / little);
    latencies.push([big, little]);
  }
  const value = median(ratios);
  const big = median(latencies.map(([b]) => b));
  const little = median(latencies.map(([, l]) => l));
  const name = `${measure}, ${LARGE / 1000}k / ${SMALL / 1000}k objects${who === 'user' ? ', user of a tenth' : ''} (${label})`;
  log(
    `  ${name}: ${times(value)} (${ms(big)} vs ${ms(little)}; totals ${bigTotal} and ${smallTotal})${target ? `, target <= ${target}x` : ''}`,
  );
  return {
    bench: 'business-objects',
    measure: name,
    ratio: times(value),
    target: target ? `<= ${target}x` : 'info',
    met: target ? value <= target : undefined,
  };
}

async function onStore(label: string, databaseUrl: string | undefined): Promise<SummaryRow[]> {
  log(`${label}:`);
  const small = await openStore(`${label}-${SMALL}`, SMALL, databaseUrl);
  try {
    const large = await openStore(`${label}-${LARGE}`, LARGE, databaseUrl);
    try {
      const servedSmall = await serve(small);
      try {
        const servedLarge = await serve(large);
        try {
          const rows: SummaryRow[] = [];
          for (const search of SEARCHES) {
            const target = search.target === 'postgres' ? (databaseUrl ? 5 : undefined) : search.target;
            rows.push(await ratio(label, search.measure, servedLarge, servedSmall, search.query, 'admin', target));
          }
          rows.push(await ratio(label, 'contains a tag', servedLarge, servedSmall, SEARCHES[0]?.query ?? '', 'user', undefined));
          return rows;
        } finally {
          await servedLarge.server.stop();
        }
      } finally {
        await servedSmall.server.stop();
      }
    } finally {
      await large.cleanup();
    }
  } finally {
    await small.cleanup();
  }
}

export async function runBusinessObjects(): Promise<SummaryRow[]> {
  log(
    `# business-objects: search in ${LARGE} against ${SMALL} live objects of one organization; median of ${ROUNDS} rounds of ${REQUESTS} requests, alternating`,
  );
  const rows = await onStore('SQLite', undefined);
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL;
  if (databaseUrl) rows.push(...(await onStore('PostgreSQL', databaseUrl)));
  else log('PostgreSQL: set RDP_BENCH_DATABASE_URL to measure it too');
  return rows;
}

runMain(import.meta.url, runBusinessObjects);
