import type { Kysely } from 'kysely';
import type { MembershipRow, RegionalSchema, RoleRow } from '../schema.js';

/** Roles and memberships of a region: what layers 2 and 3 of the access checks read. */
export class AccessRepository {
  constructor(readonly db: Kysely<RegionalSchema>) {}

  async insertRoles(rows: RoleRow[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('roles').values(rows).execute();
  }

  async listRoles(orgId: string): Promise<RoleRow[]> {
    return this.db.selectFrom('roles').selectAll().where('org_id', '=', orgId).orderBy('kind').orderBy('name').execute();
  }

  async findRole(orgId: string, id: string): Promise<RoleRow | undefined> {
    return this.db.selectFrom('roles').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  /** Creates or replaces the membership of a principal on a node. */
  async upsertMembership(row: MembershipRow): Promise<void> {
    await this.db
      .insertInto('memberships')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['node_id', 'principal_id']).doUpdateSet({ role_id: row.role_id, principal_type: row.principal_type }),
      )
      .execute();
  }
}
