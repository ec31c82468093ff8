import type { Kysely, Transaction } from 'kysely';
import type { CursorKey, ListPage } from '../../../domain/listing/cursor.js';
import { NODE_LISTING_COLUMNS, type NodeListing } from '../../../domain/records/regional.js';
import type { Dialect } from '../database.js';
import type { GroupRow, MembershipRow, RegionalSchema } from '../schema.js';
import { type AnchorStart, atListVersion, keyBound, listVersion, OffsetAnchors } from './offset-anchors.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;
type Tx = Transaction<RegionalSchema>;

/** The order of a node's memberships: when given, then the principal. */
const MEMBERSHIP_ORDER = ['created_at', 'principal_id'];
const membershipKey = (row: MembershipRow): CursorKey => [row.created_at, row.principal_id];

/** A role a principal holds on an active node, directly or through a group, with the node's listing columns. */
export interface HeldRoleRow extends NodeListing {
  path: string;
  role_id: string;
  role_name: string;
  /** 1 when the principal holds it itself, 0 through a group. */
  direct: number;
}

/**
 * Memberships on nodes, as the memberships API writes them (the access query reads them in
 * NodeRepository), and the few facts about groups a membership needs.
 */
export class MembershipRepository {
  /** Where deep offset pages of a node's memberships start (docs/performance.md, "Lists at depth"). */
  readonly anchors = new OffsetAnchors();

  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * The memberships held on the node itself (not those reaching it from above), oldest first, by
   * principal within an instant: after a cursor's key ([created_at, principal_id]) or by offset.
   */
  async listOnNode(nodeId: string, page: ListPage): Promise<MembershipRow[]> {
    const listKey = `memberships:${nodeId}`;
    const filtered = (after?: CursorKey, from?: AnchorStart) => {
      let query = this.db.selectFrom('memberships').where('node_id', '=', nodeId);
      if (after) query = query.where(keyBound(MEMBERSHIP_ORDER, '>', after));
      if (from) query = query.where(keyBound(MEMBERSHIP_ORDER, '>=', from.key)).where(atListVersion(listKey, from.version));
      return query.orderBy('created_at').orderBy('principal_id').limit(page.limit);
    };
    if (page.after || page.offset === 0) return filtered(page.after).selectAll().execute();
    // An offset's page is chosen along memberships_node_order alone, from the nearest anchor
    // (docs/performance.md, "Lists at depth").
    const version = listVersion(listKey);
    return this.anchors.page<MembershipRow>(['memberships', nodeId], page.offset, membershipKey, (from, skip) => {
      const start = filtered(undefined, from);
      if (skip === 0) return start.selectAll().select(version).execute();
      return (
        this.db
          .selectFrom(start.select(['node_id', 'principal_id']).offset(skip).as('page'))
          // The page leads (CROSS JOIN): otherwise SQLite walks the node's memberships in the list's
          // order to spare a sort of the page's 100. Joined on the page's node_id, PostgreSQL probes
          // the primary key for each instead of hashing the node's memberships.
          .crossJoin('memberships as m')
          .whereRef('m.node_id', '=', 'page.node_id')
          .whereRef('m.principal_id', '=', 'page.principal_id')
          .selectAll('m')
          .select(version)
          .orderBy('m.created_at')
          .orderBy('m.principal_id')
          .execute()
      );
    });
  }

  /**
   * The roles the principal holds in the organization, itself or through its groups, on nodes
   * outside the trash (a trashed subtree has trashed_at on every node): what places are made of
   * (docs/design/places.md). In browse order of the nodes (name, then id).
   */
  async heldBy(orgId: string, principalId: string): Promise<HeldRoleRow[]> {
    return this.db
      .selectFrom('memberships as m')
      .innerJoin('nodes as n', 'n.id', 'm.node_id')
      .innerJoin('roles as r', (join) => join.onRef('r.org_id', '=', 'n.org_id').onRef('r.id', '=', 'm.role_id'))
      .select(NODE_LISTING_COLUMNS.map((column) => `n.${column}` as const))
      .select(['n.path', 'm.role_id', 'r.name as role_name'])
      .select((eb) => eb.case().when('m.principal_id', '=', principalId).then(1).else(0).end().as('direct'))
      .where('n.org_id', '=', orgId)
      .where('n.trashed_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('m.principal_id', '=', principalId),
          eb(
            'm.principal_id',
            'in',
            eb.selectFrom('group_members as g').select('g.group_id').where('g.user_id', '=', principalId),
          ),
        ]),
      )
      .orderBy('n.name_key')
      .orderBy('n.id')
      .orderBy('m.principal_id')
      .execute();
  }

  async find(nodeId: string, principalId: string, db: Db = this.db): Promise<MembershipRow | undefined> {
    return db
      .selectFrom('memberships')
      .selectAll()
      .where('node_id', '=', nodeId)
      .where('principal_id', '=', principalId)
      .executeTakeFirst();
  }

  /** Creates the membership or gives it another role; a replaced one keeps its creation time. */
  async upsert(tx: Tx, row: MembershipRow): Promise<void> {
    await tx
      .insertInto('memberships')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['node_id', 'principal_id']).doUpdateSet({ role_id: row.role_id, principal_type: row.principal_type }),
      )
      .execute();
  }

  async delete(tx: Tx, nodeId: string, principalId: string): Promise<void> {
    await tx.deleteFrom('memberships').where('node_id', '=', nodeId).where('principal_id', '=', principalId).execute();
  }

  /** The users (principal type user) holding a role directly on a node. */
  async usersWithRole(nodeId: string, roleId: string, db: Db = this.db): Promise<string[]> {
    const rows = await db
      .selectFrom('memberships')
      .select('principal_id')
      .where('node_id', '=', nodeId)
      .where('role_id', '=', roleId)
      .where('principal_type', '=', 'user')
      .execute();
    return rows.map((row) => row.principal_id);
  }

  /**
   * A group of the organization, held for the transaction on PostgreSQL (FOR SHARE): a concurrent
   * removal of the group, which removes its memberships, waits instead of missing this one.
   */
  async lockGroup(tx: Tx, orgId: string, groupId: string): Promise<Pick<GroupRow, 'id' | 'name' | 'division_id'> | undefined> {
    const query = tx
      .selectFrom('groups')
      .select(['id', 'name', 'division_id'])
      .where('id', '=', groupId)
      .where('org_id', '=', orgId);
    return (this.dialect === 'postgres' ? query.forShare() : query).executeTakeFirst();
  }

  async groupNames(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('groups')
      .select(['id', 'name'])
      .where('org_id', '=', orgId)
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((row) => [row.id, row.name]));
  }
}
