import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type { CursorKey, ListPage } from '../../../domain/listing/cursor.js';
import { NODE_LISTING_COLUMNS, type NodeListing } from '../../../domain/records/regional.js';
import type { Dialect } from '../database.js';
import type { RegionalSchema } from '../schema.js';
import { notBelowForeignRestriction } from './access-conditions.js';
import { precompiled } from './access-statements.js';

/**
 * The paths of the nodes a principal reads the whole subtree of: those where it or one of its
 * groups holds a role with `read` (what readableBy checks per row), without the ones inside
 * another. Sorted, a nested path follows the path it is inside.
 */
export function outermostPaths(paths: readonly string[]): string[] {
  const kept: string[] = [];
  for (const path of [...paths].sort()) {
    const last = kept[kept.length - 1];
    if (last === undefined || !path.startsWith(last)) kept.push(path);
  }
  return kept;
}

/**
 * Whether a path lies in one of the subtrees of `outermost` (sorted, none inside another). The
 * paths with a given prefix are one contiguous range in sort order, and no other outermost path
 * falls inside that range, so the only candidate is the greatest one not after the path: a binary
 * search of string comparisons, where splitting each path into its ids cost 0.5 us an entry.
 */
export function insideOneOf(outermost: readonly string[], path: string): boolean {
  let low = 0;
  let high = outermost.length - 1;
  let candidate = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if ((outermost[middle] as string) <= path) {
      candidate = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return candidate >= 0 && path.startsWith(outermost[candidate] as string);
}

/** An entry of the trash walk: what the index of trash roots holds. */
type TrashEntry = { id: string; path: string; trashed_at: string | null };

/**
 * Node lists whose cost follows the page and what the caller reads, never the organization's
 * size: the trash (trash roots only, by partial indexes) and browse by cursor.
 */
export class NodeListRepository {
  /** Nodes' listing columns by id, the ids as one argument (an `IN` list would be a statement per length, compiled each time). */
  private readonly nodesById: (ids: readonly string[]) => CompiledQuery<NodeListing>;
  /** Paths of the nodes where a principal or its groups hold a role with `read` (planning it took PostgreSQL 0.6 ms). */
  private readonly readablePathsQuery: (orgId: string, principalId: string) => CompiledQuery<{ path: string }>;
  /** A chunk of the walk: trash roots' id, path and instant in list order, from the start or after a key. */
  private readonly walkFirst: (orgId: string, limit: number) => CompiledQuery<TrashEntry>;
  private readonly walkAfter: (orgId: string, limit: number, after: CursorKey) => CompiledQuery<TrashEntry>;
  /** The organization's nodes restricted to an identity provider other than the caller's. */
  private readonly foreignRestrictions: (orgId: string, identityProvider: string) => Promise<{ rows: { path: string }[] }>;

  constructor(
    private readonly db: Kysely<RegionalSchema>,
    dialect: Dialect,
  ) {
    const postgres = dialect === 'postgres';
    const columns = sql.join(NODE_LISTING_COLUMNS.map((column) => sql.ref(column)));
    const byId = precompiled(
      (ids: string) =>
        (postgres
          ? sql<NodeListing>`SELECT ${columns} FROM nodes WHERE id = ANY(${ids}::text[])`
          : sql<NodeListing>`SELECT ${columns} FROM nodes WHERE id IN (SELECT value FROM json_each(${ids}))`
        ).compile(db),
      ['\u0000ids'],
      false,
    );
    this.nodesById = (ids) => byId(postgres ? (ids as unknown as string) : JSON.stringify(ids)) as CompiledQuery<NodeListing>;
    this.readablePathsQuery = precompiled(
      (orgId: string, principalId: string) => {
        const reading = sql`JOIN roles r ON r.org_id = ${orgId} AND r.id = m.role_id AND r.permissions LIKE ${'%"read"%'}
          JOIN nodes t ON t.id = m.node_id AND t.org_id = ${orgId}`;
        return sql<{ path: string }>`
          SELECT t.path FROM memberships m ${reading} WHERE m.principal_id = ${principalId}
          UNION ALL
          SELECT t.path FROM group_members g JOIN memberships m ON m.principal_id = g.group_id ${reading}
          WHERE g.user_id = ${principalId}`.compile(db);
      },
      ['\u0000org', '\u0000principal'],
      postgres,
    );
    const entry = ['n.id', 'n.path', 'n.trashed_at'] as const;
    this.walkFirst = precompiled(
      (orgId: string, limit: number) => this.trashRoots(orgId, undefined).select(entry).limit(limit).compile(),
      ['\u0000org', -101],
      postgres,
    );
    const walkAfter = precompiled(
      (orgId: string, limit: number, trashedAt: string, id: string) =>
        this.trashRoots(orgId, [trashedAt, id]).select(entry).limit(limit).compile(),
      ['\u0000org', -101, '\u0000at', '\u0000id'],
      postgres,
    );
    this.walkAfter = (orgId, limit, [trashedAt, id]) => walkAfter(orgId, limit, trashedAt as string, id as string);
    const foreign = precompiled(
      (orgId: string, identityProvider: string) =>
        db
          .selectFrom('nodes')
          .select('path')
          .where('org_id', '=', orgId)
          .where('required_identity_provider', 'is not', null)
          .where('required_identity_provider', '<>', identityProvider)
          .compile(),
      ['\u0000org', '\u0000idp'],
      postgres,
    );
    this.foreignRestrictions = (orgId, identityProvider) =>
      db.executeQuery(foreign(orgId, identityProvider) as CompiledQuery<{ path: string }>);
  }

  /**
   * Paths of the nodes whose subtrees the principal reads (outermostPaths) in the organization:
   * its own memberships and its groups', each found from its side by the principal indexes.
   */
  async readablePaths(orgId: string, principalId: string): Promise<string[]> {
    const { rows } = await this.db.executeQuery(this.readablePathsQuery(orgId, principalId));
    return outermostPaths(rows.map((row) => row.path));
  }

  /**
   * Trash roots of the organization that the principal may read, newest first, then by id. The
   * principal's readable subtrees are read first (a few rows by the principal indexes). A caller
   * who reads the organization node takes a page of the trash roots in list order (the partial
   * index of regional-0011). Others walk the same index in chunks, reading only its columns (id,
   * instant, path: no table row), keep the entries below one of their subtrees and below no node
   * restricted to another identity provider, and load the rows of a page's entries at the end. Neither pays per node of the organization, nor an
   * access subquery per entry; the walk is bounded by the trash.
   */
  async trash(orgId: string, principal: { id: string; identityProvider: string }, page: ListPage): Promise<NodeListing[]> {
    const paths = await this.readablePaths(orgId, principal.id);
    if (paths.length === 0) return [];
    if (paths.includes(`/${orgId}/`)) {
      return this.trashRoots(orgId, page.after)
        .where(notBelowForeignRestriction(principal.identityProvider))
        .select(NODE_LISTING_COLUMNS.map((column) => `n.${column}` as const))
        .limit(page.limit)
        .offset(page.after ? 0 : page.offset)
        .execute();
    }
    // What notBelowForeignRestriction checks per row, from the organization's restricted nodes
    // read once (by their partial index; usually none): none of them strictly above the entry.
    const foreign = outermostPaths(
      (await this.foreignRestrictions(orgId, principal.identityProvider)).rows.map((row) => row.path),
    );
    const listed = (entry: { path: string }) =>
      insideOneOf(paths, entry.path) &&
      (foreign.length === 0 || !foreign.some((restricted) => restricted !== entry.path && entry.path.startsWith(restricted)));
    const wanted = page.limit + (page.after ? 0 : page.offset);
    const found: string[] = [];
    let after = page.after;
    let walked = 0;
    for (let chunk = 2 * wanted + 50; found.length < wanted; ) {
      const chunkQuery = after ? this.walkAfter(orgId, chunk, after) : this.walkFirst(orgId, chunk);
      const entries = (await this.db.executeQuery(chunkQuery)).rows;
      for (const entry of entries) if (listed(entry) && found.push(entry.id) === wanted) break;
      const last = entries[entries.length - 1];
      if (entries.length < chunk || !last) break;
      after = [last.trashed_at ?? '', last.id];
      walked += entries.length;
      // The next chunk from the share of the walk that was listed, with a margin (doubling when none was).
      const share = found.length / walked;
      chunk = Math.min(share > 0 ? Math.ceil((1.25 * (wanted - found.length)) / share) + 20 : chunk * 2, 10_000);
    }
    const ids = found.slice(page.after ? 0 : page.offset);
    if (ids.length === 0) return [];
    const rows = new Map<string, NodeListing>();
    for (const row of (await this.db.executeQuery(this.nodesById(ids))).rows) rows.set(row.id, row);
    return ids.map((id) => rows.get(id)).filter((row): row is NodeListing => row !== undefined);
  }

  /** The organization's trash roots after a cursor's key, in list order. */
  private trashRoots(orgId: string, after: CursorKey | undefined) {
    let query = this.db.selectFrom('nodes as n').where('n.org_id', '=', orgId).where(sql<boolean>`n.trash_root_id = n.id`);
    const [trashedAt, id] = after ?? [];
    if (trashedAt !== undefined && id !== undefined) {
      // The first bound alone is a range of the index; without it PostgreSQL ORs two bitmap
      // scans of the whole trash and sorts them (14 ms a page at 1,000,000 nodes, not 0.1).
      query = query
        .where('n.trashed_at', '<=', trashedAt)
        .where((eb) =>
          eb.or([eb('n.trashed_at', '<', trashedAt), eb.and([eb('n.trashed_at', '=', trashedAt), eb('n.id', '>', id)])]),
        );
    }
    return query.orderBy('n.trashed_at', 'desc').orderBy('n.id');
  }

  /**
   * A page of the active children among `ids` (a few: those on the way to a caller's places,
   * docs/design/places.md), in browse order, from an offset or after a cursor's (name_key, id).
   */
  async childrenAmong(parentId: string, ids: readonly string[], page: ListPage): Promise<NodeListing[]> {
    if (ids.length === 0) return [];
    let query = this.db
      .selectFrom('nodes')
      .select(NODE_LISTING_COLUMNS)
      .where('parent_id', '=', parentId)
      .where('id', 'in', ids)
      .where('trashed_at', 'is', null);
    const [nameKey, id] = page.after ?? [];
    if (nameKey !== undefined && id !== undefined) query = query.where(sql<boolean>`(name_key, id) > (${nameKey}, ${id})`);
    return query
      .orderBy('name_key')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.after ? 0 : page.offset)
      .execute();
  }

  /** Active children after a cursor's (name_key, id), in browse order (the parent index serves it). */
  async childrenAfter(parentId: string, limit: number, after: CursorKey): Promise<NodeListing[]> {
    const [nameKey, id] = after;
    return this.db
      .selectFrom('nodes')
      .select(NODE_LISTING_COLUMNS)
      .where('parent_id', '=', parentId)
      .where('trashed_at', 'is', null)
      .where(sql<boolean>`(name_key, id) > (${nameKey}, ${id})`)
      .orderBy('name_key')
      .orderBy('id')
      .limit(limit)
      .execute();
  }
}
