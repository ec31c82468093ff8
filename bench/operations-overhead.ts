import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropPostgresSchemas } from '../src/adapters/db/database.js';
import { PlatformMetrics } from '../src/http/plugins/metrics.js';
import { browseFolder } from './support/api-tree.js';
import { fetchToken, seedOrganization } from './support/bench-store.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { warmedLoad } from './support/load.js';
import { log, pct, quick, runMain, type SummaryRow } from './support/report.js';
import { median } from './support/rounds.js';

/**
 * What the per-request hooks of operations cost (the X-Request-Id taken and answered, the
 * request-duration histogram of /metrics and the draining check that adds Connection: close): authenticated browse of a folder of 20
 * children, the platform with the hooks against the same platform without them
 * (RDP_BENCH_OPERATIONS_HOOKS=off), both servers running side by side on one store and measured
 * in turn, the order swapped every round. Ratios are medians of the rounds' ratios, by requests per
 * second and by the server's CPU per request (steadier on a shared machine). SQLite, and
 * PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const CONNECTIONS = 50;
const SECONDS = quick ? 2 : 5;
const WARMUP_SECONDS = 1;
const ROUNDS = quick ? 3 : 6;
const TARGET = 0.97;

async function onStore(label: string, databaseUrl: string | undefined): Promise<SummaryRow[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-bench-operations-'));
  const prefix = `b_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: prefix } : {}),
  };
  const servers: ChildServer[] = [];
  try {
    const store = await seedOrganization(env);
    const withHooks = await startChildServer('bench/servers/platform-server.ts', env);
    servers.push(withHooks);
    const withoutHooks = await startChildServer('bench/servers/platform-server.ts', {
      ...env,
      RDP_BENCH_OPERATIONS_HOOKS: 'off',
    });
    servers.push(withoutHooks);
    const folderId = await browseFolder(withHooks.origin, store.orgId, await fetchToken(withHooks.origin, store));
    const measure = async (server: ChildServer) =>
      warmedLoad(`${server.origin}/eu/reality/v1/nodes/${folderId}/browse`, {
        connections: CONNECTIONS,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        headers: { authorization: `Bearer ${await fetchToken(server.origin, store)}` },
        serverPid: server.child.pid,
      });

    const rateRatios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Swapped every round, so that a drift of the machine's load favours neither.
      const on = round % 2 === 0 ? await measure(withHooks) : undefined;
      const off = await measure(withoutHooks);
      const hooked = on ?? (await measure(withHooks));
      rateRatios.push(hooked.requestsPerSecond / off.requestsPerSecond);
      const cpu =
        hooked.cpuMicrosPerRequest && off.cpuMicrosPerRequest ? off.cpuMicrosPerRequest / hooked.cpuMicrosPerRequest : undefined;
      if (cpu !== undefined) cpuRatios.push(cpu);
      log(
        `  ${label} round ${round + 1}: with hooks ${hooked.requestsPerSecond.toFixed(0)} req/s ` +
          `(${hooked.cpuMicrosPerRequest?.toFixed(0) ?? '?'} us CPU), without ${off.requestsPerSecond.toFixed(0)} req/s ` +
          `(${off.cpuMicrosPerRequest?.toFixed(0) ?? '?'} us CPU)`,
      );
    }
    const rate = median(rateRatios);
    const cpu = cpuRatios.length > 0 ? median(cpuRatios) : undefined;
    log(
      `  ${label}: with / without hooks ${pct(rate)} by req/s` +
        (cpu === undefined ? '' : `, ${pct(cpu)} by server CPU per request`) +
        ` (target >= ${pct(TARGET)})`,
    );
    return [
      {
        bench: 'operations-overhead',
        measure: `browse with / without request-id, metrics and drain hooks (${label})`,
        ratio: cpu === undefined ? pct(rate) : `${pct(rate)} (CPU ${pct(cpu)})`,
        target: `>= ${pct(TARGET)}`,
        met: rate >= TARGET,
      },
    ];
  } finally {
    for (const server of servers) await server.stop();
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The duration hook's own work, in this process: one histogram observation through a route's
 * observer, CPU microseconds per call. On a busy machine the HTTP ratios move by more than the
 * 3% they judge; this says what the hook adds to a request whatever the machine does.
 */
function observationMicros(): number {
  const metrics = new PlatformMetrics({
    jobs: { countByState: async () => ({ queued: 0, running: 0 }) },
    stores: { global: {}, regions: {} },
  });
  const observe = metrics.requestObserver('/eu/reality/v1/nodes/:nodeId/browse');
  const calls = quick ? 200_000 : 1_000_000;
  for (let i = 0; i < 10_000; i += 1) observe('GET', 200, 0.004);
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) observe('GET', i % 50 === 0 ? 404 : 200, (i % 100) / 1000);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

export async function runOperationsOverhead(): Promise<SummaryRow[]> {
  log(
    `# operations-overhead: GET /v1/nodes/{id}/browse with and without the per-request hooks of request ids, metrics and draining, ` +
      `${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds`,
  );
  const micros = observationMicros();
  log(`  one request-duration observation in-process: ${micros.toFixed(2)} us CPU`);
  const rows = await onStore('SQLite', undefined);
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL;
  if (databaseUrl) rows.push(...(await onStore('PostgreSQL', databaseUrl)));
  else log('PostgreSQL: set RDP_BENCH_DATABASE_URL to measure it too');
  rows.push({
    bench: 'operations-overhead',
    measure: 'one request-duration observation (in-process CPU)',
    ratio: `${micros.toFixed(2)} us`,
    target: 'info',
    met: undefined,
  });
  return rows;
}

runMain(import.meta.url, runOperationsOverhead);
