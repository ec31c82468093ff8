import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadConfig } from '../src/config/config.js';
import { openPlatform } from '../src/platform.js';
import { fetchToken } from './support/bench-store.js';
import { seedProcessedBundle } from './support/bundle-store.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { type Endpoint, pairedLoad } from './support/paired-load.js';
import { log, quick, runMain, type SummaryRow } from './support/report.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * Tile throughput: GET /v1/nodes/{derivativeId}/tiles/{path} with a bearer token, of the largest
 * glTF tile that a real processing wrote (bench/support/bundle-store.ts), under 32 connections,
 * against bare node:http serving the same file from the same folder (open, read, send with an
 * ETag: bench/servers/bare-tile-server.ts). The bytes of both answers are compared first. Each
 * server in a child process, one at a time, the order swapped every round; medians of the rounds'
 * ratios by requests per second and by server CPU per request. Filesystem blob store; SQLite, and
 * PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const CONNECTIONS = 32;
const SECONDS = quick ? 2 : 5;
const WARMUP_SECONDS = quick ? 1 : 2;
const ROUNDS = quick ? 3 : 5;
const TARGET = 0.8;

function filesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(prefix, entry.name);
    return entry.isDirectory() ? filesUnder(dir, relative) : [relative];
  });
}

/** The derivative of the bundle's processing and the folder of its tileset on disk. */
async function derivativeOf(store: StoreUnderTest): Promise<{ derivativeId: string; folder: string }> {
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const output = await platform
      .region('eu')
      .store.db.selectFrom('stored_objects')
      .select(['id', 'blob_key'])
      .where('purpose', '=', 'derivative')
      .where('format', '=', '3d-tiles')
      .executeTakeFirstOrThrow();
    return { derivativeId: output.id, folder: path.join(store.dataDir, 'blobs', 'objects', output.blob_key) };
  } finally {
    await platform.close();
  }
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

async function bytesOf({ url, headers }: Endpoint): Promise<Buffer> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  if (!response.headers.get('etag')) throw new Error(`${url}: no ETag`);
  return Buffer.from(await response.arrayBuffer());
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const bundle = await seedProcessedBundle(store);
  const { derivativeId, folder } = await derivativeOf(store);
  // Tiles are stored gzipped (docs/processing.md): a client asks for the name without the suffix.
  const tiles = filesUnder(folder).filter((file) => file.endsWith('.glb') || file.endsWith('.glb.gz'));
  const tile = tiles.sort((a, b) => fs.statSync(path.join(folder, b)).size - fs.statSync(path.join(folder, a)).size)[0];
  if (!tile) throw new Error(`no glTF tile under ${folder}`);
  const size = fs.statSync(path.join(folder, tile)).size;
  log(`  ${store.label}: tile ${tile} of ${tiles.length}, ${(size / 1024).toFixed(1)} KiB`);

  const bare = <T>(work: (endpoint: Endpoint, server: ChildServer) => Promise<T>) =>
    withServer(
      'bench/servers/bare-tile-server.ts',
      { RDP_BENCH_TILE_DIR: folder },
      async (server) => ({ url: `${server.origin}/${tile}`, headers: { 'accept-encoding': 'gzip' } }),
      work,
    );
  const platform = <T>(work: (endpoint: Endpoint, server: ChildServer) => Promise<T>) =>
    withServer(
      'bench/servers/platform-server.ts',
      { ...store.env, RDP_LOG_LEVEL: 'warn' },
      async (server) => ({
        url: `${server.origin}/eu/reality/v1/nodes/${derivativeId}/tiles/${tile.replace(/\.gz$/, '')}`,
        // As a viewer asks: the stored gzip is sent as it is.
        headers: { authorization: `Bearer ${await fetchToken(server.origin, bundle)}`, 'accept-encoding': 'gzip' },
      }),
      work,
    );

  // Both must send the file's very bytes, or the ratio compares different work (fetch decodes a
  // gzip content encoding: the stored bytes decoded).
  const stored = fs.readFileSync(path.join(folder, tile));
  const expected = tile.endsWith('.gz') ? gunzipSync(stored) : stored;
  for (const serve of [bare, platform]) {
    if (!(await serve((endpoint) => bytesOf(endpoint))).equals(expected))
      throw new Error('a server sent other bytes than the file');
  }

  return pairedLoad(
    {
      bench: 'tiles',
      measure: `tile GET (${(size / 1024).toFixed(0)} KiB)`,
      baseline: 'bare node:http',
      storeLabel: store.label,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      target: TARGET,
    },
    bare,
    platform,
  );
}

export async function runTiles(): Promise<SummaryRow[]> {
  log(
    `# tiles: GET /v1/nodes/{derivativeId}/tiles/{path}, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds, against bare node:http`,
  );
  return onEachStore('tiles', onStore);
}

runMain(import.meta.url, runTiles);
