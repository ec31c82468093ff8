import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fetchToken } from './support/bench-store.js';
import { seedProcessedBundle } from './support/bundle-store.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { type LoadResult, warmedLoad } from './support/load.js';
import { log, pct, quick, runMain, type SummaryRow } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * Authenticated GET /v1/bundles/{id}?expand=processings,components,thumbnail of a processed
 * bundle (three input files, one processing, its derivative, a thumbnail) under 50 connections:
 * the platform against bare Fastify serving the same body from the same store with the reads it
 * needs, prepared once, and no authorization (bench/servers/bare-bundle-server.ts). The two
 * bodies are compared before the load. Each server in a child process, one at a time, the order
 * swapped every round; ratios are medians of the rounds' ratios, by requests per second and by
 * the server's CPU per request. SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const CONNECTIONS = 50;
const SECONDS = quick ? 2 : 5;
const WARMUP_SECONDS = quick ? 1 : 2;
const ROUNDS = quick ? 3 : 5;
const EXPAND = 'processings,components,thumbnail';
/** The platform's base address of the region, given to both servers: the bodies hold absolute URLs. */
const API_URL = 'http://bench.invalid/eu/reality';

interface Endpoint {
  url: string;
  headers: Record<string, string>;
}

async function withServer<T>(
  file: string,
  env: Record<string, string>,
  endpoint: (server: ChildServer) => Promise<Endpoint>,
  work: (endpoint: Endpoint, server: ChildServer) => Promise<T>,
): Promise<T> {
  const server = await startChildServer(file, env);
  try {
    return await work(await endpoint(server), server);
  } finally {
    await server.stop();
  }
}

async function body({ url, headers }: Endpoint): Promise<unknown> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

function cpuText(result: LoadResult): string {
  return result.cpuMicrosPerRequest === undefined ? '' : `, ${result.cpuMicrosPerRequest.toFixed(0)} us CPU/request`;
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const bundle = await seedProcessedBundle(store);
  const bare = (work: (endpoint: Endpoint, server: ChildServer) => Promise<any>) =>
    withServer(
      'bench/servers/bare-bundle-server.ts',
      store.databaseUrl
        ? {
            RDP_BENCH_API_URL: API_URL,
            RDP_BENCH_BARE_DATABASE_URL: store.databaseUrl,
            RDP_BENCH_REGION_SCHEMA: `${store.schemaPrefix}_region_eu`,
          }
        : { RDP_BENCH_API_URL: API_URL, RDP_BENCH_REGION_FILE: path.join(store.dataDir, 'region_eu.sqlite') },
      async (server) => ({ url: `${server.origin}/v1/bundles/${bundle.bundleId}?expand=${EXPAND}`, headers: {} }),
      work,
    );
  const platform = (work: (endpoint: Endpoint, server: ChildServer) => Promise<any>) =>
    withServer(
      'bench/servers/platform-server.ts',
      { ...store.env, RDP_LOG_LEVEL: 'warn', RDP_REGION_URL_EU: API_URL },
      async (server) => ({
        url: `${server.origin}/eu/reality/v1/bundles/${bundle.bundleId}?expand=${EXPAND}`,
        headers: { authorization: `Bearer ${await fetchToken(server.origin, bundle)}` },
      }),
      work,
    );

  // The baseline must answer what the platform answers, or the ratio compares different work.
  const expected = await platform((endpoint) => body(endpoint));
  const answered = await bare((endpoint) => body(endpoint));
  if (!isDeepStrictEqual(answered, expected)) {
    throw new Error(`the bare server's body differs:\n${JSON.stringify(answered)}\n${JSON.stringify(expected)}`);
  }

  const load = (endpoint: Endpoint, server: ChildServer) =>
    warmedLoad(endpoint.url, {
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      headers: endpoint.headers,
      serverPid: server.child.pid,
    });
  const measured = await pairedRounds<LoadResult>(
    ROUNDS,
    () => bare(load),
    () => platform(load),
    (round, base, ours) =>
      log(
        `  ${store.label} round ${round}: bare ${base.requestsPerSecond.toFixed(0)} req/s (p99 ${base.p99} ms${cpuText(base)}), ` +
          `platform ${ours.requestsPerSecond.toFixed(0)} req/s (p99 ${ours.p99} ms${cpuText(ours)})`,
      ),
  );
  const ratio = medianRatio(measured, (result) => result.requestsPerSecond);
  const rates = (results: LoadResult[]) => median(results.map((result) => result.requestsPerSecond)).toFixed(0);
  log(`  ${store.label}: platform / bare ${pct(ratio)} by req/s, median of ${ROUNDS} rounds`);
  const rows: SummaryRow[] = [
    {
      bench: 'bundle',
      measure: `GET bundle ?expand=all, platform req/s / bare Fastify, ${store.label} (medians ${rates(measured.target)} / ${rates(measured.baseline)})`,
      ratio: pct(ratio),
      target: 'info',
      met: undefined,
    },
  ];
  const cpu = (results: LoadResult[]) => results.map((result) => result.cpuMicrosPerRequest);
  if ([...cpu(measured.target), ...cpu(measured.baseline)].every((micros) => micros !== undefined)) {
    // Bare CPU over ours, so that like req/s a higher figure is better: the steadier figure on a shared machine.
    const cpuRatio = 1 / medianRatio(measured, (result) => result.cpuMicrosPerRequest as number);
    const ours = median(cpu(measured.target) as number[]);
    const theirs = median(cpu(measured.baseline) as number[]);
    log(`  ${store.label}: server CPU per request, platform ${ours.toFixed(0)} us, bare ${theirs.toFixed(0)} us`);
    rows.push({
      bench: 'bundle',
      measure: `GET bundle ?expand=all, bare / platform server CPU per request, ${store.label} (${theirs.toFixed(0)} / ${ours.toFixed(0)} us)`,
      ratio: pct(cpuRatio),
      target: 'info',
      met: undefined,
    });
  }
  return rows;
}

export async function runBundle(): Promise<SummaryRow[]> {
  log(
    `# bundle: GET /v1/bundles/{id}?expand=${EXPAND}, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds, against bare Fastify`,
  );
  return onEachStore('bundle', onStore);
}

runMain(import.meta.url, runBundle);
