import type { Kysely, Transaction } from 'kysely';
import type { CursorKey, ListPage } from '../../../domain/listing/cursor.js';
import type { Dialect } from '../database.js';
import type { RegionalSchema, RoleRow } from '../schema.js';
import { isUniqueViolation } from '../unique-violation.js';
import { type AnchorStart, atListVersion, keyBound, listVersion, OffsetAnchors } from './offset-anchors.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** The roles list's order: administrative first, then by name without case, then id. */
const ROLE_ORDER = ['kind', 'name_key', 'id'];
const roleKey = (row: RoleRow): CursorKey => [row.kind, row.name_key, row.id];

/** An organization's roles (administrative and custom) in its region. Rules live in the services. */
export class RoleRepository {
  /** Where deep offset pages of the roles list start (docs/performance.md, "Lists at depth"). */
  readonly anchors = new OffsetAnchors();

  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Administrative roles first, then custom roles by name: every role, or a page after a cursor's
   * key ([kind, name_key, id]) or by offset.
   */
  async list(orgId: string, page?: ListPage): Promise<RoleRow[]> {
    const listKey = `roles:${orgId}`;
    const filtered = (after?: CursorKey, from?: AnchorStart) => {
      let query = this.db.selectFrom('roles').where('org_id', '=', orgId);
      if (after) query = query.where(keyBound(ROLE_ORDER, '>', after));
      if (from) query = query.where(keyBound(ROLE_ORDER, '>=', from.key)).where(atListVersion(listKey, from.version));
      return query.orderBy('kind').orderBy('name_key').orderBy('id');
    };
    if (!page) return filtered().selectAll().execute();
    if (page.after || page.offset === 0) return filtered(page.after).selectAll().limit(page.limit).execute();
    // An offset's page is chosen along roles_list_order alone, from the nearest anchor
    // (docs/performance.md, "Lists at depth").
    const version = listVersion(listKey);
    return this.anchors.page<RoleRow>(['roles', orgId], page.offset, roleKey, (from, skip) => {
      const start = filtered(undefined, from).limit(page.limit);
      if (skip === 0) return start.selectAll().select(version).execute();
      return (
        this.db
          .selectFrom(start.select(['org_id', 'id']).offset(skip).as('page'))
          // The page leads (CROSS JOIN): otherwise SQLite walks the organization's roles in the
          // list's order to spare a sort of the page's 100. A role's key is (org_id, id).
          .crossJoin('roles as r')
          .whereRef('r.org_id', '=', 'page.org_id')
          .whereRef('r.id', '=', 'page.id')
          .selectAll('r')
          .select(version)
          .orderBy('r.kind')
          .orderBy('r.name_key')
          .orderBy('r.id')
          .execute()
      );
    });
  }

  async find(orgId: string, id: string, db: Db = this.db): Promise<RoleRow | undefined> {
    return db.selectFrom('roles').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The role, held for the rest of the transaction: `share` by a change that gives it (a
   * concurrent removal waits, then finds it in use), `update` by one that changes or removes it.
   * SQLite has one writer, so the plain read is enough there.
   */
  async lock(tx: Transaction<RegionalSchema>, orgId: string, id: string, mode: 'share' | 'update'): Promise<RoleRow | undefined> {
    const query = tx.selectFrom('roles').selectAll().where('org_id', '=', orgId).where('id', '=', id);
    if (this.dialect !== 'postgres') return query.executeTakeFirst();
    return (mode === 'share' ? query.forShare() : query.forUpdate()).executeTakeFirst();
  }

  /** Whether another role of the organization has the name, compared without case. */
  async nameTaken(tx: Db, orgId: string, name: string, exceptId?: string): Promise<boolean> {
    let query = tx.selectFrom('roles').select('id').where('org_id', '=', orgId).where('name_key', '=', name.toLowerCase());
    if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  /** false when the name is taken after all (a concurrent creation won the unique index). */
  async insert(tx: Transaction<RegionalSchema>, row: RoleRow): Promise<boolean> {
    return this.uniquely(() => tx.insertInto('roles').values(row).execute());
  }

  /** false when the new name is taken after all (a concurrent change won the unique index). */
  async update(
    tx: Transaction<RegionalSchema>,
    orgId: string,
    id: string,
    fields: Partial<Pick<RoleRow, 'name' | 'name_key' | 'permissions' | 'updated_at'>>,
  ): Promise<boolean> {
    return this.uniquely(() => tx.updateTable('roles').set(fields).where('org_id', '=', orgId).where('id', '=', id).execute());
  }

  async delete(tx: Transaction<RegionalSchema>, orgId: string, id: string): Promise<void> {
    await tx.deleteFrom('roles').where('org_id', '=', orgId).where('id', '=', id).execute();
  }

  /** How many memberships (on the organization's nodes) and live invitations give the role. */
  async use(tx: Db, orgId: string, id: string): Promise<{ memberships: number; invitations: number }> {
    const memberships = await tx
      .selectFrom('memberships as m')
      .innerJoin('nodes as n', 'n.id', 'm.node_id')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('n.org_id', '=', orgId)
      .where('m.role_id', '=', id)
      .executeTakeFirstOrThrow();
    const invitations = await tx
      .selectFrom('invitations')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('org_id', '=', orgId)
      .where('role_id', '=', id)
      .where('state', 'in', ['sending', 'pending'])
      .executeTakeFirstOrThrow();
    return { memberships: Number(memberships.count), invitations: Number(invitations.count) };
  }

  private async uniquely(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }
}
