import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { dropPostgresSchemas, sql } from '../src/adapters/db/database.js';
import { NodeRepository } from '../src/adapters/db/repositories/node-repository.js';
import { loadConfig } from '../src/config/config.js';
import { openPlatform, type Platform } from '../src/platform.js';
import { fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { warmedLoad } from './support/load.js';
import { type PermissionStore, seedPermissionStore } from './support/permission-store.js';
import { log, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * The permission check of a user whose access comes through a group: an authenticated
 * GET /v1/nodes/{id} of a node 10 levels deep, for a user in 50 groups (one of which has a role
 * on the node's division), against the same GET for an organization administrator (one direct
 * membership on the organization node), in one organization of 10,000 people, 2,000 groups and
 * 100,000 group members. Same server, rounds interleaved, best of the rounds.
 *
 * The access result is cached while nothing it reads has changed (SQLite: the store's
 * data_version; PostgreSQL: the organization's access version, checked in the same statement), so
 * the cached run mostly measures the cache; the run with RDP_BENCH_ACCESS_CACHE=off and the
 * in-process query times measure the query itself. PostgreSQL runs when RDP_BENCH_DATABASE_URL is set.
 */
const CONNECTIONS = 50;
const SECONDS = quick ? 3 : 8;
const WARMUP_SECONDS = quick ? 1 : 2;
const ROUNDS = quick ? 2 : 3;
const TARGET = 1.5;

/**
 * Microseconds per call of the access query without the cache, sequential calls, user and admin
 * in turn, best of 5: CPU time on SQLite (the query runs in this thread, and the CPU it takes
 * moves less than wall time on a busy machine), wall time on PostgreSQL (it runs in the server).
 */
async function queryMicros(platform: Platform, seeded: PermissionStore): Promise<{ user: number; admin: number }> {
  const store = platform.region('eu').store;
  const postgres = store.dialect === 'postgres';
  const uncached = new NodeRepository(store.db, store.dialect, undefined, { cacheAccess: false });
  const calls = postgres ? (quick ? 200 : 1000) : quick ? 2000 : 5000;
  const check = async (principalId: string) => {
    const found = await uncached.findWithAccess(seeded.orgId, seeded.targetId, principalId);
    if (!found?.permissions.has('read')) throw new Error(`${principalId} cannot read the target`);
  };
  const best = { user: Number.POSITIVE_INFINITY, admin: Number.POSITIVE_INFINITY };
  for (let repeat = 0; repeat < 5; repeat += 1) {
    for (const who of ['user', 'admin'] as const) {
      const principalId = seeded[who].userId;
      for (let i = 0; i < calls / 10; i += 1) await check(principalId);
      const wall = performance.now();
      const cpu = process.cpuUsage();
      for (let i = 0; i < calls; i += 1) await check(principalId);
      const used = process.cpuUsage(cpu);
      const micros = postgres ? ((performance.now() - wall) * 1000) / calls : (used.user + used.system) / calls;
      best[who] = Math.min(best[who], micros);
    }
  }
  return best;
}

interface Rates {
  user: number;
  admin: number;
  /** The server's CPU time per request (all its threads), median of the rounds; undefined off Linux. */
  userCpu: number | undefined;
  adminCpu: number | undefined;
}

function median(values: number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : undefined;
}

/**
 * The user's and the admin's GET on one server, rounds interleaved (the order alternates, so a
 * change in the machine's load favours neither): best req/s of the rounds, median CPU per request.
 */
async function httpRates(env: Record<string, string>, seeded: PermissionStore): Promise<Rates> {
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...env });
  try {
    const url = `${server.origin}/eu/reality/v1/nodes/${seeded.targetId}`;
    const auth = async (client: PermissionStore['user']) => ({
      authorization: `Bearer ${await fetchToken(server.origin, client)}`,
    });
    const headers = { user: await auth(seeded.user), admin: await auth(seeded.admin) };
    const options = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, serverPid: server.child.pid };
    const best = { user: 0, admin: 0 };
    const cpu = { user: [] as number[], admin: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['user', 'admin'] as const) : (['admin', 'user'] as const);
      const line: string[] = [];
      for (const who of order) {
        const result = await warmedLoad(url, { ...options, headers: headers[who] });
        best[who] = Math.max(best[who], result.requestsPerSecond);
        if (result.cpuMicrosPerRequest !== undefined) cpu[who].push(result.cpuMicrosPerRequest);
        const cpuText = result.cpuMicrosPerRequest === undefined ? '' : `, ${result.cpuMicrosPerRequest.toFixed(0)} us CPU`;
        line.push(`${who} ${result.requestsPerSecond.toFixed(0)} req/s (p99 ${result.p99} ms${cpuText})`);
      }
      log(`  round ${round + 1}: ${line.join(', ')}`);
    }
    return { ...best, userCpu: median(cpu.user), adminCpu: median(cpu.admin) };
  } finally {
    await server.stop();
  }
}

