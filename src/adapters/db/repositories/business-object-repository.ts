import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { FUZZY_CLOSENESS } from '../../../domain/search/trigrams.js';
import type { Dialect } from '../database.js';
import type { RegionalSchema } from '../schema.js';
import { escapeLike, trigramMatch } from './node-repository.js';

export type NameMatch = 'contains' | 'startsWith' | 'exact' | 'fuzzy';
export type BusinessObjectSort = 'createdAt' | 'updatedAt' | 'name' | 'nameCloseness';

/** What a search asks the store: the rules (which sites, which bounds) are the service's. */
export interface BusinessObjectQuery {
  orgId: string;
  /** Only objects of these sites; undefined: of every site of the organization. */
  siteIds: string[] | undefined;
  types: string[];
  createdBy: string[] | undefined;
  /** Stored instants (ISO 8601, UTC, milliseconds), each bound exclusive. */
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  /** The name text as given (closeness) and lower-cased (contains, startsWith, exact). */
  name: { text: string; key: string; match: NameMatch } | undefined;
  sortBy: BusinessObjectSort;
  descending: boolean;
  limit: number;
  offset: number;
}

export interface BusinessObjectRow {
  id: string;
  object_type: string;
  name: string;
  site_id: string;
  metadata_type_id: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** similarity(name, text) when the search has a name text: a float4 on PostgreSQL, its double on SQLite. */
  closeness?: number;
}

/** Up to this many trigram candidates (all organizations), SQLite's contains starts from them (as node search). */
const FEW_CANDIDATES = 5000;

const SORT_COLUMNS = { createdAt: 'o.created_at', updatedAt: 'o.updated_at', name: 'o.name_key', nameCloseness: 'closeness' };

/**
 * An organization's live twin objects found by name, creator and dates (the business-object
 * search): a page in the asked order, and how many match. Name conditions use the indexes of
 * regional-0016: the (org_id, name_key) B-tree for exact and startsWith; for contains, pg_trgm's GIN
 * index on PostgreSQL and the FTS5 trigram table on SQLite; for fuzzy, pg_trgm's `%` operator over
 * its GIN index on name (PostgreSQL), a scan of the organization's names on SQLite.
 */
export class BusinessObjectRepository {
  /** `OPERATOR(<pg_trgm's schema>.%)`: the store's schema has similarity() but not the operator. */
  private similarOperator: Promise<string> | undefined;

