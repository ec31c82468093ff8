import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { dropPostgresSchemas, sql } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { issuerOf } from '../src/domain/oauth/issuer.js';
import { AccessTokenIssuer, AccessTokenVerifier } from '../src/oauth/access-tokens.js';
import { SigningKeys } from '../src/oauth/signing-keys.js';
import { openPlatform } from '../src/platform.js';
import { type BenchStore, createBenchStore, fetchToken, seedOrganization } from './support/bench-store.js';
import { insertBrowseTree, insertGroupCaller } from './support/browse-tree.js';
import { BulkTree } from './support/bulk-tree.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { warmedLoad } from './support/load.js';
import { log, median, pct, quick, runMain, type SummaryRow } from './support/report.js';

/**
 * Authenticated browse of a folder with 20 children under 50 connections, by the caller most
 * callers are (a service user whose access comes through a custom role given to a group on the
 * folder's division: insertGroupCaller): the platform against
 * bare Fastify serving the same query on the same store (better-sqlite3 on the SQLite file; pg
 * with a prepared statement on PostgreSQL, with RDP_BENCH_DATABASE_URL), each server in a child
 * process, side by side, measured one at a time; and the authenticated GET of the same folder,
 * PostgreSQL against SQLite. Every figure is the median of the rounds' (ratios of measurements
 * taken next to each other in a round), with the server's CPU per request. Then what
 * authorization costs, in-process.
 */
const CONNECTIONS = 50;
const SECONDS = quick ? 2 : 5;
const WARMUP_SECONDS = 1;
const ROUNDS = quick ? 3 : 7;

/** A folder of 20 children in an organization of 10 sites x 500 items: what browse and rate-limit load. */
export async function buildBrowseStore(label = 'browse'): Promise<{ store: BenchStore; folderId: string }> {
  const store = await createBenchStore(label);
  const tree = new BulkTree(store.regionFile, store.orgId);
  const division = tree.add(tree.org, 'division', 'Infrastructure');
  for (let i = 0; i < 10; i += 1) tree.site(division, `Depot ${i + 1}`, 500);
  const site = tree.add(division, 'site', 'Central Station', '1 Station Avenue');
  const folder = tree.add(site, 'folder', 'Survey 2024');
  for (let i = 0; i < 20; i += 1) tree.item(folder, 1);
  tree.commit();
  return { store, folderId: folder.id };
}

interface Measured {
  rate: number;
  /** The server process's CPU per request, all threads (Linux), microseconds. */
  cpu: number | undefined;
  p99: number;
}

async function measure(server: ChildServer, url: string, headers: Record<string, string> = {}): Promise<Measured> {
  const result = await warmedLoad(url, {
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    headers,
    serverPid: server.child.pid,
  });
  return { rate: result.requestsPerSecond, cpu: result.cpuMicrosPerRequest, p99: result.p99 };
}

/** A store of the benchmark: its organization, the folder browsed, and how the servers reach it. */
export interface BrowseBench {
  label: 'SQLite' | 'PostgreSQL';
  env: Record<string, string>;
  bareEnv: Record<string, string>;
  /** The caller measured: a service user reaching the folder through a group's custom role on its division. */
  store: { orgId: string; clientId: string; clientSecret: string };
  /** The organization's administrator application (one direct membership on the organization node), for comparison. */
  admin: { orgId: string; clientId: string; clientSecret: string };
  folderId: string;
  remove(): Promise<void>;
}

