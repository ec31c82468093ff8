import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { reportReady } from '../support/child-server.js';

/**
 * The baseline: bare Fastify and better-sqlite3 on the same store file, one statement prepared
 * once, no authorization. It answers the same JSON body as the platform's browse.
 */
const db = new SQLite(process.env.RDP_BENCH_REGION_FILE as string, { readonly: true });
const children = db.prepare(
  'SELECT * FROM nodes WHERE parent_id = ? AND trashed_at IS NULL ORDER BY name_key, id LIMIT 100 OFFSET 0',
);

const nodeSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string' },
    parentId: { type: ['string', 'null'] },
    organizationId: { type: 'string' },
    address: { type: 'string' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    isProcessing: { type: 'boolean' },
    isFailed: { type: 'boolean' },
    trashedAt: { type: ['string', 'null'] },
  },
};

const app = Fastify({ logger: false });
app.get('/v1/nodes/:nodeId/browse', { schema: { response: { 200: { type: 'array', items: nodeSchema } } } }, async (request) =>
  (children.all((request.params as { nodeId: string }).nodeId) as Record<string, any>[]).map((row) => ({
    id: row.id,
    name: row.name,
    type: row.kind,
    parentId: row.parent_id,
    organizationId: row.org_id,
    ...(row.kind === 'site' && row.address !== null ? { address: row.address } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    isProcessing: row.is_processing === 1,
    isFailed: row.is_failed === 1,
    trashedAt: row.trashed_at,
  })),
);
await app.listen({ host: '127.0.0.1', port: 0 });
reportReady((app.server.address() as { port: number }).port);
