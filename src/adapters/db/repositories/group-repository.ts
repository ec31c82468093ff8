import { type Kysely, sql, type Transaction } from 'kysely';
import type { CursorKey, ListPage } from '../../../domain/listing/cursor.js';
import type { GroupWithCount } from '../../../domain/records/regional.js';
import type { Dialect } from '../database.js';
import type { GroupMemberRow, GroupRow, RegionalSchema } from '../schema.js';
import { type AnchorStart, atListVersion, keyBound, listVersion, OffsetAnchors } from './offset-anchors.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

export type { GroupWithCount };

/** The groups list's order: name without case, then id. */
const GROUP_ORDER = ['g.name_key', 'g.id'];
const groupKey = (row: GroupRow): CursorKey => [row.name_key, row.id];

export interface GroupFilter {
  /** The division's own groups and the organization groups (which belong to every division). */
  divisionId?: string;
  /** Lower-cased name: names are unique without regard to case. */
  nameKey?: string;
}

/** Groups of a region and their members (group_members). No rules here: GroupService applies them. */
export class GroupRepository {
  /** Where deep offset pages of the groups list start (docs/performance.md, "Lists at depth"). */
  readonly anchors = new OffsetAnchors();

  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  private withCount(db: Db) {
    return db
      .selectFrom('groups as g')
      .selectAll('g')
      .select(sql<number>`(SELECT count(*) FROM group_members gm WHERE gm.group_id = g.id)`.as('member_count'));
  }

  async find(orgId: string, id: string, db: Db = this.db): Promise<GroupWithCount | undefined> {
    const row = await this.withCount(db).where('g.org_id', '=', orgId).where('g.id', '=', id).executeTakeFirst();
    return row && { ...row, member_count: Number(row.member_count) };
  }

  /**
   * The group's row for a change in the caller's transaction: on PostgreSQL held FOR UPDATE, so
   * changes of one group take turns (SQLite has one writer anyway).
   */
  async lock(tx: Transaction<RegionalSchema>, orgId: string, id: string): Promise<GroupRow | undefined> {
    const query = tx.selectFrom('groups').selectAll().where('org_id', '=', orgId).where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  async findByNameKey(orgId: string, nameKey: string, db: Db = this.db): Promise<GroupRow | undefined> {
    return db.selectFrom('groups').selectAll().where('org_id', '=', orgId).where('name_key', '=', nameKey).executeTakeFirst();
  }

  /**
   * By name (without case), then id: after a cursor's key ([name_key, id]) or by offset. An
   * offset's page is chosen along groups_list_order alone, then only its rows are read and
   * counted, and a deep one starts from the nearest anchor (docs/performance.md, "Lists at depth").
   */
  async list(orgId: string, filter: GroupFilter, page: ListPage): Promise<GroupWithCount[]> {
    const { divisionId, nameKey } = filter;
    const listKey = `groups:${orgId}`;
    const filtered = (after?: CursorKey, from?: AnchorStart) => {
      let query = this.db.selectFrom('groups as g').where('g.org_id', '=', orgId);
      if (divisionId !== undefined) {
        query = query.where((eb) => eb.or([eb('g.division_id', '=', divisionId), eb('g.division_id', 'is', null)]));
      }
      if (nameKey !== undefined) query = query.where('g.name_key', '=', nameKey);
      if (after) query = query.where(keyBound(GROUP_ORDER, '>', after));
      if (from) query = query.where(keyBound(GROUP_ORDER, '>=', from.key)).where(atListVersion(listKey, from.version));
      return query.orderBy('g.name_key').orderBy('g.id').limit(page.limit);
    };
    const memberCount = sql<number>`(SELECT count(*) FROM group_members gm WHERE gm.group_id = g.id)`.as('member_count');
    const counted = (rows: GroupWithCount[]) => rows.map((row) => ({ ...row, member_count: Number(row.member_count) }));
    if (page.after || page.offset === 0) return counted(await filtered(page.after).selectAll('g').select(memberCount).execute());
    const version = listVersion(listKey);
    const scope = ['groups', orgId, divisionId ?? '', nameKey ?? ''];
    const rows = await this.anchors.page<GroupWithCount>(scope, page.offset, groupKey, (from, skip) => {
      const start = filtered(undefined, from);
      if (skip === 0) return start.selectAll('g').select(memberCount).select(version).execute();
      // The page's ids drive the join: the rows before it are never read, nor their members counted.
      return this.db
        .selectFrom(start.select('g.id').offset(skip).as('page'))
        .innerJoin('groups as g', 'g.id', 'page.id')
        .selectAll('g')
        .select(memberCount)
        .select(version)
        .orderBy('g.name_key')
        .orderBy('g.id')
        .execute();
    });
    return counted(rows);
  }

  async insert(tx: Db, row: GroupRow): Promise<void> {
    await tx.insertInto('groups').values(row).execute();
  }

  async update(
    tx: Db,
    id: string,
    fields: Partial<Pick<GroupRow, 'name' | 'name_key' | 'division_id' | 'saml_linked' | 'scim_external_id' | 'updated_at'>>,
  ): Promise<void> {
    await tx.updateTable('groups').set(fields).where('id', '=', id).execute();
  }

  /** Removes the group with its members and its memberships on nodes: run it in the caller's transaction. */
  async delete(tx: Db, id: string): Promise<void> {
    await tx.deleteFrom('memberships').where('principal_id', '=', id).where('principal_type', '=', 'group').execute();
    await tx.deleteFrom('group_members').where('group_id', '=', id).execute();
    await tx.deleteFrom('groups').where('id', '=', id).execute();
  }

  /** The paths of the nodes the group has memberships on. */
  async membershipPaths(db: Db, groupId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('nodes as n', 'n.id', 'm.node_id')
      .select('n.path')
      .where('m.principal_id', '=', groupId)
      .where('m.principal_type', '=', 'group')
      .execute();
    return rows.map((row) => row.path);
  }

  async isMember(db: Db, groupId: string, userId: string): Promise<boolean> {
    const row = await db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', groupId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async addMember(tx: Db, row: GroupMemberRow): Promise<void> {
    await tx.insertInto('group_members').values(row).execute();
  }

  async removeMember(tx: Db, groupId: string, userId: string): Promise<boolean> {
    const result = await tx
      .deleteFrom('group_members')
      .where('group_id', '=', groupId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** A page of the group's members, in the order they joined. */
  async memberPage(groupId: string, limit: number, offset: number): Promise<GroupMemberRow[]> {
    return this.db
      .selectFrom('group_members')
      .selectAll()
      .where('group_id', '=', groupId)
      .orderBy('created_at')
      .orderBy('user_id')
      .limit(limit)
      .offset(offset)
      .execute();
  }
}
