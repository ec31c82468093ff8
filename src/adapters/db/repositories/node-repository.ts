import { type CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import { type Permission, unionPermissions } from '../../../domain/access/permissions.js';
import { NODE_LISTING_COLUMNS as LISTING_COLUMNS, type NodeListing } from '../../../domain/records/regional.js';
import type { ChangeVersions, Dialect } from '../database.js';
import type { NodeRow, RegionalSchema } from '../schema.js';
import {
  ancestorsOf,
  membershipsOnAncestors,
  notBelowForeignRestriction,
  readableBy,
  requiredProvider,
} from './access-conditions.js';
import {
  type AccessRow,
  NODE_COLUMNS,
  type PartRow,
  type PostgresAccessStatements,
  pickColumns,
  postgresAccessStatements,
  precompiled,
} from './access-statements.js';
import { VersionedCache } from './versioned-cache.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** The upper bound of a subtree range scan: paths end in '/', and '0' is the next byte. */
export function subtreeEnd(path: string): string {
  return `${path.slice(0, -1)}0`;
}

/** Escapes LIKE's wildcards so that user text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * An FTS5 query that every name containing the text matches (SQLite's node_name_search, trigram
 * tokenizer, detail=none): trigrams of the text, joined by AND. Non-overlapping trigrams that cover
 * the text are enough, as the LIKE beside it decides the exact match. Undefined for text shorter
 * than a trigram: such a search scans the organization's names instead.
 */
export function trigramMatch(text: string): string | undefined {
  const chars = Array.from(text);
  if (chars.length < 3) return undefined;
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i += 3) trigrams.add(chars.slice(i, i + 3).join(''));
  if (chars.length % 3 !== 0) trigrams.add(chars.slice(-3).join(''));
  return [...trigrams].map((trigram) => `"${trigram.replace(/"/g, '""')}"`).join(' AND ');
}

/**
 * Up to this many candidates, a contains search looks them up by the trigram index (~1 us each);
 * beyond, the text is frequent enough that walking names in order finds a page sooner.
 */
const FEW_CANDIDATES = 5000;

export type { NodeListing };

/** A parent's children outside the trash, in browse order (name, then id), with the listing columns. */
const activeChildren = (db: Kysely<RegionalSchema>, parentId: string) =>
  db
    .selectFrom('nodes')
    .select(LISTING_COLUMNS)
    .where('parent_id', '=', parentId)
    .where('trashed_at', 'is', null)
    .orderBy('name_key')
    .orderBy('id');

export interface NodeWithAccess {
  node: NodeRow;
  permissions: Set<Permission>;
  /** The identity providers required on the node's path (itself and its ancestors): none, one, or a conflict. */
  requiredIdentityProviders: readonly string[];
}

/** The rows of a combined statement by part (access-statements.ts), each part in its `seq` order. */
function byPart(rows: PartRow[]): Map<number, PartRow[]> {
  const parts = new Map<number, PartRow[]>();
  let ordered = true;
  for (const row of rows) {
    const part = Number(row.part);
    const list = parts.get(part);
    if (!list) parts.set(part, [row]);
    else {
      if (Number(row.seq) < Number((list[list.length - 1] as PartRow).seq)) ordered = false;
      list.push(row);
    }
  }
  // PostgreSQL appends the parts' rows in order; a plan that did not would be put right here.
  if (!ordered) for (const list of parts.values()) list.sort((a, b) => Number(a.seq) - Number(b.seq));
  return parts;
}

export type NameMatch = 'contains' | 'startsWith' | 'exact';

export interface NodeLinks {
  derivatives: NodeRow[];
  sources: NodeRow[];
}

/** Turns the access rows of one node (one per role reaching it) into a NodeWithAccess. */
function toNodeWithAccess(rows: AccessRow[]): NodeWithAccess | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const permissions = unionPermissions(rows.map((row) => row.permissions ?? null));
  const requiredIdentityProviders = [...new Set([first.required_idp_min, first.required_idp_max])].filter(
    (provider): provider is string => provider !== null && provider !== undefined,
  );
  const node = pickColumns<NodeRow>(first, NODE_COLUMNS);
  return { node: Object.freeze(node), permissions, requiredIdentityProviders };
}