/**
 * A PostgreSQL store right after a bulk load has no statistics yet, and autovacuum would analyze
 * it in the middle of a measurement: settle it first, as it is in steady state.
 */
async function settlePostgres(platform: Platform): Promise<void> {
  for (const store of [platform.stores.global, platform.region('eu').store]) await sql`VACUUM ANALYZE`.execute(store.db);
}

async function onStore(label: string, databaseUrl: string | undefined): Promise<SummaryRow[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-bench-permission-'));
  const prefix = `b_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: prefix } : {}),
  };
  try {
    const platform = await openPlatform(loadConfig({ ...env, RDP_LOG_LEVEL: 'silent' }));
    let seeded: PermissionStore;
    let micro: { user: number; admin: number };
    try {
      const started = performance.now();
      seeded = await seedPermissionStore(platform);
      if (databaseUrl) await settlePostgres(platform);
      const { counts } = seeded;
      log(
        `${label}: seeded ${counts.users} people, ${counts.groups} groups, ${counts.groupMembers} group members, ` +
          `${counts.groupMemberships} group memberships on nodes in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      micro = await queryMicros(platform, seeded);
    } finally {
      await platform.close();
    }
    log(
      `  access query in-process, no cache (${databaseUrl ? 'wall' : 'CPU'} time): user ${micro.user.toFixed(1)} us, admin ${micro.admin.toFixed(1)} us`,
    );

    const rows: SummaryRow[] = [];
    const modes = [
      { name: 'access cache', cache: 'on' },
      { name: 'no access cache', cache: 'off' },
    ];
    for (const mode of modes) {
      log(`  HTTP, ${mode.name}:`);
      const rates = await httpRates({ ...env, RDP_BENCH_ACCESS_CACHE: mode.cache }, seeded);
      const ratio = rates.admin / rates.user;
      const cpuRatio = rates.userCpu && rates.adminCpu ? rates.userCpu / rates.adminCpu : undefined;
      log(
        `  user time / admin time: ${times(ratio)} by req/s (target <= ${TARGET}x)` +
          (cpuRatio ? `, ${times(cpuRatio)} by server CPU per request` : ''),
      );
      rows.push({
        bench: 'permission-check',
        measure: `GET node, user via group / admin (${label}, ${mode.name})`,
        ratio: cpuRatio ? `${times(ratio)} (CPU ${times(cpuRatio)})` : times(ratio),
        target: `<= ${TARGET}x`,
        met: ratio <= TARGET,
      });
    }
    rows.push({
      bench: 'permission-check',
      measure: `access query, user via group / admin (${label}, in-process)`,
      ratio: `${times(micro.user / micro.admin)} (${micro.user.toFixed(0)} / ${micro.admin.toFixed(0)} us)`,
      target: 'info',
      met: undefined,
    });
    return rows;
  } finally {
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runPermissionCheck(): Promise<SummaryRow[]> {
  log(
    `# permission-check: GET /v1/nodes/{id} 10 levels deep, user in 50 groups vs organization admin, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds`,
  );
  const rows = await onStore('SQLite', undefined);
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL;
  if (databaseUrl) rows.push(...(await onStore('PostgreSQL', databaseUrl)));
  else log('PostgreSQL: set RDP_BENCH_DATABASE_URL to measure it too');
  return rows;
}

runMain(import.meta.url, runPermissionCheck);
