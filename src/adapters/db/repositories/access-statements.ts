import { type CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely';
import { NODE_LISTING_COLUMNS as LISTING_COLUMNS } from '../../../domain/records/regional.js';
import { registerPrepared } from '../prepared-statements.js';
import type { NodeRow, RegionalSchema } from '../schema.js';
import { ancestorsOf, membershipsOnAncestors, requiredProvider } from './access-conditions.js';

/**
 * PostgreSQL's access check and the read it guards, in one prepared statement (one round trip),
 * with the access cache's version check inside it. The full form (accessStatement) returns, as
 * parts of one UNION ALL:
 *
 * - part 0, always one row: the organization's access version (access_versions, raised at every
 *   commit that changes a node, membership, role, group or group member of the organization:
 *   migration regional-0010) as this statement's snapshot sees it;
 * - part 1, the access rows (the node with each role reaching it), unless the version is `known`
 *   (a one-time filter: PostgreSQL then never runs them);
 * - parts 2 and up: what the caller reads besides (a page of children, a node's links).
 *
 * A caller holding a cached result sends the form without part 1 (accessStatement with
 * access = false, or childrenWithVersion for browse) and keeps its result when the version is
 * still the one it was read at: the version and the rows beside it come from one snapshot, so
 * the result is used exactly when nothing it depends on has committed since it was read.
 */

/** Every column of a node row, named: a prepared statement never selects `*` (prepared-statements.ts). */
export const NODE_COLUMNS = [
  'id',
  'org_id',
  'parent_id',
  'kind',
  'name',
  'name_key',
  'address',
  'site_id',
  'path',
  'depth',
  'size_bytes',
  'is_processing',
  'is_failed',
  'trashed_at',
  'trash_root_id',
  'required_identity_provider',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof NodeRow)[];
// A column added to NodeRow and not listed here fails to compile.
const everyColumnListed: Exclude<keyof NodeRow, (typeof NODE_COLUMNS)[number]> extends never ? true : never = true;
void everyColumnListed;

/** The given columns of a row (a combined statement's carries more). */
export function pickColumns<Picked>(row: object, columns: readonly string[]): Picked {
  const source = row as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const column of columns) picked[column] = source[column];
  return picked as Picked;
}

/** An access row: the node with one role's permissions reaching it and the required providers. */
export type AccessRow = NodeRow & {
  permissions: string | null;
  required_idp_min: string | null;
  required_idp_max: string | null;
};

/**
 * A row of a combined statement. Listing rows (children) fill the listing columns; a whole node
 * (an access row, a link) comes as one JSON column, `body`: rows padded with NULL to a whole
 * node's width cost pg a third more to parse than the page itself.
 */
export type PartRow = { part: number; version: number | null; seq: number; body: AccessRow | NodeRow | null } & {
  [C in (typeof LISTING_COLUMNS)[number]]: NodeRow[C];
};

/** A whole node row of `alias` as JSON, with extra keys. */
function nodeJson(alias: string, extra: Record<string, RawBuilder<unknown>> = {}) {
  const pairs = [
    ...NODE_COLUMNS.map((column) => sql`${sql.lit(column)}, ${sql.ref(`${alias}.${column}`)}`),
    ...Object.entries(extra).map(([key, value]) => sql`${sql.lit(key)}, ${value}`),
  ];
  return sql`json_build_object(${sql.join(pairs)})`;
}

/** One part's select list, in the shared order: part, version, body, the listing columns. */
function selectList(part: number, fields: { version?: RawBuilder<unknown>; body?: RawBuilder<unknown>; listing?: string }) {
  return sql.join([
    sql.raw(`${part} AS part`),
    fields.version ? sql`${fields.version} AS version` : sql.raw('NULL::bigint AS version'),
    fields.body ? sql`${fields.body} AS body` : sql.raw('NULL::json AS body'),
    ...LISTING_COLUMNS.map((column) =>
      sql.raw(fields.listing ? `${fields.listing}.${column}` : `NULL${CASTS[column] ?? ''} AS ${column}`),
    ),
  ]);
}

