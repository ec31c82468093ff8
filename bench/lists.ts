import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { dropPostgresSchemas, sql } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { openPlatform } from '../src/platform.js';
import { fetchToken } from './support/bench-store.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { pairedMedians, pairedMediansAfter, type Target } from './support/latency.js';
import { type ListStore, seedListStore } from './support/list-store.js';
import { seedPeopleLists } from './support/people-list-store.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * The long lists against the reads they must keep up with, medians of sequential requests
 * alternating between the two sides of each ratio (whatever else loads the machine slows both):
 * - the trash (5,000 entries, a page of 100) against a browse of 100 children, in an organization
 *   of 200,000 nodes, for an administrator and for a user whose access comes through 50 groups;
 * - the same trash page in an organization of 1,000,000 nodes against 200,000, both served at
 *   once (RDP_BENCH_LISTS_MILLION=1; otherwise 400,000, which builds in a fraction of the time);
 * - /v1/users and SCIM /Users of 10,000 people: a page 9,000 in, by offset and by cursor, against
 *   the first page;
 * - the same for /v1/groups, /v1/roles, a node's memberships, /v1/invitations and SCIM /Groups,
 *   10,000 of each (bench/support/people-list-store.ts).
 * A deep offset page starts from an anchor while its list is unchanged (docs/performance.md, "Lists
 * at depth"); "after a change" measures it with the list's version raised before each request, as
 * any change of the list raises it: the anchor is refused and the page read by plain offset.
 * RDP_BENCH_LISTS_ONLY=depth measures the pages at depth alone, on a small tree.
 * SQLite; PostgreSQL too with RDP_BENCH_DATABASE_URL.
 */
const DEPTH_ONLY = process.env.RDP_BENCH_LISTS_ONLY === 'depth';
const SIZE = process.env.RDP_BENCH_LISTS_ONLY === 'depth' ? 2_000 : quick ? 50_000 : 200_000;
const LARGE = process.env.RDP_BENCH_LISTS_MILLION === '1' ? 1_000_000 : quick ? 100_000 : 400_000;
const PEOPLE = 10_000;
const DEEP = 9_000;
const PAGE = 100;
const REQUESTS = quick ? 100 : 300;

interface Opened {
  store: ListStore;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

async function openStore(label: string, nodes: number, people: number, databaseUrl: string | undefined): Promise<Opened> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `rdp-bench-lists-${label}-`));
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
      const store = await seedListStore(platform, nodes, people);
      if (people > 0) await seedPeopleLists(platform, store.orgId, people);
      // Fresh bulk-loaded tables have no statistics yet: settle them as in steady state.
      if (databaseUrl)
        for (const s of [platform.stores.global, platform.region('eu').store]) await sql`VACUUM ANALYZE`.execute(s.db);
      log(
        `  ${label}: ${store.nodes} nodes, ${store.trashRoots} trash entries${people ? `, ${people} people` : ''} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
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
  api: string;
  admin: Record<string, string>;
  user: Record<string, string>;
  /** Raises a list's version (list_versions) through a connection of the benchmark's own. */
  change(store: 'global' | 'region_eu', listKey: string): Promise<void>;
}

/** A connection per store of the served platform that raises list versions, as any change of a list does. */
async function versionChanger(env: Record<string, string>) {
  const upsert =
    'INSERT INTO list_versions (list_key, version) VALUES ($1, 1) ON CONFLICT (list_key) DO UPDATE SET version = list_versions.version + 1';
  const url = env.RDP_DATABASE_URL;
  if (url) {
    const { default: pg } = await import('pg');
    const clients = new Map<string, InstanceType<typeof pg.Client>>();
    for (const store of ['global', 'region_eu']) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`SET search_path TO "${env.RDP_DATABASE_SCHEMA_PREFIX}_${store}"`);
      clients.set(store, client);
    }
    return {
      change: async (store: string, listKey: string) => void (await clients.get(store)?.query(upsert, [listKey])),
      close: async () => void (await Promise.all([...clients.values()].map((client) => client.end()))),
    };
  }
  const { default: SQLite } = await import('better-sqlite3');
  const files = new Map(
    ['global', 'region_eu'].map((store) => [store, new SQLite(path.join(env.RDP_DATA_DIR as string, `${store}.sqlite`))]),
  );
  return {
    change: async (store: string, listKey: string) => void files.get(store)?.prepare(upsert.replace('$1', '?')).run(listKey),
    close: async () => {
      for (const file of files.values()) file.close();
    },
  };
}

async function serve(opened: Opened): Promise<Served> {
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...opened.env });
  const bearer = async (client: ListStore['admin']) => ({ authorization: `Bearer ${await fetchToken(server.origin, client)}` });
  const changer = await versionChanger(opened.env);
  return {
    server: {
      ...server,
      stop: async () => {
        await changer.close();
        await server.stop();
      },
    },
    api: `${server.origin}/eu/reality`,
    admin: await bearer(opened.store.admin),
    user: await bearer(opened.store.user),
    change: changer.change,
  };
}

/** The cursor of the page that starts `depth` rows in, by walking pages of `step` rows. */
async function cursorAt(
  url: (cursor: string | undefined) => string,
  headers: Record<string, string>,
  step: number,
  read: (response: Response) => Promise<string | undefined>,
) {
  let cursor: string | undefined;
  for (let seen = 0; seen < DEEP; seen += step) {
    const response = await fetch(url(cursor), { headers });
    if (!response.ok) throw new Error(`${url(cursor)}: ${response.status}`);
    cursor = await read(response);
    if (!cursor) throw new Error('the list ended before the deep page');
  }
  return cursor as string;
}

function row(measure: string, ratio: number, target: number | undefined, detail: string): SummaryRow {
  log(`  ${measure}: ${times(ratio)} (${detail})${target ? `, target <= ${target}x` : ''}`);
  return {
    bench: 'lists',
    measure,
    ratio: times(ratio),
    target: target ? `<= ${target}x` : 'info',
    met: target ? ratio <= target : undefined,
  };
}

async function trashRatios(label: string, main: Served, store: ListStore): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  for (const who of ['admin', 'user'] as const) {
    const headers = main[who];
    const [trash, browse] = await pairedMedians(
      { url: `${main.api}/v1/trash?limit=${PAGE}`, headers },
      { url: `${main.api}/v1/nodes/${store.browseFolderId}/browse?limit=${PAGE}`, headers },
      REQUESTS,
    );
    const name = who === 'admin' ? 'admin' : 'user via groups';
    rows.push(
      row(
        `trash / browse, page of ${PAGE}, ${name}, ${SIZE / 1000}k nodes (${label})`,
        trash / browse,
        2,
        `${ms(trash)} vs ${ms(browse)}`,
      ),
    );
  }
  return rows;
}

async function growth(label: string, main: Served, large: Served): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  for (const who of ['admin', 'user'] as const) {
    const target = (served: Served): Target => ({ url: `${served.api}/v1/trash?limit=${PAGE}`, headers: served[who] });
    const [big, small] = await pairedMedians(target(large), target(main), REQUESTS);
    const name = who === 'admin' ? 'admin' : 'user via groups';
    rows.push(
      row(`trash, ${LARGE / 1000}k / ${SIZE / 1000}k nodes, ${name} (${label})`, big / small, 1.5, `${ms(big)} vs ${ms(small)}`),
    );
  }
  return rows;
}

async function peopleLists(label: string, main: Served, store: ListStore): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  const users = (query: string): Target => ({ url: `${main.api}/v1/users?limit=${PAGE}${query}`, headers: main.admin });
  const userCursor = await cursorAt(
    (cursor) => `${main.api}/v1/users?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    main.admin,
    500,
    async (response) => {
      await response.arrayBuffer();
      return response.headers.get('next-cursor') ?? undefined;
    },
  );
  const [deepOffset, firstA] = await pairedMedians(users(`&offset=${DEEP}`), users(''), REQUESTS);
  rows.push(
    row(`/v1/users offset ${DEEP} / first page (${label})`, deepOffset / firstA, 1.5, `${ms(deepOffset)} vs ${ms(firstA)}`),
  );
  const [deepCursor, firstB] = await pairedMedians(users(`&cursor=${encodeURIComponent(userCursor)}`), users(''), REQUESTS);
  rows.push(
    row(`/v1/users cursor at ${DEEP} / first page (${label})`, deepCursor / firstB, 1.2, `${ms(deepCursor)} vs ${ms(firstB)}`),
  );
  const changeUsers = () => main.change('global', `users:${store.orgId}`);
  const [coldOffset, firstC] = await pairedMediansAfter(changeUsers, users(`&offset=${DEEP}`), users(''), REQUESTS);
  rows.push(
    row(
      `/v1/users offset ${DEEP} after a change / first page (${label})`,
      coldOffset / firstC,
      1.5,
      `${ms(coldOffset)} vs ${ms(firstC)}`,
    ),
  );

  rows.push(...(await scimDepthRows(label, main, store, 'Users', changeUsers, 1.2)));
  return rows;
}