export async function prepareStore(label: BrowseBench['label'], databaseUrl?: string): Promise<BrowseBench> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-bench-browse-'));
  const prefix = `b_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: prefix } : {}),
  };
  const remove = async () => {
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const store = await seedOrganization(env);
    const platform = await openPlatform(loadConfig({ ...env, RDP_LOG_LEVEL: 'silent' }));
    let folderId: string;
    let caller: BrowseBench['store'];
    try {
      const tree = await insertBrowseTree(platform, store.orgId);
      folderId = tree.folderId;
      caller = { orgId: store.orgId, ...(await insertGroupCaller(platform, store.orgId, tree.divisionId)) };
      // Statistics as in steady state, before autovacuum would take them mid-measurement.
      if (databaseUrl) await sql`VACUUM ANALYZE`.execute(platform.region('eu').store.db);
    } finally {
      await platform.close();
    }
    const bareEnv: Record<string, string> = databaseUrl
      ? { RDP_BENCH_BARE_DATABASE_URL: databaseUrl, RDP_BENCH_SCHEMA: `${prefix}_region_eu` }
      : { RDP_BENCH_REGION_FILE: path.join(dataDir, 'region_eu.sqlite') };
    return { label, env, bareEnv, store: caller, admin: store, folderId, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

interface Round {
  bare: Measured;
  browse: Measured;
  /** The same browse by the organization's administrator application: what the caller changes. */
  adminBrowse: Measured;
  get: Measured;
  unauthenticated: Measured;
}

/** A store's two servers, running side by side for the whole benchmark, and what to ask them. */
interface Servers {
  bench: BrowseBench;
  bare: ChildServer;
  platform: ChildServer;
  headers: Record<string, string>;
  adminHeaders: Record<string, string>;
  stop(): Promise<void>;
}

async function startServers(bench: BrowseBench): Promise<Servers> {
  const bare = await startChildServer('bench/servers/bare-browse-server.ts', bench.bareEnv);
  try {
    const platform = await startChildServer('bench/servers/platform-server.ts', {
      ...bench.env,
      RDP_LOG_LEVEL: 'warn',
      RDP_BENCH_UNAUTHENTICATED_BROWSE: '1',
    });
    const headers = { authorization: `Bearer ${await fetchToken(platform.origin, bench.store)}` };
    const adminHeaders = { authorization: `Bearer ${await fetchToken(platform.origin, bench.admin)}` };
    return {
      bench,
      bare,
      platform,
      headers,
      adminHeaders,
      stop: async () => {
        await platform.stop();
        await bare.stop();
      },
    };
  } catch (error) {
    await bare.stop();
    throw error;
  }
}

/**
 * One round on one store: the bare server's browse and the platform's browse, GET and
 * unauthenticated browse, one after the other in an order that rotates every round, so that a
 * drift of the machine's load favours none. Both servers stay up between rounds.
 */
async function round(servers: Servers, index: number): Promise<Round> {
  const { bench, bare, platform, headers, adminHeaders } = servers;
  const base = `${platform.origin}/eu/reality/v1/nodes/${bench.folderId}`;
  const runs = [
    () => measure(bare, `${bare.origin}/v1/nodes/${bench.folderId}/browse`),
    () => measure(platform, `${base}/browse`, headers),
    () => measure(platform, base, headers),
    () => measure(platform, `${platform.origin}/bench/unauthenticated-browse/${bench.folderId}`),
    () => measure(platform, `${base}/browse`, adminHeaders),
  ];
  const results: Measured[] = [];
  for (let i = 0; i < runs.length; i += 1) {
    const which = (i + index) % runs.length;
    results[which] = await (runs[which] as () => Promise<Measured>)();
  }
  const [bareBrowse, browse, get, unauthenticated, adminBrowse] = results as [Measured, Measured, Measured, Measured, Measured];
  const show = (name: string, m: Measured) =>
    `${name} ${m.rate.toFixed(0)} req/s (${m.cpu?.toFixed(0) ?? '?'} us CPU, p99 ${m.p99} ms)`;
  log(
    `  ${bench.label} round ${index + 1}: ${show('bare', bareBrowse)}, ${show('browse', browse)} = ${pct(browse.rate / bareBrowse.rate)}, ` +
      `${show('GET', get)}, ${show('unauthenticated browse', unauthenticated)}, ${show('administrator browse', adminBrowse)}`,
  );
  return { bare: bareBrowse, browse, adminBrowse, get, unauthenticated };
}

/**
 * Microseconds per call of an async operation, over a fixed number of sequential calls: this
 * process's CPU time on SQLite (the statement runs here, and CPU moves less than wall time on a
 * busy machine), wall time on PostgreSQL (the statement runs in the server).
 */
let wallTime = false;
async function microseconds(calls: number, operation: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(500, calls / 4); i += 1) await operation();
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await operation();
  const used = process.cpuUsage(cpu);
  return wallTime ? ((performance.now() - start) * 1000) / calls : (used.user + used.system) / calls;
}

/** The token check (cache hit) and the access query, in this process, next to the children query they guard. */
async function authorizationMicro(bench: BrowseBench) {
  const platform = await openPlatform(loadConfig({ ...bench.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const issuer = issuerOf(platform.config.publicUrl);
    const keys = await SigningKeys.load(platform.tokens, platform.clock);
    const { config, clock, directory, tokens, principalChanges } = platform;
    const verifier = AccessTokenVerifier.open({
      authJwksUrl: config.authJwksUrl,
      keys: keys.jwks(),
      issuer,
      directory,
      tokens,
      clock,
      principalChanges,
    });
    const userId = (await platform.directory.findApplication(bench.store.clientId))?.service_user_id as string;
    const { token } = await new AccessTokenIssuer(keys, issuer, 3600, platform.clock).issue(
      { userId, orgId: bench.store.orgId, clientId: bench.store.clientId, scopes: ['read:hierarchy'] },
      randomUUID(),
    );
    const header = `Bearer ${token}`;
    const nodes = platform.region('eu').nodes;
    const { orgId } = bench.store;
    const calls = bench.label === 'PostgreSQL' ? (quick ? 1000 : 4000) : quick ? 5000 : 20000;
    wallTime = bench.label === 'PostgreSQL';
    return {
      token: await microseconds(calls, () => verifier.authenticate(header)),
      access: await microseconds(calls, () => nodes.findWithAccess(orgId, bench.folderId, userId)),
      children: await microseconds(calls, () => nodes.children(bench.folderId, 100, 0)),
      browse: await microseconds(calls, () => nodes.browse(orgId, bench.folderId, userId, 100, 0)),
    };
  } finally {
    await platform.close();
  }
}

const cpuText = (value: number | undefined) => (value === undefined ? '?' : `${value.toFixed(0)} us`);
const medianOf = (values: (number | undefined)[]) => {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length ? median(known) : undefined;
};

export async function runBrowse(): Promise<SummaryRow[]> {
  log(`# browse: GET /v1/nodes/{id}/browse, 20 children, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds`);
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL;
  const benches = [await prepareStore('SQLite')];
  const rows: SummaryRow[] = [];
  try {
    if (databaseUrl) benches.push(await prepareStore('PostgreSQL', databaseUrl));
    else log('PostgreSQL: set RDP_BENCH_DATABASE_URL to measure it too');
    const rounds = new Map<string, Round[]>(benches.map((bench) => [bench.label, []]));
    const running: Servers[] = [];
    try {
      for (const bench of benches) running.push(await startServers(bench));
      for (let index = 0; index < ROUNDS; index += 1) {
        // The stores in turn, the first one alternating, so that the GET ratio pairs neighbours.
        const order = index % 2 === 0 ? running : [...running].reverse();
        for (const servers of order) rounds.get(servers.bench.label)?.push(await round(servers, index));
      }
    } finally {
      for (const servers of running) await servers.stop();
    }
    for (const bench of benches) {
      const measured = rounds.get(bench.label) as Round[];
      const ratio = median(measured.map((r) => r.browse.rate / r.bare.rate));
      // By CPU per request (the bare server's over the platform's): steadier than req/s when
      // other work shares the cores, and what decides req/s once the server is the bottleneck.
      const cpuRatio = medianOf(measured.map((r) => (r.bare.cpu && r.browse.cpu ? r.bare.cpu / r.browse.cpu : undefined)));
      const withoutAuth = median(measured.map((r) => r.browse.rate / r.unauthenticated.rate));
      const byCaller = median(measured.map((r) => r.browse.rate / r.adminBrowse.rate));
      const target = bench.label === 'SQLite' ? 0.85 : 0.7;
      const micro = await authorizationMicro(bench);
      log(
        `${bench.label}: platform / bare ${pct(ratio)} by req/s (median of ${measured.length} rounds; target >= ${pct(target)}), ` +
          `${cpuRatio === undefined ? '?' : pct(cpuRatio)} by CPU per request, ` +
          `CPU per request ${cpuText(medianOf(measured.map((r) => r.browse.cpu)))} / ${cpuText(medianOf(measured.map((r) => r.bare.cpu)))}; ` +
          `with / without authorization ${pct(withoutAuth)}; group caller / administrator ${pct(byCaller)}`,
      );
      log(
        `  in-process per call (${bench.label === 'PostgreSQL' ? 'wall' : 'CPU'}): token check ${micro.token.toFixed(1)} us, access check ${micro.access.toFixed(1)} us, ` +
          `children query ${micro.children.toFixed(1)} us, access check with the children ${micro.browse.toFixed(1)} us`,
      );
      rows.push(
        {
          bench: 'browse',
          measure: `platform req/s / bare Fastify (${bench.label}), median of rounds`,
          ratio: `${pct(ratio)} (by CPU ${cpuRatio === undefined ? '?' : pct(cpuRatio)})`,
          target: `>= ${pct(target)}`,
          met: ratio >= target,
        },
        {
          bench: 'browse',
          measure: `with auth / without auth (${bench.label}, HTTP)`,
          ratio: pct(withoutAuth),
          target: 'info',
          met: undefined,
        },
        {
          bench: 'browse',
          measure: `group caller / administrator caller (${bench.label}, HTTP)`,
          ratio: pct(byCaller),
          target: 'info',
          met: undefined,
        },
      );
    }
    const sqlite = rounds.get('SQLite') as Round[];
    const postgres = rounds.get('PostgreSQL');
    if (postgres) {
      const ratio = median(postgres.map((r, i) => r.get.rate / (sqlite[i] as Round).get.rate));
      const cpuRatio = medianOf(
        postgres.map((r, i) =>
          (sqlite[i] as Round).get.cpu && r.get.cpu ? ((sqlite[i] as Round).get.cpu as number) / r.get.cpu : undefined,
        ),
      );
      log(
        `GET /v1/nodes/{id}: PostgreSQL / SQLite ${pct(ratio)} (median of rounds; target >= 50%), ` +
          `CPU per request ${cpuText(medianOf(postgres.map((r) => r.get.cpu)))} / ${cpuText(medianOf(sqlite.map((r) => r.get.cpu)))} (server process only)`,
      );
      rows.push({
        bench: 'browse',
        measure: 'GET node req/s, PostgreSQL / SQLite, median of rounds',
        ratio: `${pct(ratio)} (by server CPU ${cpuRatio === undefined ? '?' : pct(cpuRatio)})`,
        target: '>= 50%',
        met: ratio >= 0.5,
      });
    }
    return rows;
  } finally {
    for (const bench of benches) await bench.remove();
  }
}

runMain(import.meta.url, runBrowse);
