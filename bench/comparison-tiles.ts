import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { comparisonTilesPrefix } from '../src/domain/comparisons/comparison-outputs.js';
import { openPlatform } from '../src/platform.js';
import { fetchToken } from './support/bench-store.js';
import { seedProcessedBundle } from './support/bundle-store.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { type Endpoint, pairedLoad } from './support/paired-load.js';
import { log, quick, runMain, type SummaryRow } from './support/report.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * A comparison's tile against a derivative's, of the same bytes, in the same run:
 * GET /v1/twin/{siteId}/comparisons/{id}/tiles/{path} against GET /v1/nodes/{derivativeId}/tiles/{path}
 * with one bearer token, under 32 connections (docs/comparisons.md, "Limits"). The comparison is a
 * ready row whose tiles are the derivative's files copied under its prefix: what is measured is
 * serving (the access check, reused for a second per caller, and the file), not computing. Both
 * routes, each in a platform server of its own in a child process, loaded in alternating rounds; medians of the
 * rounds' ratios by requests per second and by server CPU per request (in the rounds' lines,
 * pairedLoad's "bare" is the derivative's route and "platform" the comparison's). Filesystem blob
 * store; SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const CONNECTIONS = 32;
const SECONDS = quick ? 2 : 5;
const WARMUP_SECONDS = quick ? 1 : 2;
const ROUNDS = quick ? 3 : 5;
/** As near as the derivative's route: both check access once a second per caller and send one file. */
const TARGET = 0.8;

function filesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(prefix, entry.name);
    return entry.isDirectory() ? filesUnder(dir, relative) : [relative];
  });
}

/** The bundle's derivative, and a ready comparison on its site whose tiles are a copy of the derivative's. */
async function comparisonOf(
  store: StoreUnderTest,
  bundleId: string,
): Promise<{ derivativeId: string; siteId: string; comparisonId: string; files: string[]; folder: string }> {
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const { db } = platform.region('eu').store;
    const output = await db
      .selectFrom('stored_objects')
      .select(['id', 'org_id', 'blob_key'])
      .where('purpose', '=', 'derivative')
      .where('format', '=', '3d-tiles')
      .executeTakeFirstOrThrow();
    const bundle = await db.selectFrom('nodes').select(['site_id']).where('id', '=', bundleId).executeTakeFirstOrThrow();
    const siteId = bundle.site_id as string;
    const folder = path.join(store.dataDir, 'blobs', 'objects', output.blob_key);
    const comparisonId = randomUUID();
    const files = filesUnder(folder);
    for (const file of files)
      await platform.blobs.write(
        `${comparisonTilesPrefix(output.org_id, comparisonId)}${file}`,
        fs.readFileSync(path.join(folder, file)),
      );
    const now = new Date().toISOString();
    await db
      .insertInto('comparisons')
      .values({
        id: comparisonId,
        org_id: output.org_id,
        site_id: siteId,
        name: 'Bench comparison',
        reference_bundle_id: bundleId,
        compared_bundle_id: bundleId,
        method: 'c2c',
        max_distance: 1,
        tolerance: 0.05,
        cost: 3,
        state: 'ready',
        failure_reason: null,
        stats: null,
        histogram: null,
        georeference: null,
        bounds: null,
        attributes: null,
        job_id: null,
        layer_linked_at: null,
        size_bytes: 0,
        created_by: 'bench',
        created_at: now,
        started_at: now,
        finished_at: now,
      })
      .execute();
    return { derivativeId: output.id, siteId, comparisonId, files, folder };
  } finally {
    await platform.close();
  }
}

async function bytesOf({ url, headers }: Endpoint): Promise<Buffer> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  if (!response.headers.get('etag')) throw new Error(`${url}: no ETag`);
  return Buffer.from(await response.arrayBuffer());
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const bundle = await seedProcessedBundle(store);
  const { derivativeId, siteId, comparisonId, files, folder } = await comparisonOf(store, bundle.bundleId);
  // The largest glTF tile (stored gzipped: its name without the suffix is what a client asks for).
  const tiles = files.filter((file) => file.endsWith('.glb') || file.endsWith('.glb.gz'));
  const stored = tiles.sort((a, b) => fs.statSync(path.join(folder, b)).size - fs.statSync(path.join(folder, a)).size)[0];
  if (!stored) throw new Error(`no glTF tile under ${folder}`);
  const tile = stored.replace(/\.gz$/, '');
  const size = fs.statSync(path.join(folder, stored)).size;
  log(`  ${store.label}: tile ${tile} of ${tiles.length}, ${(size / 1024).toFixed(1)} KiB stored`);

  // One platform server per run, as a viewer would meet it; each side its own, so both start cold.
  const serve =
    (route: string) =>
    <T>(work: (endpoint: Endpoint, server: ChildServer) => Promise<T>): Promise<T> =>
      (async () => {
        const server = await startChildServer('bench/servers/platform-server.ts', { ...store.env, RDP_LOG_LEVEL: 'warn' });
        try {
          const token = await fetchToken(server.origin, bundle);
          return await work(
            {
              url: `${server.origin}/eu/reality/v1${route}`,
              headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' },
            },
            server,
          );
        } finally {
          await server.stop();
        }
      })();
  const derivative = serve(`/nodes/${derivativeId}/tiles/${tile}`);
  const comparison = serve(`/twin/${siteId}/comparisons/${comparisonId}/tiles/${tile}`);

  // Both must send the same bytes, or the ratio compares different work.
  const [a, b] = [await derivative((endpoint) => bytesOf(endpoint)), await comparison((endpoint) => bytesOf(endpoint))];
  if (!a.equals(b)) throw new Error('the comparison and the derivative sent other bytes');

  return pairedLoad(
    {
      bench: 'comparison-tiles',
      measure: `comparison tile GET (${(size / 1024).toFixed(0)} KiB)`,
      baseline: 'derivative tile GET',
      storeLabel: store.label,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      target: TARGET,
    },
    derivative,
    comparison,
  );
}

export async function runComparisonTiles(): Promise<SummaryRow[]> {
  log(
    `# comparison-tiles: GET /v1/twin/{siteId}/comparisons/{id}/tiles/{path} against GET /v1/nodes/{derivativeId}/tiles/{path}, same bytes, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds`,
  );
  return onEachStore('comparison-tiles', onStore);
}

runMain(import.meta.url, runComparisonTiles);
