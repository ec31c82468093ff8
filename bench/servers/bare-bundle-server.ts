import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { reportReady } from '../support/child-server.js';

/**
 * The baseline of the bundle fetch: bare Fastify answering GET /v1/bundles/:bundleId?expand=...
 * with the same JSON body as the platform, from the same store, with the reads that body needs,
 * each prepared once: the bundle with its node, its processings, its input's files, its
 * derivative outputs and its thumbnail's type and ETag. By default in one statement, as the
 * platform reads them since issue 29 (each expansion a subquery aggregated to JSON:
 * bundle-view-rows.ts); RDP_BENCH_BARE_BUNDLE_READS=five reads them one after the other, as the
 * platform did before. Absolute addresses start with RDP_BENCH_API_URL, the platform's base address of
 * the region. No token, no access check. better-sqlite3 on RDP_BENCH_REGION_FILE, or a pg pool
 * of RDP_DATABASE_POOL_SIZE (default 10, as the platform's) on RDP_BENCH_BARE_DATABASE_URL in schema
 * RDP_BENCH_REGION_SCHEMA.
 */
type Row = Record<string, any>;

const QUERIES = {
  bundle: `SELECT n.id, n.name, n.parent_id, n.created_at, n.updated_at AS node_updated_at, n.is_processing, n.is_failed,
      n.size_bytes, b.state, b.dbu_path, b.input_session_id, b.input_format, b.input_bytes, b.updated_at
    FROM bundles b JOIN nodes n ON n.id = b.node_id
    WHERE b.node_id = $1 AND n.kind = 'dataBundle' AND n.trashed_at IS NULL`,
  processings: `SELECT p.*, d.kind AS derivative_kind, d.trashed_at AS derivative_trashed_at
    FROM processings p LEFT JOIN nodes d ON d.id = p.derivative_node_id
    WHERE p.bundle_id = $1 ORDER BY p.created_at, p.id`,
  files: 'SELECT * FROM stored_objects WHERE session_id = $1 ORDER BY created_at, id',
  outputs: `SELECT n.id, n.name, n.kind FROM node_links l JOIN nodes n ON n.id = l.to_id
    WHERE l.kind = 'derivative' AND l.from_id = $1 AND n.trashed_at IS NULL`,
  thumbnail: 'SELECT content_type, etag FROM node_thumbnails WHERE node_id = $1',
};
type Query = keyof typeof QUERIES | 'joined';

const FIVE_READS = process.env.RDP_BENCH_BARE_BUNDLE_READS === 'five';
const postgres = Boolean(process.env.RDP_BENCH_BARE_DATABASE_URL);
/** An aggregate of a subquery's rows as a JSON array, and of its one row as an object, in the store's own functions. */
const array = (columns: string[], from: string) =>
  postgres
    ? `(SELECT coalesce(json_agg(agg), '[]') FROM (SELECT ${columns.join(', ')} ${from}) agg)`
    : `(SELECT coalesce(json_group_array(json_object(${columns.map((c) => `'${c.split(/[. ]/).at(-1)}', agg.${c.split(/[. ]/).at(-1)}`).join(', ')})), '[]') FROM (SELECT ${columns.join(', ')} ${from}) agg)`;
const object = (columns: string[], from: string) =>
  postgres
    ? `(SELECT to_json(obj) FROM (SELECT ${columns.join(', ')} ${from}) obj)`
    : `(SELECT json_object(${columns.map((c) => `'${c}', obj.${c}`).join(', ')}) FROM (SELECT ${columns.join(', ')} ${from}) obj)`;
