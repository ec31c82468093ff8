import type { CompiledQuery, Kysely, SelectQueryBuilder } from 'kysely';
import * as pgJson from 'kysely/helpers/postgres';
import * as sqliteJson from 'kysely/helpers/sqlite';
import type { BundleRow, ProcessingRow, StoredObjectRow } from '../../../domain/records/regional.js';
import type { Dialect } from '../database.js';
import type { RegionalSchema } from '../schema.js';
import { organizationAccessVersion, precompiled } from './access-statements.js';

/** Every column of a bundle row, named: the statement is prepared, and a prepared statement never selects `*`. */
const BUNDLE_COLUMNS = [
  'node_id',
  'org_id',
  'state',
  'dbu_path',
  'input_session_id',
  'input_bytes',
  'input_format',
  'input_triangles',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof BundleRow)[];
// A column added to BundleRow and not listed here fails to compile.
const everyColumnListed: Exclude<keyof BundleRow, (typeof BUNDLE_COLUMNS)[number]> extends never ? true : never = true;
void everyColumnListed;

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

/**
 * The bundle, its node's state, what the expansions asked for (empty or null when not asked), and
 * the access version of the read's snapshot (NodeRepository.findWithAccessBeside).
 */
export type BundleWithExpansions = BundleRow & {
  access_version: number;
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

/** The bundle read's statement for one set of expansions, given the organization and the bundle's node id. */
export type BundleViewStatement = (orgId: string, nodeId: string) => CompiledQuery;

/**
 * The bundle with its node's state and its expansions in one statement (docs/performance.md,
 * "Bundle fetch"): each expansion a correlated subquery aggregated to JSON (json_agg on
 * PostgreSQL, json_group_array on SQLite), so the fetch costs one round trip whatever it expands,
 * beside the access check; on PostgreSQL with the organization's access version, so that a cached
 * access result needs no statement of its own (NodeRepository.findWithAccessBeside; SQLite reads
 * its version beside the statement). Compiled once per set of expansions (building it with Kysely
 * took about a third of a fetch's CPU) and prepared on PostgreSQL.
 */
export function bundleViewStatement(
  db: Kysely<RegionalSchema>,
  dialect: Dialect,
  expand: ReadonlySet<BundleExpansion>,
): BundleViewStatement {
  const json: Json = dialect === 'postgres' ? pgJson : (sqliteJson as unknown as Json);
  const withProcessings = expand.has('processings') || expand.has('components');
  const withComponents = expand.has('components');
  const withThumbnail = expand.has('thumbnail');
  const postgres = dialect === 'postgres';
  const compile = (orgId: string, nodeId: string) =>
    db
      .selectFrom('bundles as b')
      .innerJoin('nodes as n', 'n.id', 'b.node_id')
      .select(BUNDLE_COLUMNS.map((column) => `b.${column}` as const))
      .select(['n.is_processing', 'n.is_failed', 'n.size_bytes', 'n.updated_at as node_updated_at'])
      .$if(postgres, (query) => query.select(organizationAccessVersion(orgId).as('access_version')))
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
      .compile();
  // The constant 'derivative' stays a bound value beside the markers; SQLite's statement has no organization.
  return precompiled(compile, ['\u0000org', '\u0000bundle'], postgres, postgres ? [] : ['\u0000org']);
}

/**
 * The row of a bundle view statement as a BundleWithExpansions (undefined: no such bundle), with
 * the access version read beside it where the statement has none (SQLite). Written out, not spread
 * from the row (bundle-service.ts get says why).
 */
export function toBundleWithExpansions(
  row: Record<string, unknown> | undefined,
  accessVersion?: number,
): BundleWithExpansions | undefined {
  if (!row) return undefined;
  const bundle = row as unknown as BundleWithExpansions;
  return {
    node_id: bundle.node_id,
    org_id: bundle.org_id,
    state: bundle.state,
    dbu_path: bundle.dbu_path,
    input_session_id: bundle.input_session_id,
    input_bytes: bundle.input_bytes,
    input_format: bundle.input_format,
    input_triangles: bundle.input_triangles,
    created_at: bundle.created_at,
    updated_at: bundle.updated_at,
    access_version: accessVersion ?? bundle.access_version,
    is_processing: bundle.is_processing,
    is_failed: bundle.is_failed,
    size_bytes: bundle.size_bytes,
    node_updated_at: bundle.node_updated_at,
    processings: parsed(row.processings, []),
    inputs: parsed(row.inputs, []),
    outputs: parsed(row.outputs, []),
    thumbnail: parsed(row.thumbnail, null),
  };
}