/** The access cache's key of a principal's access to a node. */
const accessKey = (orgId: string, nodeId: string, principalId: string) => `${principalId}\u0000${orgId}\u0000${nodeId}`;

export interface NodeRepositoryOptions {
  /**
   * Keep access results while nothing they depend on has changed (default true): SQLite by the
   * store's data_version (changeVersion), PostgreSQL by the organization's access version.
   * Off only to measure the uncached check.
   */
  cacheAccess?: boolean;
}

export class NodeRepository {
  private readonly childrenQuery;
  private readonly sqliteChildrenQueries = new Map<number, (parentId: string, offset: number) => CompiledQuery>();
  private readonly accessQuery;
  /** PostgreSQL: the access check with a read beside it, one prepared statement each (access-statements.ts). */
  private readonly pgAccess: PostgresAccessStatements['access'];
  private readonly pgBrowse: PostgresAccessStatements['browse'];
  private readonly pgGet: PostgresAccessStatements['get'];
  private readonly linksQuery;
  private readonly cacheAccess: boolean;

  /**
   * Access results per principal and node, each with the version it was read at: SQLite's
   * data_version, or on PostgreSQL the organization's access version. Exact either way.
   */
  private readonly accessCache = new VersionedCache<NodeWithAccess>();

  constructor(
    private readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
    private readonly versions: ChangeVersions = {},
    options: NodeRepositoryOptions = {},
  ) {
    this.cacheAccess = options.cacheAccess ?? true;
    const postgres = dialect === 'postgres';
    this.childrenQuery = precompiled(
      (parentId: string, limit: number, offset: number) => activeChildren(db, parentId).limit(limit).offset(offset).compile(),
      ['\u0000parent', -101, -102],
      postgres,
    );
    this.accessQuery = precompiled(
      (orgId: string, nodeId: string, principalId: string) =>
        sql`WITH ${ancestorsOf(dialect, nodeId)}
          SELECT ${sql.join(NODE_COLUMNS.map((column) => sql.ref(`n.${column}`)))}, r.permissions,
            ${requiredProvider('min')} AS required_idp_min, ${requiredProvider('max')} AS required_idp_max
          FROM nodes n
          LEFT JOIN memberships m ON ${membershipsOnAncestors(dialect, principalId)}
          LEFT JOIN roles r ON r.org_id = n.org_id AND r.id = m.role_id
          WHERE n.id = ${nodeId} AND n.org_id = ${orgId}`.compile(db),
      ['\u0000org', '\u0000node', '\u0000principal'],
      postgres,
    );
    ({ access: this.pgAccess, browse: this.pgBrowse, get: this.pgGet } = postgresAccessStatements(db, postgres));
    // SQLite: a node's links in one statement, so that GET needs no read transaction for them.
    this.linksQuery = precompiled(
      (nodeId: string) =>
        sql`SELECT 2 AS part, ${sql.join(NODE_COLUMNS.map((column) => sql.ref(`n.${column}`)))}
            FROM node_links l JOIN nodes n ON n.id = l.to_id
            WHERE l.kind = 'derivative' AND l.from_id = ${nodeId} AND n.trashed_at IS NULL
          UNION ALL
          SELECT 3 AS part, ${sql.join(NODE_COLUMNS.map((column) => sql.ref(`n.${column}`)))}
            FROM node_links l JOIN nodes n ON n.id = l.from_id
            WHERE l.kind = 'derivative' AND l.to_id = ${nodeId} AND n.trashed_at IS NULL`.compile(db),
      ['\u0000node'],
      postgres,
    );
  }

  async insert(row: NodeRow, tx: Db = this.db): Promise<void> {
    await tx.insertInto('nodes').values(row).execute();
  }

