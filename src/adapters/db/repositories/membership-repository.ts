import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../database.js';
import type { GroupRow, MembershipRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;
type Tx = Transaction<RegionalSchema>;

/**
 * Memberships on nodes, as the memberships API writes them (the access query reads them in
 * NodeRepository), and the few facts about groups a membership needs.
 */
export class MembershipRepository {
  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  /** The memberships held on the node itself (not those reaching it from above), oldest first. */
  async listOnNode(nodeId: string, limit: number, offset: number): Promise<MembershipRow[]> {
    return this.db
      .selectFrom('memberships')
      .selectAll()
      .where('node_id', '=', nodeId)
      .orderBy('created_at')
      .orderBy('principal_id')
      .limit(limit)
      .offset(offset)
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
