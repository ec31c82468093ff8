import { type Kysely, sql, type Transaction } from 'kysely';
import { DATA_KINDS, type NodeKind } from '../../../domain/nodes/hierarchy.js';
import type { MoveNode } from '../../../domain/nodes/move.js';
import type { Dialect } from '../database.js';
import type { NodeLinkRow, NodeRow, RegionalSchema } from '../schema.js';
import { subtreeEnd } from './node-repository.js';

type Tx = Transaction<RegionalSchema>;
type NodeRef = { id: string; path: string };

export function toMoveNode(row: NodeRow): MoveNode {
  return {
    id: row.id,
    kind: row.kind as NodeKind,
    parentId: row.parent_id,
    path: row.path,
    depth: row.depth,
    inSite: row.site_id !== null,
  };
}

/** Ids of the nodes above and including the one the path ends at, top first. */
export function pathIds(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/** The path of the parent of the node a path ends at. */
export function parentPath(path: string): string {
  return path.slice(0, path.lastIndexOf('/', path.length - 2) + 1);
}

/** Subtree-wide changes. Every method runs inside the caller's transaction. */
export class NodeTreeRepository {
  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** A consistent snapshot for several reads; on SQLite it never waits for a write transaction. */
  readTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction().setAccessMode('read only').execute(work);
  }

  async lock(tx: Tx, id: string): Promise<NodeRow | undefined> {
    // SQLite serializes writers already; on PostgreSQL the row lock orders concurrent tree changes.
    const query = tx.selectFrom('nodes').selectAll().where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  /**
   * Locks the nodes a tree change writes (FOR UPDATE), the nodes it adds children under and every
   * ancestor of both (FOR KEY SHARE), in one global order (depth, then id), so that changes of
   * one branch queue instead of deadlocking: a soft delete holds its root FOR UPDATE, and a move,
   * restore or create below that root waits for it or it for them, never working from rows the
   * other has changed. Returns the fresh rows of the given nodes, or undefined when one is gone or
   * its path changed since the caller read it.
   */
  async lockBranches(tx: Tx, written: NodeRef[], extended: NodeRef[] = []): Promise<Map<string, NodeRow> | undefined> {
    const locks = new Map<string, { depth: number; exclusive: boolean; wanted: boolean }>();
    const mark = (node: NodeRef, exclusive: boolean) =>
      pathIds(node.path).forEach((id, depth) => {
        const known = locks.get(id);
        const own = id === node.id;
        locks.set(id, {
          depth,
          exclusive: (known?.exclusive ?? false) || (own && exclusive),
          wanted: (known?.wanted ?? false) || own,
        });
      });
    for (const node of written) mark(node, true);
    for (const node of extended) mark(node, false);
    const order = [...locks].sort(([a, x], [b, y]) => x.depth - y.depth || (a < b ? -1 : a > b ? 1 : 0));
    const fresh = new Map<string, NodeRow>();
    for (const [id, { exclusive, wanted }] of order) {
      // SQLite serializes writers already: there, reading the given rows is enough.
      if (this.dialect !== 'postgres' && !wanted) continue;
      const query = tx.selectFrom('nodes').selectAll().where('id', '=', id);
      const locked = this.dialect !== 'postgres' ? query : exclusive ? query.forUpdate() : query.forKeyShare();
      const row = await locked.executeTakeFirst();
      if (wanted && row) fresh.set(id, row);
    }
    const unchanged = [...written, ...extended].every((node) => fresh.get(node.id)?.path === node.path);
    return unchanged ? fresh : undefined;
  }

  /** The fresh row of a node about to get a child, its branch locked; undefined once it is gone. */
  async lockForChild(tx: Tx, node: NodeRef): Promise<NodeRow | undefined> {
    let seen: NodeRef | undefined = node;
    // A concurrent move may change the path between reading and locking: read again, lock again.
    for (let attempt = 0; seen && attempt < 5; attempt += 1) {
      const locked = (await this.lockBranches(tx, [], [seen]))?.get(seen.id);
      if (locked) return locked;
      seen = await tx.selectFrom('nodes').selectAll().where('id', '=', node.id).executeTakeFirst();
    }
    return undefined;
  }

  /** Links two nodes: `from` is the source (the bundle), `to` the derivative or dependant. */
  async insertLink(tx: Tx, link: NodeLinkRow): Promise<void> {
    await tx.insertInto('node_links').values(link).execute();
  }

  /**
   * Derivatives and sources of a node that are not in the trash. With `dependant` among the kinds,
   * a bundle's dependants count as its derivatives and a dependant's bundle as its source (a move
   * takes them along alike).
   */
  async links(
    tx: Tx,
    id: string,
    kinds: NodeLinkRow['kind'][] = ['derivative'],
  ): Promise<{ derivatives: NodeRow[]; sources: NodeRow[] }> {
    const linked = (from: 'from_id' | 'to_id', to: 'from_id' | 'to_id') =>
      tx
        .selectFrom('node_links as l')
        .innerJoin('nodes as n', 'n.id', `l.${to}`)
        .selectAll('n')
        .where('l.kind', 'in', kinds)
        .where(`l.${from}`, '=', id)
        .where('n.trashed_at', 'is', null)
        .execute();
    return { derivatives: await linked('from_id', 'to_id'), sources: await linked('to_id', 'from_id') };
  }

  async subtreeShape(tx: Tx, path: string): Promise<{ maxDepth: number; hasSite: boolean; hasData: boolean }> {
    const row = await tx
      .selectFrom('nodes')
      .select((eb) => [
        eb.fn.max('depth').as('maxDepth'),
        eb.fn.sum<number>(sql`case when kind = 'site' then 1 else 0 end`).as('sites'),
        eb.fn.sum<number>(sql`case when kind in (${sql.join(DATA_KINDS)}) then 1 else 0 end`).as('data'),
      ])
      .where('path', '>', path)
      .where('path', '<', subtreeEnd(path))
      .executeTakeFirst();
    return { maxDepth: Number(row?.maxDepth ?? 0), hasSite: Number(row?.sites ?? 0) > 0, hasData: Number(row?.data ?? 0) > 0 };
  }

  /** A data bundle in one of the subtrees is linked to a twin outside all of them. */
  async linkedToOutsideTwin(tx: Tx, paths: string[]): Promise<boolean> {
    const inSubtrees = (column: 'b.path' | 't.path') =>
      sql<boolean>`(${sql.join(
        paths.map((p) => sql`(${sql.ref(column)} >= ${p} and ${sql.ref(column)} < ${subtreeEnd(p)})`),
        sql` or `,
      )})`;
    const row = await tx
      .selectFrom('node_links as l')
      .innerJoin('nodes as b', 'b.id', 'l.from_id')
      .innerJoin('nodes as t', 't.id', 'l.to_id')
      .select('l.from_id')
      .where('l.kind', '=', 'twin')
      .where(inSubtrees('b.path'))
      .where((eb) => eb.not(inSubtrees('t.path')))
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The deepest node on the path (inclusive) that carries memberships of its own. */
  async nearestBoundary(tx: Tx, path: string): Promise<string | null> {
    const ids = pathIds(path);
    const row = await tx
      .selectFrom('memberships as m')
      .innerJoin('nodes as n', 'n.id', 'm.node_id')
      .select('m.node_id')
      .where('m.node_id', 'in', ids)
      .orderBy('n.depth', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.node_id ?? null;
  }

  async subtreeHasMemberships(tx: Tx, path: string): Promise<boolean> {
    const row = await tx
      .selectFrom('nodes as n')
      .innerJoin('memberships as m', 'm.node_id', 'n.id')
      .select('n.id')
      .where('n.path', '>=', path)
      .where('n.path', '<', subtreeEnd(path))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Moves a node and its whole subtree under a new parent: paths, depths and site context. */
  async moveSubtree(tx: Tx, node: NodeRow, target: NodeRow, now: string): Promise<void> {
    const newPath = `${target.path}${node.id}/`;
    const depthDelta = target.depth + 1 - node.depth;
    // A site is its own site context; anything else takes the target's.
    const newSiteId = node.kind === 'site' ? node.id : target.site_id;
    const end = subtreeEnd(node.path);

    if (newSiteId !== node.site_id) {
      // Only nodes that shared the moved node's site context change it; nested sites keep their own.
      await tx
        .updateTable('nodes')
        .set({ site_id: newSiteId })
        .where('path', '>=', node.path)
        .where('path', '<', end)
        .where((eb) => (node.site_id === null ? eb('site_id', 'is', null) : eb('site_id', '=', node.site_id)))
        .execute();
    }
    await tx
      .updateTable('nodes')
      .where('path', '>=', node.path)
      .where('path', '<', end)
      .set({
        path: sql`${newPath} || substr(path, ${node.path.length + 1})`,
        depth: sql`depth + ${depthDelta}`,
      })
      .execute();
    await tx.updateTable('nodes').set({ parent_id: target.id, updated_at: now }).where('id', '=', node.id).execute();
  }

  /** Facts that decide a soft delete, over the whole subtree. */
  async deleteFacts(tx: Tx, node: NodeRow) {
    const end = subtreeEnd(node.path);
    // Parenthesized: it is also negated, and NOT binds tighter than AND.
    const inSubtree = (column: 'n.path' | 'd.path' | 'b.path') =>
      sql<boolean>`(${sql.ref(column)} >= ${node.path} and ${sql.ref(column)} < ${end})`;
    const derivatives = await tx
      .selectFrom('node_links as l')
      .innerJoin('nodes as n', 'n.id', 'l.from_id')
      .innerJoin('nodes as d', 'd.id', 'l.to_id')
      .select(['d.id', 'd.name'])
      .where('l.kind', '=', 'derivative')
      .where(inSubtree('n.path'))
      .where((eb) => eb.not(inSubtree('d.path')))
      .where('d.trashed_at', 'is', null)
      .orderBy('d.name')
      .execute();
    const states = await tx
      .selectFrom('nodes as n')
      .select((eb) => [eb.fn.max('n.is_processing').as('processing'), eb.fn.max('n.is_failed').as('failed')])
      .where(inSubtree('n.path'))
      .where('n.trashed_at', 'is', null)
      .executeTakeFirst();
    const dependant = await tx
      .selectFrom('node_links as l')
      .innerJoin('nodes as b', 'b.id', 'l.from_id')
      .innerJoin('nodes as d', 'd.id', 'l.to_id')
      .select('d.id')
      .where('l.kind', '=', 'dependant')
      .where(inSubtree('b.path'))
      .where((eb) => eb.not(inSubtree('d.path')))
      .where('d.trashed_at', 'is', null)
      .limit(1)
      .executeTakeFirst();
    return {
      derivatives,
      isProcessing: Number(states?.processing ?? 0) > 0,
      isFailed: Number(states?.failed ?? 0) > 0,
      hasBundleDependants: dependant !== undefined,
    };
  }

  async trash(tx: Tx, node: NodeRow, now: string): Promise<void> {
    await tx
      .updateTable('nodes')
      .set({ trashed_at: now, trash_root_id: node.id })
      .where('path', '>=', node.path)
      .where('path', '<', subtreeEnd(node.path))
      .where('trashed_at', 'is', null)
      .execute();
  }

  /** Bytes that come to count on a node (an attachment of a site). */
  async addBytes(tx: Tx, nodeId: string, bytes: number): Promise<void> {
    await tx
      .updateTable('nodes')
      .set((eb) => ({ size_bytes: eb('size_bytes', '+', bytes) }))
      .where('id', '=', nodeId)
      .execute();
  }

  /** Bytes of the organization's active nodes: what the quota counts, with the reservations. */
  activeBytes(tx: Tx, orgId: string): Promise<number> {
    return this.organizationBytes(tx, orgId, 'is');
  }

  /** Bytes of the organization's trash (counted again on restore). */
  trashedBytesOfOrganization(tx: Tx, orgId: string): Promise<number> {
    return this.organizationBytes(tx, orgId, 'is not');
  }

  private async organizationBytes(tx: Tx, orgId: string, trashed: 'is' | 'is not'): Promise<number> {
    const row = await tx
      .selectFrom('nodes')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), sql<number>`0`).as('bytes'))
      .where('org_id', '=', orgId)
      .where('trashed_at', trashed, null)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  async trashedBytes(tx: Tx, rootId: string): Promise<number> {
    const row = await tx
      .selectFrom('nodes')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), sql<number>`0`).as('bytes'))
      .where('trash_root_id', '=', rootId)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  async restore(tx: Tx, rootId: string): Promise<void> {
    await tx.updateTable('nodes').set({ trashed_at: null, trash_root_id: null }).where('trash_root_id', '=', rootId).execute();
  }

  /** Removes a subtree's rows and everything hanging off them (their bytes queued for deletion); returns the number of nodes removed. */
  async removeSubtree(tx: Tx, path: string, now: string): Promise<number> {
    const ids = tx.selectFrom('nodes').select('id').where('path', '>=', path).where('path', '<', subtreeEnd(path));
    // The bytes go with the rows: their keys join the deletion queue in this transaction, with
    // the multipart upload of a pending one (its parts are not under the key).
    await tx
      .insertInto('blob_deletions')
      .columns(['blob_key', 'upload_id', 'requested_at'])
      .expression(
        tx
          .selectFrom('stored_objects')
          .select(['blob_key', 'multipart_upload_id', sql<string>`${now}`.as('requested_at')])
          .where('node_id', 'in', ids),
      )
      .onConflict((oc) => oc.column('blob_key').doNothing())
      .execute();
    await tx.deleteFrom('stored_objects').where('node_id', 'in', ids).execute();
    await tx.deleteFrom('upload_sessions').where('bundle_id', 'in', ids).execute();
    await tx.deleteFrom('processings').where('bundle_id', 'in', ids).execute();
    await tx.deleteFrom('bundles').where('node_id', 'in', ids).execute();
    await tx.deleteFrom('memberships').where('node_id', 'in', ids).execute();
    await tx.deleteFrom('node_thumbnails').where('node_id', 'in', ids).execute();
    // A site's twin, its drafts with their changes, and its objects.
    const drafts = tx.selectFrom('twin_drafts').select('id').where('site_id', 'in', ids);
    await tx.deleteFrom('twin_draft_changes').where('draft_id', 'in', drafts).execute();
    await tx.deleteFrom('twin_drafts').where('site_id', 'in', ids).execute();
    await tx.deleteFrom('twin_objects').where('site_id', 'in', ids).execute();
    await tx.deleteFrom('twins').where('site_id', 'in', ids).execute();
    // A planning project's layouts, then their model assets: a write into a layout holds its row,
    // so it lands before the layouts go and its rows are then deleted with the others.
    await tx.deleteFrom('planning_layouts').where('project_id', 'in', ids).execute();
    await tx.deleteFrom('planning_model_assets').where('project_id', 'in', ids).execute();
    await tx
      .deleteFrom('node_links')
      .where((eb) => eb.or([eb('from_id', 'in', ids), eb('to_id', 'in', ids)]))
      .execute();
    const result = await tx.deleteFrom('nodes').where('path', '>=', path).where('path', '<', subtreeEnd(path)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Trash roots older than the cutoff, oldest first. */
  async expiredTrashRoots(cutoff: string, limit: number): Promise<NodeRow[]> {
    return this.db
      .selectFrom('nodes')
      .selectAll()
      .where(sql<boolean>`trash_root_id = id`)
      .where('trashed_at', '<', cutoff)
      .orderBy('trashed_at')
      .limit(limit)
      .execute();
  }
}
