import { Type } from '@sinclair/typebox';
import { NodeRepository } from '../../src/adapters/db/repositories/node-repository.js';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/http/app.js';
import { NodeSchema, toNodeBody } from '../../src/http/routes/nodes/node-schemas.js';
import { openPlatform } from '../../src/platform.js';
import { reportReady } from '../support/child-server.js';

/**
 * The real platform on an existing store (RDP_DATA_DIR), on a free port. With
 * RDP_BENCH_UNAUTHENTICATED_BROWSE=1 it also serves the browse query without the token check and
 * the access query, so that the cost of authorization can be read off as a difference.
 * RDP_BENCH_ACCESS_CACHE=off runs without the access cache (SQLite's and PostgreSQL's). RDP_BENCH_OPERATIONS_HOOKS=off
 * runs without the per-request hooks of metrics and draining (bench/operations-overhead.ts).
 */
// Load tests send far more than an organization's default budgets (requests, tiles): the buckets
// stay in every request's path, too large to run out, unless the benchmark sets its own.
const unlimited = {
  RDP_RATE_LIMIT_BUCKET: '1000000000',
  RDP_RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
  RDP_TILE_RATE_LIMIT_BUCKET: '1000000000',
  RDP_TILE_RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
};
const config = loadConfig({ ...unlimited, ...process.env, PORT: '0', RDP_LOG_LEVEL: process.env.RDP_LOG_LEVEL ?? 'warn' });
const platform = await openPlatform(config);
// RDP_BENCH_ACCESS_CACHE=off: every request runs the access query, as after a write (the cache
// is exact: per store version on SQLite, per organization version on PostgreSQL).
if (process.env.RDP_BENCH_ACCESS_CACHE === 'off') {
  for (const region of platform.openedRegions())
    region.nodes = new NodeRepository(region.store.db, region.store.dialect, undefined, { cacheAccess: false });
}
const app = await buildApp(platform, { operationsHooks: process.env.RDP_BENCH_OPERATIONS_HOOKS !== 'off' });

if (process.env.RDP_BENCH_UNAUTHENTICATED_BROWSE === '1') {
  const nodes = platform.region('eu').nodes;
  app.get(
    '/bench/unauthenticated-browse/:nodeId',
    {
      schema: {
        params: Type.Object({ nodeId: Type.String() }),
        response: { 200: Type.Array(Type.Object(NodeSchema.properties)) },
      },
    },
    async (request) => (await nodes.children((request.params as { nodeId: string }).nodeId, 100, 0)).map(toNodeBody),
  );
}

await app.listen({ host: '127.0.0.1', port: 0 });
reportReady((app.server.address() as { port: number }).port);