/**
 * A SCIM list's page `DEEP` rows in, by startIndex, by cursor and by startIndex right after
 * `change`, each against the first page (targets 1.5x, the cursor's `cursorTarget`).
 */
async function scimDepthRows(
  label: string,
  main: Served,
  store: ListStore,
  resource: 'Users' | 'Groups',
  change: () => Promise<void>,
  cursorTarget: number,
): Promise<SummaryRow[]> {
  const headers = { authorization: `Bearer ${store.scimToken}` };
  const list = `${main.server.origin}/scim/v2/${resource}`;
  const scim = (query: string): Target => ({ url: `${list}?count=${PAGE}${query}`, headers });
  const cursor = await cursorAt(
    (after) => `${list}?count=200&cursor=${encodeURIComponent(after ?? '')}`,
    headers,
    200,
    async (response) => ((await response.json()) as { nextCursor?: string }).nextCursor,
  );
  const measured: [string, number, [number, number]][] = [
    [`startIndex ${DEEP + 1}`, 1.5, await pairedMedians(scim(`&startIndex=${DEEP + 1}`), scim(''), REQUESTS)],
    [`cursor at ${DEEP}`, cursorTarget, await pairedMedians(scim(`&cursor=${encodeURIComponent(cursor)}`), scim(''), REQUESTS)],
    [
      `startIndex ${DEEP + 1} after a change`,
      1.5,
      await pairedMediansAfter(change, scim(`&startIndex=${DEEP + 1}`), scim(''), REQUESTS),
    ],
  ];
  return measured.map(([what, target, [deep, first]]) =>
    row(`SCIM /${resource} ${what} / first page (${label})`, deep / first, target, `${ms(deep)} vs ${ms(first)}`),
  );
}