/** NULL's type in the first part, for the listing columns that are not text. */
const CASTS: Partial<Record<(typeof LISTING_COLUMNS)[number], string>> = { is_processing: '::integer', is_failed: '::integer' };

/** A further part of the statement: a query over the parameters, given its part number. */
export type ExtraPart = (part: number) => RawBuilder<unknown>;

/**
 * The statement for one node: version, access rows when stale, then the extra parts. Each row
 * carries its place in its part (`seq`); byPart puts a part back in that order should rows ever
 * arrive out of it (an outer ORDER BY cost a sort on every call, about 10% of the statement).
 */
export function accessStatement(
  db: Kysely<RegionalSchema>,
  ids: { orgId: string; nodeId: string; principalId: string; known: number },
  extras: ExtraPart[] = [],
  /** Without the access part: for a caller that holds a cached result, to check its version. */
  access = true,
): CompiledQuery {
  const { orgId, nodeId, principalId, known } = ids;
  const parts = [
    sql`SELECT ${selectList(0, { version: sql`av.version` })}, 0 AS seq FROM org_version av`,
    access &&
      sql`SELECT ${selectList(1, {
        body: nodeJson('n', {
          permissions: sql`r.permissions`,
          required_idp_min: requiredProvider('min'),
          required_idp_max: requiredProvider('max'),
        }),
      })}, 0 AS seq
      FROM nodes n
      LEFT JOIN memberships m ON ${membershipsOnAncestors('postgres', principalId)}
      LEFT JOIN roles r ON r.org_id = n.org_id AND r.id = m.role_id
      WHERE n.id = ${nodeId} AND n.org_id = ${orgId} AND (SELECT version FROM org_version) <> ${known}`,
    ...extras.map((extra, i) => extra(i + 2)),
  ].filter((part) => part !== false);
  return sql`WITH ${access ? sql`${ancestorsOf('postgres', nodeId)},` : sql``}
    org_version AS MATERIALIZED (
      SELECT coalesce((SELECT v.version FROM access_versions v WHERE v.org_id = ${orgId}), 0) AS version)
    ${sql.join(
      parts.map((part) => sql`(${part})`),
      sql` UNION ALL `,
    )}`.compile(db);
}

/**
 * The organization's access version as a column of a read (the access cache's key on PostgreSQL),
 * from the read's own snapshot: a read carrying it lets a cached access result be checked without
 * a statement of its own (childrenWithVersion, the bundle read: NodeRepository.findWithAccessBeside).
 * SQLite reads its version beside the read instead (Store.readAtChangeVersion).
 */
export function organizationAccessVersion(orgId: string): RawBuilder<number> {
  return sql<number>`coalesce((SELECT v.version FROM access_versions v WHERE v.org_id = ${orgId}), 0)`;
}

/** A page of a node's active children, in browse order (part `part`), listing columns only. */
export const childrenPart =
  (parentId: string, limit: number, offset: number): ExtraPart =>
  (part) =>
    sql`SELECT ${selectList(part, { listing: 'c' })}, row_number() OVER (ORDER BY c.name_key, c.id) AS seq
      FROM nodes c WHERE c.parent_id = ${parentId} AND c.trashed_at IS NULL
      ORDER BY c.name_key, c.id LIMIT ${limit} OFFSET ${offset}`;

/**
 * Browse's form for a caller holding a cached access result: the page of children, each row with
 * the organization's access version (an InitPlan, run once). No UNION and no row numbers: the
 * page comes in index order, and this costs about what the bare page does. An empty page carries
 * no version: the caller then runs the full form. No part number either: the caller passes a
 * hit's rows on as the page, unsplit and uncopied.
 */