  constructor(
    private readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  /** The organization's sites, trashed ones too (the partial index of regional-0016). */
  async sites(orgId: string): Promise<{ id: string; path: string; trashed_at: string | null }[]> {
    return this.db
      .selectFrom('nodes')
      .select(['id', 'path', 'trashed_at'])
      .where('org_id', '=', orgId)
      .where(sql<boolean>`kind = 'site'`)
      .execute();
  }

  /** Paths of the organization's nodes that require an identity provider other than this one (usually none). */
  async foreignRestrictions(orgId: string, identityProvider: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('nodes')
      .select('path')
      .where('org_id', '=', orgId)
      .where('required_identity_provider', 'is not', null)
      .where('required_identity_provider', '<>', identityProvider)
      .execute();
    return rows.map((row) => row.path);
  }

  async search(query: BusinessObjectQuery): Promise<{ rows: BusinessObjectRow[]; total: number }> {
    const conditions = await this.conditions(query);
    const where = (eb: { and: (list: Expression<SqlBool>[]) => Expression<SqlBool> }) => eb.and(conditions);
    const base = this.db.selectFrom('twin_objects as o').where(where);
    let page = base.select([
      'o.id',
      'o.object_type',
      'o.name',
      'o.site_id',
      'o.metadata_type_id',
      'o.created_by',
      'o.created_at',
      'o.updated_at',
    ]);
    if (query.name) page = page.select(sql<number>`similarity(o.name, ${query.name.text})`.as('closeness'));
    // SQLite's fuzzy search computes every name's closeness (no index): counted in the same pass
    // (a window over the matches) rather than by a second scan. Elsewhere the page may stop early
    // along an index, which a window would prevent.
    const counting = this.dialect === 'sqlite' && query.name?.match === 'fuzzy';
    if (counting) page = page.select(sql<number>`count(*) OVER ()`.as('total'));
    const direction = query.descending ? 'desc' : 'asc';
    const rows = (await page
      .orderBy(sql.ref(SORT_COLUMNS[query.sortBy]), direction)
      .orderBy('o.id', direction)
      .limit(query.limit)
      .offset(query.offset)
      .execute()) as (BusinessObjectRow & { total?: number })[];
    const first = rows[0];
    if (counting && first) {
      const total = Number(first.total);
      for (const row of rows) delete row.total;
      return { rows, total };
    }
    const counted = await base.select(sql<number | string>`count(*)`.as('total')).executeTakeFirst();
    return { rows, total: Number(counted?.total ?? 0) };
  }

  private async conditions(query: BusinessObjectQuery): Promise<Expression<SqlBool>[]> {
    const postgres = this.dialect === 'postgres';
    const { name } = query;
    // SQLite's contains starts from the trigram table's candidates when they are few; the unary +
    // keeps it from walking the organization's index instead.
    const candidates = name?.match === 'contains' && !postgres ? await this.fewTrigramCandidates(name.key) : undefined;
    const list: Expression<SqlBool>[] = [
      candidates ? sql<SqlBool>`+o.org_id = ${query.orgId}` : sql<SqlBool>`o.org_id = ${query.orgId}`,
      sql<SqlBool>`o.object_type IN (${sql.join(query.types)})`,
    ];
    if (query.siteIds) {
      list.push(
        postgres
          ? sql<SqlBool>`o.site_id = ANY(${query.siteIds}::text[])`
          : sql<SqlBool>`o.site_id IN (SELECT value FROM json_each(${JSON.stringify(query.siteIds)}))`,
      );
    }
    if (query.createdBy) {
      list.push(
        postgres
          ? sql<SqlBool>`o.created_by = ANY(${query.createdBy}::text[])`
          : sql<SqlBool>`o.created_by IN (SELECT value FROM json_each(${JSON.stringify(query.createdBy)}))`,
      );
    }
    if (query.createdAfter) list.push(sql<SqlBool>`o.created_at > ${query.createdAfter}`);
    if (query.createdBefore) list.push(sql<SqlBool>`o.created_at < ${query.createdBefore}`);
    if (query.updatedAfter) list.push(sql<SqlBool>`o.updated_at > ${query.updatedAfter}`);
    if (query.updatedBefore) list.push(sql<SqlBool>`o.updated_at < ${query.updatedBefore}`);
    if (name?.match === 'exact') list.push(sql<SqlBool>`o.name_key = ${name.key}`);
    else if (name?.match === 'startsWith') {
      list.push(sql<SqlBool>`o.name_key >= ${name.key}`, sql<SqlBool>`o.name_key < ${`${name.key}\u{10FFFF}`}`);
    } else if (name?.match === 'contains') {
      list.push(sql<SqlBool>`o.name_key LIKE ${`%${escapeLike(name.key)}%`} ESCAPE '\\'`);
      if (candidates) {
        list.push(
          sql<SqlBool>`o.rowid IN (SELECT rowid FROM twin_object_name_search WHERE twin_object_name_search MATCH ${candidates})`,
        );
      }
    } else if (name?.match === 'fuzzy') {
      // On PostgreSQL the operator lets the GIN index find the candidates (pg_trgm's
      // similarity_threshold, set to FUZZY_CLOSENESS on every connection); the comparison decides.
      if (postgres) list.push(sql<SqlBool>`o.name ${sql.raw(await this.similar())} ${name.text}`);
      list.push(sql<SqlBool>`similarity(o.name, ${name.text}) >= ${sql.lit(FUZZY_CLOSENESS)}`);
    }
    return list;
  }

  private similar(): Promise<string> {
    this.similarOperator ??= sql<{ schema: string }>`
      SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_trgm'`
      .execute(this.db)
      .then(({ rows }) => `OPERATOR("${(rows[0]?.schema ?? 'public').replace(/"/g, '""')}".%)`);
    return this.similarOperator;
  }

  /** The FTS5 query for a contains search when the trigram table narrows it to few names; else undefined. */
  private async fewTrigramCandidates(key: string): Promise<string | undefined> {
    const match = trigramMatch(key);
    if (!match) return undefined;
    const { rows } = await sql<{ candidates: number }>`
      SELECT count(*) AS candidates FROM (
        SELECT rowid FROM twin_object_name_search WHERE twin_object_name_search MATCH ${match} LIMIT ${FEW_CANDIDATES})`.execute(
      this.db,
    );
    return (rows[0]?.candidates ?? 0) < FEW_CANDIDATES ? match : undefined;
  }
}
