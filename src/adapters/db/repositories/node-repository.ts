import { type CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import { type Permission, unionPermissions } from '../../../domain/access/permissions.js';
import type { Dialect } from '../database.js';
import type { NodeRow, RegionalSchema } from '../schema.js';
import {
  ancestorsOf,
  membershipsOnAncestors,
  notBelowForeignRestriction,
  readableBy,
  requiredProvider,
} from './access-conditions.js';
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

/** The columns a node's body in a list needs (toNodeBody): half the row, and no long path. */
const LISTING_COLUMNS = [
  'id',
  'name',
  'kind',
  'parent_id',
  'org_id',
  'address',
  'created_at',
  'updated_at',
  'is_processing',
  'is_failed',
  'trashed_at',
] as const;
export type NodeListing = Pick<NodeRow, (typeof LISTING_COLUMNS)[number]>;

export interface NodeWithAccess {
  node: NodeRow;
  permissions: Set<Permission>;
  /** The identity providers required on the node's path (itself and its ancestors): none, one, or a conflict. */
  requiredIdentityProviders: readonly string[];
}

type AccessRow = NodeRow & {
  permissions?: string | null;
  required_idp_min?: string | null;
  required_idp_max?: string | null;
};

export type NameMatch = 'contains' | 'startsWith' | 'exact';

/**
 * A hot query built and compiled once: each call only binds its arguments, in place of the marker
 * values it was compiled with (building and compiling with Kysely costs ~10 us a call).
 */
function precompiled<Args extends unknown[]>(compile: (...markers: Args) => CompiledQuery, markers: Args) {
  const template = compile(...markers);
  // For each parameter of the compiled query, the argument it takes (a marker may appear twice).
  const sources = template.parameters.map((parameter) => markers.indexOf(parameter));
  if (markers.some((_, i) => !sources.includes(i))) throw new Error('a marker is missing from the compiled query');
  return (...args: Args): CompiledQuery => ({
    ...template,
    parameters: template.parameters.map((parameter, j) => ((sources[j] as number) < 0 ? parameter : args[sources[j] as number])),
  });
}

export class NodeRepository {
  private readonly childrenQuery;
  private readonly accessQuery;

  /** Access results per principal and node, exact while the store is unchanged (SQLite). */
  private readonly accessCache = new VersionedCache<NodeWithAccess>();

  constructor(
    private readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
    private readonly changeVersion?: () => number,
  ) {
    this.childrenQuery = precompiled(
      (parentId: string, limit: number, offset: number) =>
        db
          .selectFrom('nodes')
          .select(LISTING_COLUMNS)
          .where('parent_id', '=', parentId)
          .where('trashed_at', 'is', null)
          .orderBy('name_key')
          .orderBy('id')
          .limit(limit)
          .offset(offset)
          .compile(),
      ['\u0000parent', -101, -102],
    );
    this.accessQuery = precompiled(
      (orgId: string, nodeId: string, principalId: string) =>
        sql`WITH ${ancestorsOf(dialect, nodeId)}
          SELECT n.*, r.permissions,
            ${requiredProvider('min')} AS required_idp_min, ${requiredProvider('max')} AS required_idp_max
          FROM nodes n
          LEFT JOIN memberships m ON ${membershipsOnAncestors(dialect, principalId)}
          LEFT JOIN roles r ON r.org_id = n.org_id AND r.id = m.role_id
          WHERE n.id = ${nodeId} AND n.org_id = ${orgId}`.compile(db),
      ['\u0000org', '\u0000node', '\u0000principal'],
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
    const version = this.changeVersion?.();
    const key = `${principalId}\u0000${orgId}\u0000${nodeId}`;
    if (version !== undefined) {
      const cached = this.accessCache.get(key, version);
      if (cached) return cached;
    }
    const { rows } = await this.db.executeQuery<AccessRow>(this.accessQuery(orgId, nodeId, principalId));
    const first = rows[0];
    if (!first) return undefined;
    const permissions = unionPermissions(rows.map((row) => row.permissions ?? null));
    const requiredIdentityProviders = [...new Set([first.required_idp_min, first.required_idp_max])].filter(
      (provider): provider is string => provider !== null,
    );
    delete first.permissions;
    delete first.required_idp_min;
    delete first.required_idp_max;
    const found = { node: Object.freeze(first as NodeRow), permissions, requiredIdentityProviders };
    if (version !== undefined) this.accessCache.set(key, version, found);
    return found;
  }

  async children(parentId: string, limit: number, offset: number): Promise<NodeListing[]> {
    return (await this.db.executeQuery<NodeListing>(this.childrenQuery(parentId, limit, offset))).rows;
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

  /** Trash roots of the organization that the principal may read, newest first. */
  async listTrash(orgId: string, principal: { id: string; identityProvider: string }, limit: number, offset: number) {
    return this.db
      .selectFrom('nodes as n')
      .selectAll('n')
      .where('n.org_id', '=', orgId)
      .where(sql<boolean>`n.trash_root_id = n.id`)
      .where(notBelowForeignRestriction(principal.identityProvider))
      .where(readableBy(principal.id))
      .orderBy('n.trashed_at', 'desc')
      .orderBy('n.id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  async getThumbnail(nodeId: string) {
    return this.db.selectFrom('node_thumbnails').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
  }

  async putThumbnail(nodeId: string, contentType: string, bytes: Uint8Array, etag: string, now: string): Promise<void> {
    await this.db
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