/** A page `DEEP` rows in, by offset and by cursor, against the first page, for each people list. */
async function depthRatios(label: string, main: Served, store: ListStore): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  const lists = [
    { name: '/v1/groups', path: '/v1/groups', listKey: `groups:${store.orgId}` },
    { name: '/v1/roles', path: '/v1/roles', listKey: `roles:${store.orgId}` },
    { name: 'memberships', path: `/v1/nodes/${store.orgId}/memberships`, listKey: `memberships:${store.orgId}` },
    { name: '/v1/invitations', path: '/v1/invitations', listKey: `invitations:${store.orgId}` },
  ];
  for (const list of lists) {
    const url = (query: string) => `${main.api}${list.path}?limit=${PAGE}${query}`;
    const target = (query: string): Target => ({ url: url(query), headers: main.admin });
    const cursor = await cursorAt(
      (after) => `${main.api}${list.path}?limit=500${after ? `&cursor=${encodeURIComponent(after)}` : ''}`,
      main.admin,
      500,
      async (response) => {
        await response.arrayBuffer();
        return response.headers.get('next-cursor') ?? undefined;
      },
    );
    const [deepOffset, firstA] = await pairedMedians(target(`&offset=${DEEP}`), target(''), REQUESTS);
    rows.push(
      row(`${list.name} offset ${DEEP} / first page (${label})`, deepOffset / firstA, 1.5, `${ms(deepOffset)} vs ${ms(firstA)}`),
    );
    const [deepCursor, firstB] = await pairedMedians(target(`&cursor=${encodeURIComponent(cursor)}`), target(''), REQUESTS);
    rows.push(
      row(
        `${list.name} cursor at ${DEEP} / first page (${label})`,
        deepCursor / firstB,
        1.5,
        `${ms(deepCursor)} vs ${ms(firstB)}`,
      ),
    );
    const change = () => main.change('region_eu', list.listKey);
    const [cold, firstC] = await pairedMediansAfter(change, target(`&offset=${DEEP}`), target(''), REQUESTS);
    rows.push(
      row(
        `${list.name} offset ${DEEP} after a change / first page (${label})`,
        cold / firstC,
        1.5,
        `${ms(cold)} vs ${ms(firstC)}`,
      ),
    );
  }
  const changeGroups = () => main.change('region_eu', `groups:${store.orgId}`);
  rows.push(...(await scimDepthRows(label, main, store, 'Groups', changeGroups, 1.5)));
  return rows;
}

async function onStore(label: string, databaseUrl: string | undefined): Promise<SummaryRow[]> {
  log(`${label}:`);
  const main = await openStore(`${label}-${SIZE}`, SIZE, PEOPLE, databaseUrl);
  if (DEPTH_ONLY) {
    try {
      const served = await serve(main);
      try {
        return [...(await peopleLists(label, served, main.store)), ...(await depthRatios(label, served, main.store))];
      } finally {
        await served.server.stop();
      }
    } finally {
      await main.cleanup();
    }
  }
  try {
    const large = await openStore(`${label}-${LARGE}`, LARGE, 0, databaseUrl);
    try {
      const served = await serve(main);
      try {
        const rows = await trashRatios(label, served, main.store);
        const servedLarge = await serve(large);
        try {
          rows.push(...(await growth(label, served, servedLarge)));
        } finally {
          await servedLarge.server.stop();
        }
        rows.push(...(await peopleLists(label, served, main.store)));
        rows.push(...(await depthRatios(label, served, main.store)));
        return rows;
      } finally {
        await served.server.stop();
      }
    } finally {
      await large.cleanup();
    }
  } finally {
    await main.cleanup();
  }
}

export async function runLists(): Promise<SummaryRow[]> {
  log(
    `# lists: trash (5,000 entries) against browse, ${SIZE} and ${LARGE} nodes; users and SCIM of ${PEOPLE} people, ${DEEP} in; median of ${REQUESTS} requests, alternating`,
  );
  const rows = await onStore('SQLite', undefined);
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL;
  if (databaseUrl) rows.push(...(await onStore('PostgreSQL', databaseUrl)));
  else log('PostgreSQL: set RDP_BENCH_DATABASE_URL to measure it too');
  return rows;
}

runMain(import.meta.url, runLists);
