import path from 'node:path';
import { profileServer } from './browse-profile.js';
import { fetchToken } from './support/bench-store.js';
import { seedProcessedBundle } from './support/bundle-store.js';
import { runMain, type SummaryRow } from './support/report.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * Where the platform's bundle fetch with expansions spends its CPU (issue 29): the platform server
 * of bench/bundle.ts under `node --cpu-prof`, loaded with
 * GET /v1/bundles/{id}?expand=processings,components,thumbnail, and the profile's top functions by
 * self time, per store (PostgreSQL with RDP_BENCH_DATABASE_URL). With RDP_BENCH_PROFILE_BARE=1 the
 * bare server's profile follows. Not a pass/fail bench: read it next to bench/bundle.ts's ratios.
 */
const EXPAND = 'processings,components,thumbnail';
const API_URL = 'http://bench.invalid/eu/reality';

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const bundle = await seedProcessedBundle(store);
  const env = { ...store.env, RDP_LOG_LEVEL: 'warn', RDP_REGION_URL_EU: API_URL };
  await profileServer(`${store.label} bundle`, 'bench/servers/platform-server.ts', env, async (origin) => ({
    url: `${origin}/eu/reality/v1/bundles/${bundle.bundleId}?expand=${EXPAND}`,
    headers: { authorization: `Bearer ${await fetchToken(origin, bundle)}` },
  }));
  if (process.env.RDP_BENCH_PROFILE_BARE === '1') {
    const bareEnv: Record<string, string> = store.databaseUrl
      ? {
          RDP_BENCH_API_URL: API_URL,
          RDP_BENCH_BARE_DATABASE_URL: store.databaseUrl,
          RDP_BENCH_REGION_SCHEMA: `${store.schemaPrefix}_region_eu`,
        }
      : { RDP_BENCH_API_URL: API_URL, RDP_BENCH_REGION_FILE: path.join(store.dataDir, 'region_eu.sqlite') };
    await profileServer(`${store.label} bundle bare`, 'bench/servers/bare-bundle-server.ts', bareEnv, async (origin) => ({
      url: `${origin}/v1/bundles/${bundle.bundleId}?expand=${EXPAND}`,
      headers: {},
    }));
  }
  return [];
}

export async function runBundleProfile(): Promise<SummaryRow[]> {
  return onEachStore('bundle-profile', onStore);
}

runMain(import.meta.url, runBundleProfile);
