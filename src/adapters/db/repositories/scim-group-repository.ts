import type { Kysely, Transaction } from 'kysely';
import type { CursorKey, ListPage } from '../../../domain/listing/cursor.js';
import type { GroupQuery } from '../../../domain/scim/filters.js';
import type { GroupRow, RegionalSchema } from '../schema.js';
import { chunks } from './chunks.js';
import { type AnchorStart, atListVersion, keyBound, listVersion, OffsetAnchors, withoutVersion } from './offset-anchors.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** SCIM /Groups' order: when made, then id. */
const SCIM_GROUP_ORDER = ['g.created_at', 'g.id'];
const scimGroupKey = (row: GroupRow): CursorKey => [row.created_at, row.id];

/**
 * What the SCIM surface needs of a region's groups beyond GroupRepository (which writes the group
 * rows): only SCIM-managed groups of one organization are visible, members are added and removed
 * in batches, and a person's place in the organization's groups and nodes.
 */
export class ScimGroupRepository {
  /** Where deep offset pages of SCIM /Groups start (docs/performance.md, "Lists at depth"). */
  readonly anchors = new OffsetAnchors();

  constructor(readonly db: Kysely<RegionalSchema>) {}

  private scimGroups(db: Db, orgId: string, where: GroupQuery) {
    let query = db.selectFrom('groups as g').where('g.org_id', '=', orgId).where('g.scim_managed', '=', 1);
    if (where.id !== undefined) query = query.where('g.id', '=', where.id);
    if (where.displayName !== undefined) query = query.where('g.name_key', '=', where.displayName);
    if (where.externalId !== undefined) query = query.where('g.scim_external_id', '=', where.externalId);
    if (where.memberId !== undefined) {
      const memberId = where.memberId;
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('group_members as gm')
            .select('gm.user_id')
            .whereRef('gm.group_id', '=', 'g.id')
            .where('gm.user_id', '=', memberId),
        ),
      );
    }
    return query;
  }

  async find(orgId: string, groupId: string, db: Db = this.db): Promise<GroupRow | undefined> {
    return this.scimGroups(db, orgId, { id: groupId }).selectAll('g').executeTakeFirst();
  }

  /** In the order they were made, by id within an instant: after a cursor's key ([created_at, id]) or by offset. */
  async list(orgId: string, where: GroupQuery, page: ListPage): Promise<GroupRow[]> {
    const listKey = `groups:${orgId}`;
    const filtered = (after?: CursorKey, from?: AnchorStart) => {
      let query = this.scimGroups(this.db, orgId, where);
      if (after) query = query.where(keyBound(SCIM_GROUP_ORDER, '>', after));
      if (from) query = query.where(keyBound(SCIM_GROUP_ORDER, '>=', from.key)).where(atListVersion(listKey, from.version));
      return query.orderBy('g.created_at').orderBy('g.id').limit(page.limit);
    };
    if (page.after || page.offset === 0) return filtered(page.after).selectAll('g').execute();
    // An offset's page is chosen along groups_scim_order alone (docs/performance.md, "Lists at
    // depth"), from the nearest anchor unless the filter names a member: list_versions counts
    // changes of groups, not of their members.
    const version = listVersion(listKey);
    const read = (from: AnchorStart | undefined, skip: number) => {
      const start = filtered(undefined, from);
      if (skip === 0) return start.selectAll('g').select(version).execute();
      return this.db
        .selectFrom(start.select('g.id').offset(skip).as('page'))
        .innerJoin('groups as s', 's.id', 'page.id')
        .selectAll('s')
        .select(version)
        .orderBy('s.created_at')
        .orderBy('s.id')
        .execute();
    };
    if (where.memberId !== undefined) return withoutVersion(await read(undefined, page.offset));
    const scope = ['scim-groups', orgId, where.id ?? '', where.displayName ?? '', where.externalId ?? ''];
    return this.anchors.page<GroupRow>(scope, page.offset, scimGroupKey, read);
  }

  async count(orgId: string, where: GroupQuery): Promise<number> {
    const row = await this.scimGroups(this.db, orgId, where)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Member ids of groups, in the order they joined. */
  async memberIds(groupIds: string[], db: Db = this.db): Promise<Map<string, string[]>> {
    const members = new Map<string, string[]>(groupIds.map((id) => [id, []]));
    for (const chunk of chunks(groupIds)) {
      const rows = await db
        .selectFrom('group_members')
        .select(['group_id', 'user_id'])
        .where('group_id', 'in', chunk)
        .orderBy('created_at')
        .orderBy('user_id')
        .execute();
      for (const row of rows) members.get(row.group_id)?.push(row.user_id);
    }
    return members;
  }

  async addMembers(db: Db, groupId: string, userIds: string[], at: string): Promise<void> {
    for (const chunk of chunks(userIds)) {
      await db
        .insertInto('group_members')
        .values(chunk.map((userId) => ({ group_id: groupId, user_id: userId, created_at: at })))
        .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
        .execute();
    }
  }

  async removeMembers(db: Db, groupId: string, userIds: string[]): Promise<void> {
    for (const chunk of chunks(userIds)) {
      await db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', 'in', chunk).execute();
    }
  }

  /** The SCIM-managed groups each user belongs to, for the users' read-only `groups`. */
  async groupsOf(orgId: string, userIds: string[]): Promise<Map<string, { id: string; displayName: string }[]>> {
    const groups = new Map<string, { id: string; displayName: string }[]>(userIds.map((id) => [id, []]));
    for (const chunk of chunks(userIds)) {
      const rows = await this.db
        .selectFrom('group_members as gm')
        .innerJoin('groups as g', 'g.id', 'gm.group_id')
        .select(['gm.user_id', 'g.id', 'g.name'])
        .where('g.org_id', '=', orgId)
        .where('g.scim_managed', '=', 1)
        .where('gm.user_id', 'in', chunk)
        .orderBy('g.name_key')
        .execute();
      for (const row of rows) groups.get(row.user_id)?.push({ id: row.id, displayName: row.name });
    }
    return groups;
  }

  /** Ends a person's place in the organization's region: its group memberships and node memberships. */
  async removePerson(db: Db, orgId: string, userId: string): Promise<void> {
    await db
      .deleteFrom('group_members')
      .where('user_id', '=', userId)
      .where('group_id', 'in', (eb) => eb.selectFrom('groups').select('id').where('org_id', '=', orgId))
      .execute();
    await db
      .deleteFrom('memberships')
      .where('principal_id', '=', userId)
      .where('node_id', 'in', (eb) => eb.selectFrom('nodes').select('id').where('org_id', '=', orgId))
      .execute();
  }
}
