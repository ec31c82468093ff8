import type { Kysely, SelectQueryBuilder } from 'kysely';
import * as pgJson from 'kysely/helpers/postgres';
import * as sqliteJson from 'kysely/helpers/sqlite';
import type { BundleRow, ProcessingRow, StoredObjectRow } from '../../../domain/records/regional.js';
import type { Dialect } from '../database.js';
import type { RegionalSchema } from '../schema.js';

/** What a bundle's body may add (GET /v1/bundles/{id}?expand=...). */
export type BundleExpansion = 'processings' | 'components' | 'thumbnail';

/** A processing as the bundle's body shows it, with its derivative's kind, format and trash state. */
export type BundleProcessing = Pick<
  ProcessingRow,
  | 'id'
  | 'bundle_id'
  | 'state'
  | 'cost'
  | 'failure_reason'
  | 'derivative_node_id'
  | 'job_id'
  | 'created_at'
  | 'started_at'
  | 'finished_at'
> & { derivative_kind: string | null; derivative_format: string | null; derivative_trashed_at: string | null };

export type BundleInputFile = Pick<
  StoredObjectRow,
  'id' | 'name' | 'stored_bytes' | 'declared_bytes' | 'state' | 'etag' | 'format'
>;

export interface BundleOutput {
  id: string;
  name: string;
  kind: string;
  trashed_at: string | null;
}

/** The bundle, its node's state, and what the expansions asked for (empty or null when not asked). */
export type BundleWithExpansions = BundleRow & {
  is_processing: number;
  is_failed: number;
  size_bytes: number;
  node_updated_at: string;
  processings: BundleProcessing[];
  inputs: BundleInputFile[];
  outputs: BundleOutput[];
  thumbnail: { content_type: string; etag: string } | null;
};

type Json = typeof pgJson;

/** SQLite answers JSON as text; PostgreSQL's driver has parsed it already. */
function parsed<T>(value: unknown, empty: T): T {
  if (value === null || value === undefined) return empty;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/**
 * The bundle with its node's state and its expansions in one statement (docs/performance.md,
 * "Bundle fetch"): each expansion a correlated subquery aggregated to JSON (json_agg on
 * PostgreSQL, json_group_array on SQLite), so the fetch costs one round trip whatever it expands,
 * beside the access check.
 */
export async function findBundleWithExpansions(
  db: Kysely<RegionalSchema>,
  dialect: Dialect,
  nodeId: string,
  expand: ReadonlySet<BundleExpansion>,
): Promise<BundleWithExpansions | undefined> {
  const json: Json = dialect === 'postgres' ? pgJson : (sqliteJson as unknown as Json);
  const withProcessings = expand.has('processings') || expand.has('components');
  const withComponents = expand.has('components');
  const withThumbnail = expand.has('thumbnail');
  const row = await db
    .selectFrom('bundles as b')
    .innerJoin('nodes as n', 'n.id', 'b.node_id')
    .selectAll('b')
    .select(['n.is_processing', 'n.is_failed', 'n.size_bytes', 'n.updated_at as node_updated_at'])
    .$if(withProcessings, (query) =>
      query.select((eb) =>
        json
          .jsonArrayFrom(
            eb
              .selectFrom('processings as p')
              .leftJoin('nodes as d', 'd.id', 'p.derivative_node_id')
              .leftJoin('stored_objects as o', 'o.id', 'p.derivative_node_id')
              .select([
                'p.id',
                'p.bundle_id',
                'p.state',
                'p.cost',
                'p.failure_reason',
                'p.derivative_node_id',
                'p.job_id',
                'p.created_at',
                'p.started_at',
                'p.finished_at',
                'd.kind as derivative_kind',
                'o.format as derivative_format',
                'd.trashed_at as derivative_trashed_at',
              ])
              .whereRef('p.bundle_id', '=', 'b.node_id')
              .orderBy('p.created_at')
              .orderBy('p.id') as unknown as SelectQueryBuilder<RegionalSchema, 'processings', BundleProcessing>,
          )
          .as('processings'),
      ),
    )
    .$if(withComponents, (query) =>
      query.select((eb) => [
        json
          .jsonArrayFrom(
            eb
              .selectFrom('stored_objects as f')
              .select(['f.id', 'f.name', 'f.stored_bytes', 'f.declared_bytes', 'f.state', 'f.etag', 'f.format'])
              .whereRef('f.session_id', '=', 'b.input_session_id')
              .orderBy('f.created_at')
              .orderBy('f.id'),
          )
          .as('inputs'),
        json
          .jsonArrayFrom(
            eb
              .selectFrom('node_links as l')
              .innerJoin('nodes as out', 'out.id', 'l.to_id')
              .select(['out.id', 'out.name', 'out.kind', 'out.trashed_at'])
              .where('l.kind', '=', 'derivative')
              .whereRef('l.from_id', '=', 'b.node_id')
              .where('out.trashed_at', 'is', null),
          )
          .as('outputs'),
      ]),
    )
    .$if(withThumbnail, (query) =>
      query.select((eb) =>
        json
          .jsonObjectFrom(
            eb.selectFrom('node_thumbnails as t').select(['t.content_type', 't.etag']).whereRef('t.node_id', '=', 'b.node_id'),
          )
          .as('thumbnail'),
      ),
    )
    .where('b.node_id', '=', nodeId)
    .executeTakeFirst();
  if (!row) return undefined;
  const expanded = row as Record<string, unknown>;
  return {
    ...(row as unknown as BundleWithExpansions),
    processings: parsed(expanded.processings, []),
    inputs: parsed(expanded.inputs, []),
    outputs: parsed(expanded.outputs, []),
    thumbnail: parsed(expanded.thumbnail, null),
  };
}