  async findById(id: string, tx: Db = this.db): Promise<NodeRow | undefined> {
    return tx.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Loads a node of the organization with what the principal may do on it, in one query. */
  async findWithAccess(orgId: string, nodeId: string, principalId: string): Promise<NodeWithAccess | undefined> {
    if (this.dialect === 'postgres') {
      const { full, hit } = this.pgAccess;
      return (
        await this.readWithAccess(orgId, nodeId, principalId, (known, access) =>
          (access ? full : hit)(orgId, nodeId, principalId, known),
        )
      ).found;
    }
    const version = this.cacheAccess ? this.versions.changeVersion?.() : undefined;
    const key = accessKey(orgId, nodeId, principalId);
    if (version !== undefined) {
      const cached = this.accessCache.get(key, version);
      if (cached) return cached;
    }
    const { rows } = await this.db.executeQuery<AccessRow>(this.accessQuery(orgId, nodeId, principalId));
    const found = toNodeWithAccess(rows);
    if (found && version !== undefined) this.accessCache.set(key, version, found);
    return found;
  }

  /**
   * The node with the principal's access, and a page of its active children read beside it
   * (whatever the access: the caller decides). One statement on PostgreSQL; on SQLite one read
   * while the access result is cached and current, else the access check and the children query.
   */
  async browse(
    orgId: string,
    nodeId: string,
    principalId: string,
    limit: number,
    offset: number,
  ): Promise<{ found: NodeWithAccess | undefined; children: NodeListing[] }> {
    if (this.dialect === 'postgres') {
      const { full, hit } = this.pgBrowse;
      const { found, rows, parts } = await this.readWithAccess(orgId, nodeId, principalId, (known, access) =>
        (access ? full : hit)(orgId, nodeId, principalId, known, limit, offset),
      );
      // A hit's rows are the page itself (childrenWithVersion: the listing columns and the version),
      // passed on as they are: copying 20 rows' columns cost about a fifth of the API process's
      // CPU for the statement (docs/performance.md, "Browse and node GET").
      const children = parts
        ? (parts.get(2) ?? []).map((row) => pickColumns<NodeListing>(row, LISTING_COLUMNS))
        : (rows as unknown as NodeListing[]);
      return { found, children };
    }
    // SQLite: with a cached result, the page is read with the store's version in its snapshot
    // (readAtChangeVersion: no lock calls of its own); the result is used when that is the version
    // it was read at. A stale one costs the check after the page, which then decides alone.
    const cached = this.cacheAccess ? this.accessCache.peek(accessKey(orgId, nodeId, principalId)) : undefined;
    const page = this.sqliteChildren(limit, offset);
    const { readAtChangeVersion } = this.versions;
    if (cached && page && readAtChangeVersion) {
      const { rows, version } = readAtChangeVersion<NodeListing>(page(nodeId, offset));
      if (version === cached.version) return { found: cached.value, children: rows };
      const found = await this.findWithAccess(orgId, nodeId, principalId);
      return { found, children: found ? rows : [] };
    }
    const found = await this.findWithAccess(orgId, nodeId, principalId);
    return { found, children: found ? await this.children(nodeId, limit, offset) : [] };
  }

  /**
   * findWithAccess, beside a read of the node's own rows whose result carries the access version
   * of its snapshot (`accessVersionOf`: organizationAccessVersion in the statement on PostgreSQL,
   * readAtChangeVersion on SQLite). While the access result is cached, the read alone, and the
   * cached result when the version is the one it was read at: one statement (one round trip)
   * instead of two. Otherwise the check and the read at once; a stale version costs the check
   * after the read, which then decides alone.
   */
  async findWithAccessBeside<T>(
    orgId: string,
    nodeId: string,
    principalId: string,
    read: () => Promise<T>,
    accessVersionOf: (value: T) => number | undefined,
  ): Promise<{ found: NodeWithAccess | undefined; value: T }> {
    const cached = this.cacheAccess ? this.accessCache.peek(accessKey(orgId, nodeId, principalId)) : undefined;
    if (cached) {
      const value = await read();
      const version = accessVersionOf(value);
      if (version !== undefined && Number(version) === cached.version) return { found: cached.value, value };
      return { found: await this.findWithAccess(orgId, nodeId, principalId), value };
    }
    const [found, value] = await Promise.all([this.findWithAccess(orgId, nodeId, principalId), read()]);
    return { found, value };
  }

  /** The node with the principal's access, and its active derivatives and sources, from one snapshot. */
  async getWithLinks(
    orgId: string,
    nodeId: string,
    principalId: string,
  ): Promise<{ found: NodeWithAccess | undefined } & NodeLinks> {
    if (this.dialect === 'postgres') {
      const { full, hit } = this.pgGet;
      const read = await this.readWithAccess(orgId, nodeId, principalId, (known, access) =>
        (access ? full : hit)(orgId, nodeId, principalId, known),
      );
      const parts = read.parts ?? byPart(read.rows);
      const bodies = (rows: PartRow[] = []) => rows.map((row) => row.body as NodeRow);
      return { found: read.found, derivatives: bodies(parts.get(2)), sources: bodies(parts.get(3)) };
    }
    const found = await this.findWithAccess(orgId, nodeId, principalId);
    if (!found) return { found, derivatives: [], sources: [] };
    const links = (await this.db.executeQuery<NodeRow & { part: number }>(this.linksQuery(nodeId))).rows;
    const side = (part: number) => links.filter((row) => row.part === part).map((row) => pickColumns<NodeRow>(row, NODE_COLUMNS));
    return { found, derivatives: side(2), sources: side(3) };
  }

  /**
   * PostgreSQL: with a cached result, runs the combined statement without the access part and
   * keeps the cached result when the organization's version is still the one it was read at;
   * otherwise (nothing cached, or a change since) runs it with the access part, which returns the
   * access rows only when the version differs from `known`. So a hit costs one round trip, and
   * only a result made stale by a change costs two. A hit answers the statement's rows as they
   * came (`parts` undefined: the caller splits them if it needs to); a miss, split by part.
   */
  private async readWithAccess(
    orgId: string,
    nodeId: string,
    principalId: string,
    statement: (known: number, access: boolean) => CompiledQuery,
  ): Promise<{ found: NodeWithAccess | undefined; rows: PartRow[]; parts: Map<number, PartRow[]> | undefined }> {
    const key = accessKey(orgId, nodeId, principalId);
    const cached = this.cacheAccess ? this.accessCache.peek(key) : undefined;
    if (cached) {
      const { rows } = await this.db.executeQuery<PartRow>(statement(cached.version, false));
      // The version comes in part 0, or on every row (childrenWithVersion).
      if (Number(rows[0]?.version) === cached.version) return { found: cached.value, rows, parts: undefined };
    }
    // Versions start at 0 (no row yet) and only grow: -1 is never current.
    const { rows } = await this.db.executeQuery<PartRow>(statement(-1, true));
    const parts = byPart(rows);
    const version = Number(parts.get(0)?.[0]?.version);
    const found = toNodeWithAccess((parts.get(1) ?? []).map((row) => row.body as AccessRow));
    if (found && this.cacheAccess) this.accessCache.set(key, version, found);
    return { found, rows, parts };
  }

  async children(parentId: string, limit: number, offset: number): Promise<NodeListing[]> {
    const query = this.dialect === 'sqlite' ? this.sqliteChildren(limit, offset) : undefined;
    return (
      await this.db.executeQuery<NodeListing>(query ? query(parentId, offset) : this.childrenQuery(parentId, limit, offset))
    ).rows;
  }

  /**
   * SQLite runs the children query about 10 us (a fifth) faster with the page size written in
   * the statement than bound, and a first page's OFFSET 0 too: one statement per page size (page
   * sizes are bounded by paging.ts) and first page or not. PostgreSQL binds both (one prepared
   * statement per connection).
   */
  private sqliteChildren(limit: number, offset: number) {
    if (!Number.isSafeInteger(limit) || limit < 0 || limit > 10_000) return undefined;
    const key = offset === 0 ? -limit - 1 : limit;
    let query = this.sqliteChildrenQueries.get(key);
    if (!query) {
      query = precompiled(
        (parentId: string, pageOffset: number) =>
          activeChildren(this.db, parentId)
            .limit(sql.lit(limit))
            .offset(offset === 0 ? sql.lit(0) : pageOffset)
            .compile(),
        ['\u0000parent', -102],
        false,
        offset === 0 ? [-102] : [],
      );
      this.sqliteChildrenQueries.set(key, query);
    }
    return query;
  }

  async update(id: string, fields: Partial<Pick<NodeRow, 'name' | 'name_key' | 'address' | 'updated_at'>>): Promise<void> {
    await this.db.updateTable('nodes').set(fields).where('id', '=', id).execute();
  }

  async setRequiredIdentityProvider(id: string, provider: string | null, now: string): Promise<void> {
    await this.db
      .updateTable('nodes')
      .set({ required_identity_provider: provider, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Active nodes of the organization whose name matches, that the principal may read. The
   * access filter runs in the query so that pages stay full.
   */
  async search(params: {
    orgId: string;
    principalId: string;
    identityProvider: string;
    query: string;
    match: NameMatch;
    kinds: string[] | undefined;
    underPath: string | undefined;
    includeTrashed: boolean;
    limit: number;
    offset: number;
  }): Promise<NodeRow[]> {
    const key = params.query.toLowerCase();
    const match = params.match === 'contains' ? await this.fewTrigramCandidates(key) : undefined;
    // With few candidates the query starts from them; the unary + keeps SQLite from walking the
    // organization's names in order instead (which is what suits a frequent text).
    let query = this.db
      .selectFrom('nodes as n')
      .selectAll('n')
      .where(match ? sql<boolean>`+n.org_id = ${params.orgId}` : sql<boolean>`n.org_id = ${params.orgId}`);
    if (params.match === 'exact') query = query.where('n.name_key', '=', key);
    else if (params.match === 'startsWith') {
      query = query.where('n.name_key', '>=', key).where('n.name_key', '<', `${key}\u{10FFFF}`);
    } else {
      // PostgreSQL's pg_trgm index serves this LIKE by itself; on SQLite the trigram index narrows
      // the rows it is checked on.
      query = query.where(sql<boolean>`n.name_key LIKE ${`%${escapeLike(key)}%`} ESCAPE '\\'`);
      if (match)
        query = query.where(sql<boolean>`n.rowid IN (SELECT rowid FROM node_name_search WHERE node_name_search MATCH ${match})`);
    }
    if (params.kinds?.length) query = query.where('n.kind', 'in', params.kinds);
    if (params.underPath) {
      query = query.where('n.path', '>=', params.underPath).where('n.path', '<', subtreeEnd(params.underPath));
    }
    if (!params.includeTrashed) query = query.where('n.trashed_at', 'is', null);
    return query
      .where(notBelowForeignRestriction(params.identityProvider))
      .where(readableBy(params.principalId))
      .orderBy('n.name_key')
      .orderBy('n.id')
      .limit(params.limit)
      .offset(params.offset)
      .execute();
  }

  /**
   * The FTS5 query for a contains search when the trigram index narrows it to a few thousand names
   * or fewer (all organizations together); undefined when the text is too short for trigrams, too
   * frequent for the index to help, or the store is PostgreSQL.
   */
  private async fewTrigramCandidates(key: string): Promise<string | undefined> {
    const match = this.dialect === 'sqlite' ? trigramMatch(key) : undefined;
    if (!match) return undefined;
    const { rows } = await sql<{ candidates: number }>`
      SELECT count(*) AS candidates FROM (
        SELECT rowid FROM node_name_search WHERE node_name_search MATCH ${match} LIMIT ${FEW_CANDIDATES})`.execute(this.db);
    return (rows[0]?.candidates ?? 0) < FEW_CANDIDATES ? match : undefined;
  }

  async getThumbnail(nodeId: string, db: Kysely<RegionalSchema> = this.db) {
    return db.selectFrom('node_thumbnails').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
  }

  /** In `db` (a transaction) when the thumbnail must appear together with other changes. */
  async putThumbnail(
    nodeId: string,
    contentType: string,
    bytes: Uint8Array,
    etag: string,
    now: string,
    db: Kysely<RegionalSchema> = this.db,
  ): Promise<void> {
    await db
      .insertInto('node_thumbnails')
      .values({ node_id: nodeId, content_type: contentType, bytes, etag, updated_at: now })
      .onConflict((oc) => oc.column('node_id').doUpdateSet({ content_type: contentType, bytes, etag, updated_at: now }))
      .execute();
  }

  async deleteThumbnail(nodeId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('node_thumbnails').where('node_id', '=', nodeId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
