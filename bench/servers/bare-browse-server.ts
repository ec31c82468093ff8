import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { reportReady } from '../support/child-server.js';

/**
 * The baseline: bare Fastify serving the platform's browse query (the same columns, order and
 * page) with no authorization, and the same JSON body. On SQLite (RDP_BENCH_REGION_FILE)
 * better-sqlite3 with the statement prepared once; on PostgreSQL (RDP_BENCH_BARE_DATABASE_URL and
 * RDP_BENCH_SCHEMA) a pg pool of the platform's default size with the statement prepared by name.
 */
const COLUMNS = 'id, name, kind, parent_id, org_id, address, created_at, updated_at, is_processing, is_failed, trashed_at';
const QUERY = `SELECT ${COLUMNS} FROM nodes WHERE parent_id = $1 AND trashed_at IS NULL ORDER BY name_key, id LIMIT 100 OFFSET 0`;

type Row = Record<string, any>;
let children: (parentId: string) => Promise<Row[]> | Row[];
// Its own variable: the benchmark's RDP_BENCH_DATABASE_URL reaches every child, the SQLite baseline's too.
const databaseUrl = process.env.RDP_BENCH_BARE_DATABASE_URL;
if (databaseUrl) {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    options: `-c search_path="${process.env.RDP_BENCH_SCHEMA}"`,
    max: 10,
    application_name: 'rdp-bare',
  });
  children = async (parentId) => (await pool.query({ name: 'children', text: QUERY, values: [parentId] })).rows;
} else {
  const db = new SQLite(process.env.RDP_BENCH_REGION_FILE as string, { readonly: true });
  const statement = db.prepare(QUERY.replace('$1', '?'));
  children = (parentId) => statement.all(parentId) as Row[];
}

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
// A failing baseline must say why (the benchmark stops on any non-2xx answer).
app.addHook('onError', async (_request, _reply, error) => {
  process.stderr.write(`bare-browse-server: ${error.message}\n`);
});
app.get('/v1/nodes/:nodeId/browse', { schema: { response: { 200: { type: 'array', items: nodeSchema } } } }, async (request) =>
  (await children((request.params as { nodeId: string }).nodeId)).map((row) => ({
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