export function childrenWithVersion(
  db: Kysely<RegionalSchema>,
  orgId: string,
  parentId: string,
  limit: number,
  offset: number,
): CompiledQuery {
  return sql`SELECT ${organizationAccessVersion(orgId)} AS version,
      ${sql.join(LISTING_COLUMNS.map((column) => sql.ref(`c.${column}`)))}
    FROM nodes c WHERE c.parent_id = ${parentId} AND c.trashed_at IS NULL
    ORDER BY c.name_key, c.id LIMIT ${limit} OFFSET ${offset}`.compile(db);
}

/** The node's active derivatives (`to` = 'to_id') or sources ('from_id'), whole rows. */
export const linkedPart =
  (nodeId: string, side: 'derivatives' | 'sources'): ExtraPart =>
  (part) => {
    const [from, to] = side === 'derivatives' ? ['from_id', 'to_id'] : ['to_id', 'from_id'];
    return sql`SELECT ${selectList(part, { body: nodeJson('n') })}, 0 AS seq
      FROM node_links l JOIN nodes n ON n.id = ${sql.ref(`l.${to}`)}
      WHERE l.kind = 'derivative' AND ${sql.ref(`l.${from}`)} = ${nodeId} AND n.trashed_at IS NULL`;
  };

/**
 * The hot statements of node reads on PostgreSQL, each in two forms: `full` (with the access part)
 * and `hit` (without it, for a caller that holds a cached result). Compiled once, prepared by name
 * (`prepare`: false on SQLite, which never runs them).
 */
export function postgresAccessStatements(db: Kysely<RegionalSchema>, prepare: boolean) {
  // Markers: org, node, principal, known version (then limit, offset).
  const markers = ['\u0000org', '\u0000node', '\u0000principal', -103] as [string, string, string, number];
  const bothForms = <Args extends unknown[]>(build: (access: boolean) => (...args: Args) => CompiledQuery, all: Args) => ({
    full: precompiled(build(true), all, prepare),
    hit: precompiled(build(false), all, prepare, ['\u0000node', '\u0000principal', -103]),
  });
  return {
    access: bothForms(
      (access) => (orgId: string, nodeId: string, principalId: string, known: number) =>
        accessStatement(db, { orgId, nodeId, principalId, known }, [], access),
      markers,
    ),
    browse: bothForms(
      (access) => (orgId: string, nodeId: string, principalId: string, known: number, limit: number, offset: number) =>
        access
          ? accessStatement(db, { orgId, nodeId, principalId, known }, [childrenPart(nodeId, limit, offset)])
          : childrenWithVersion(db, orgId, nodeId, limit, offset),
      [...markers, -101, -102] as [string, string, string, number, number, number],
    ),
    get: bothForms(
      (access) => (orgId: string, nodeId: string, principalId: string, known: number) =>
        accessStatement(
          db,
          { orgId, nodeId, principalId, known },
          [linkedPart(nodeId, 'derivatives'), linkedPart(nodeId, 'sources')],
          access,
        ),
      markers,
    ),
  };
}
export type PostgresAccessStatements = ReturnType<typeof postgresAccessStatements>;

/**
 * Compiles a statement once with marker arguments and registers it as prepared: each call only
 * binds its arguments in place of the markers (building and compiling with Kysely costs ~10 us).
 */
export function precompiled<Args extends unknown[]>(
  compile: (...markers: Args) => CompiledQuery,
  markers: Args,
  prepare: boolean,
  /** Markers the query may leave out (written in it as a literal instead). */
  unused: unknown[] = [],
) {
  const template = compile(...markers);
  if (prepare) registerPrepared(template.sql);
  // For each parameter of the compiled query, the argument it takes (a marker may appear twice).
  const sources = template.parameters.map((parameter) => markers.indexOf(parameter));
  if (markers.some((marker, i) => !sources.includes(i) && !unused.includes(marker))) {
    throw new Error('a marker is missing from the compiled query');
  }
  return (...args: Args): CompiledQuery => ({
    ...template,
    parameters: template.parameters.map((parameter, j) => ((sources[j] as number) < 0 ? parameter : args[sources[j] as number])),
  });
}