const JOINED = `SELECT n.id, n.name, n.parent_id, n.created_at, n.updated_at AS node_updated_at, n.is_processing, n.is_failed,
    n.size_bytes, b.state, b.dbu_path, b.input_session_id, b.input_format, b.input_bytes, b.updated_at,
    ${array(
      [
        'p.id',
        'p.bundle_id',
        'p.state',
        'p.cost',
        'p.failure_reason',
        'p.derivative_node_id',
        'p.created_at',
        'p.started_at',
        'p.finished_at',
        'd.kind AS derivative_kind',
        'd.trashed_at AS derivative_trashed_at',
      ],
      'FROM processings p LEFT JOIN nodes d ON d.id = p.derivative_node_id WHERE p.bundle_id = b.node_id ORDER BY p.created_at, p.id',
    )} AS processings,
    ${array(
      ['f.id', 'f.name', 'f.stored_bytes', 'f.declared_bytes', 'f.state', 'f.etag', 'f.format'],
      'FROM stored_objects f WHERE f.session_id = b.input_session_id ORDER BY f.created_at, f.id',
    )} AS files,
    ${array(
      ['o.id', 'o.name', 'o.kind'],
      "FROM node_links l JOIN nodes o ON o.id = l.to_id WHERE l.kind = 'derivative' AND l.from_id = b.node_id AND o.trashed_at IS NULL",
    )} AS outputs,
    ${object(['content_type', 'etag'], 'FROM node_thumbnails WHERE node_id = b.node_id')} AS thumbnail
  FROM bundles b JOIN nodes n ON n.id = b.node_id
  WHERE b.node_id = $1 AND n.kind = 'dataBundle' AND n.trashed_at IS NULL`;
const TEXTS: Record<Query, string> = { ...QUERIES, joined: JOINED };
/** SQLite answers JSON as text; pg has parsed it. */
const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

function openReader(): (query: Query, id: string) => Promise<Row[]> {
  const databaseUrl = process.env.RDP_BENCH_BARE_DATABASE_URL;
  if (databaseUrl) {
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      options: `-c search_path="${process.env.RDP_BENCH_REGION_SCHEMA}"`,
      max: Number(process.env.RDP_DATABASE_POOL_SIZE ?? 10),
    });
    // A named statement is prepared once per connection, as the platform's would be.
    return async (query, id) => (await pool.query({ name: query, text: TEXTS[query], values: [id] })).rows;
  }
  const db = new SQLite(process.env.RDP_BENCH_REGION_FILE as string, { readonly: true });
  const prepared = Object.fromEntries(
    Object.entries(TEXTS).map(([name, text]) => [name, db.prepare(text.replaceAll('$1', '?'))]),
  ) as Record<Query, SQLite.Statement>;
  return async (query, id) => prepared[query].all(id) as Row[];
}

const read = openReader();
const apiUrl = process.env.RDP_BENCH_API_URL as string;
/** As domain/nodes/content-urls.ts builds it. */
const tilesetUrl = (id: string | null, kind: string | null, trashedAt: string | null = null) =>
  id && kind === 'pointCloud' && !trashedAt ? `${apiUrl}/v1/nodes/${id}/tiles/tileset.json` : null;
const EXPANSIONS = ['processings', 'components', 'thumbnail'];

function fileState(state: string): string {
  return state === 'finalized' ? 'uploaded' : state === 'expired' ? 'expired' : 'uploading';
}

