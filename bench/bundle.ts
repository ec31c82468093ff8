import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fetchToken } from './support/bench-store.js';
import { seedProcessedBundle } from './support/bundle-store.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { type Endpoint, pairedLoad } from './support/paired-load.js';
import { log, quick, runMain, type SummaryRow } from './support/report.js';
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

  return pairedLoad(
    {
      bench: 'bundle',
      measure: `GET bundle ?expand=${EXPAND}`,
      baseline: 'bare Fastify',
      storeLabel: store.label,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
    },
    bare,
    platform,
  );
}

export async function runBundle(): Promise<SummaryRow[]> {
  log(
    `# bundle: GET /v1/bundles/{id}?expand=${EXPAND}, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds, against bare Fastify`,
  );
  return onEachStore('bundle', onStore);
}

runMain(import.meta.url, runBundle);