async function bundleBody(bundleId: string, expand: Set<string>): Promise<Row | undefined> {
  const [bundle] = await read(FIVE_READS ? 'bundle' : 'joined', bundleId);
  if (!bundle) return undefined;
  const joined = !FIVE_READS;
  const body: Row = {
    id: bundle.id,
    name: bundle.name,
    parentId: bundle.parent_id,
    state: bundle.state,
    dbuPath: bundle.dbu_path,
    size: bundle.size_bytes,
    isProcessing: bundle.is_processing === 1,
    isFailed: bundle.is_failed === 1,
    createdAt: bundle.created_at,
    // ISO times: the later sorts last.
    updatedAt: [bundle.updated_at, bundle.node_updated_at].sort()[1],
  };
  if (expand.has('processings')) {
    body.processings = (joined ? (parsed(bundle.processings) as Row[]) : await read('processings', bundleId)).map((row) => ({
      id: row.id,
      bundleId: row.bundle_id,
      state: row.state,
      // A running processing's progress is its job's (the queue's read); the benchmark's has finished.
      progress: null,
      cost: row.cost,
      failureReason: row.failure_reason,
      derivativeId: row.derivative_node_id,
      tilesetUrl: tilesetUrl(row.derivative_node_id, row.derivative_kind, row.derivative_trashed_at),
      createdAt: row.created_at,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
    }));
  }
  if (expand.has('components')) {
    const files: Row[] = joined
      ? parsed(bundle.files)
      : bundle.input_session_id
        ? await read('files', bundle.input_session_id)
        : [];
    const outputs: Row[] = joined ? parsed(bundle.outputs) : await read('outputs', bundleId);
    body.components = [
      ...(bundle.input_session_id
        ? [
            {
              id: bundle.input_session_id,
              role: 'input',
              format: bundle.input_format,
              size: bundle.input_bytes,
              files: files.map((file) => ({
                id: file.id,
                name: file.name,
                size: file.stored_bytes ?? file.declared_bytes,
                state: fileState(file.state),
                etag: file.etag,
                format: file.format,
              })),
            },
          ]
        : []),
      ...outputs.map((output) => ({
        id: output.id,
        role: 'output',
        name: output.name,
        tilesetUrl: tilesetUrl(output.id, output.kind),
      })),
    ];
  }
  if (expand.has('thumbnail')) {
    const thumbnail = joined ? parsed(bundle.thumbnail) : (await read('thumbnail', bundleId))[0];
    body.thumbnail = thumbnail
      ? { url: `${apiUrl}/v1/nodes/${bundleId}/thumbnail`, contentType: thumbnail.content_type, etag: thumbnail.etag }
      : null;
  }
  return body;
}

const nullable = (type: string) => ({ type: [type, 'null'] });
const processingSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    bundleId: { type: 'string' },
    state: { type: 'string' },
    progress: nullable('number'),
    cost: { type: 'integer' },
    failureReason: nullable('string'),
    derivativeId: nullable('string'),
    tilesetUrl: nullable('string'),
    createdAt: { type: 'string' },
    startedAt: nullable('string'),
    finishedAt: nullable('string'),
  },
};
const fileSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    size: { type: 'integer' },
    state: { type: 'string' },
    etag: nullable('string'),
    format: nullable('string'),
  },
};
const bundleSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    parentId: nullable('string'),
    state: { type: 'string' },
    dbuPath: { type: 'string' },
    size: { type: 'integer' },
    isProcessing: { type: 'boolean' },
    isFailed: { type: 'boolean' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    processings: { type: 'array', items: processingSchema },
    components: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          role: { type: 'string' },
          name: { type: 'string' },
          format: nullable('string'),
          size: { type: 'integer' },
          files: { type: 'array', items: fileSchema },
          tilesetUrl: nullable('string'),
        },
      },
    },
    thumbnail: {
      anyOf: [
        {
          type: 'object',
          properties: { url: { type: 'string' }, contentType: { type: 'string' }, etag: { type: 'string' } },
        },
        { type: 'null' },
      ],
    },
  },
};

const app = Fastify({ logger: false });
app.get(
  '/v1/bundles/:bundleId',
  {
    schema: {
      querystring: { type: 'object', properties: { expand: { type: 'string', maxLength: 100 } }, additionalProperties: false },
      response: { 200: bundleSchema, '4xx': { type: 'object', properties: { error: { type: 'string' } } } },
    },
  },
  async (request, reply) => {
    const asked = ((request.query as { expand?: string }).expand ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (asked.some((name) => !EXPANSIONS.includes(name))) return reply.code(400).send({ error: 'ValidationError' });
    const body = await bundleBody((request.params as { bundleId: string }).bundleId, new Set(asked));
    return body ?? reply.code(404).send({ error: 'NotFound' });
  },
);
await app.listen({ host: '127.0.0.1', port: 0 });
reportReady((app.server.address() as { port: number }).port);
