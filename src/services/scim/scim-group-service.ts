import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { OrganizationMemberRepository } from '../../adapters/db/repositories/organization-member-repository.js';
import type { ScimUserRepository } from '../../adapters/db/repositories/scim-user-repository.js';
import type { GroupRow, RegionalSchema } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import { encodeCursor } from '../../domain/listing/cursor.js';
import { groupNameKey } from '../../domain/people/group-rules.js';
import { parseGroupFilter } from '../../domain/scim/filters.js';
import { applyGroupPatch, type ScimGroupFields, type ScimGroupRecord } from '../../domain/scim/group-resource.js';
import { decodeScimCursor, type Paging } from '../../domain/scim/listing.js';
import type { PatchOperation } from '../../domain/scim/patch.js';
import { badRequest, conflict, notFound } from '../../domain/scim/scim-error.js';
import { displayNameOf } from '../../domain/scim/user-resource.js';
import type { Clock } from '../../ports/clock.js';
import { type ScimContext, scimActor } from './scim-context.js';

const SCIM_GROUPS = 'scim-groups';

const nameTaken = (name: string) => conflict(`A group named ${name} exists in the organization`);
const noGroup = () => notFound('No SCIM group with this id in the organization');

export interface ScimGroupServiceOptions {
  clock: Clock;
  /** Members must be people of the organization. */
  members: Pick<OrganizationMemberRepository, 'findMany'>;
  /** The members' names. */
  scimUsers: Pick<ScimUserRepository, 'names'>;
}

/**
 * Groups over SCIM: organization groups (no owning division) the identity provider creates and
 * fills. They are SCIM-managed: the regional API refuses manual changes to them, and groups
 * made there are not visible here. Members must be people of the organization.
 */
export class ScimGroupService {
  private readonly clock: Clock;
  private readonly members: Pick<OrganizationMemberRepository, 'findMany'>;
  private readonly users: Pick<ScimUserRepository, 'names'>;

  constructor(options: ScimGroupServiceOptions) {
    this.clock = options.clock;
    this.members = options.members;
    this.users = options.scimUsers;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async records(context: ScimContext, rows: GroupRow[], withMembers: boolean): Promise<ScimGroupRecord[]> {
    const { scimGroups } = context.region;
    const memberIds = withMembers ? await scimGroups.memberIds(rows.map((row) => row.id)) : new Map<string, string[]>();
    return this.recordsWith(rows, memberIds);
  }

  private async recordsWith(rows: GroupRow[], memberIds: Map<string, string[]>): Promise<ScimGroupRecord[]> {
    const names = await this.users.names([...new Set([...memberIds.values()].flat())]);
    return rows.map((row) => ({
      id: row.id,
      displayName: row.name,
      externalId: row.scim_external_id,
      created: row.created_at,
      lastModified: row.updated_at,
      members: (memberIds.get(row.id) ?? []).map((id) => {
        const user = names.get(id);
        return {
          id,
          display: user ? displayNameOf({ givenName: user.first_name, familyName: user.last_name, userName: user.email }) : id,
        };
      }),
    }));
  }

  /**
   * A page in the order the groups were made, by startIndex or by cursor (RFC 9865): a cursor
   * holds the last group's (created, id), bound to the organization and the filter.
   */
  async list(context: ScimContext, filter: string | undefined, paging: Paging, withMembers: boolean) {
    const scope = [context.orgId, filter ?? ''];
    const after = paging.cursor ? decodeScimCursor(paging.cursor, SCIM_GROUPS, scope) : undefined;
    const query = parseGroupFilter(filter);
    if (query.none) return { total: 0, records: [] };
    const { scimGroups: groups } = context.region;
    const total = await groups.count(context.orgId, query.where);
    const page = { limit: paging.count, offset: paging.startIndex - 1, after };
    const rows = paging.count === 0 ? [] : await groups.list(context.orgId, query.where, page);
    const last = paging.cursor !== undefined && rows.length === paging.count ? rows[rows.length - 1] : undefined;
    const nextCursor = last ? encodeCursor(SCIM_GROUPS, scope, [last.created_at, last.id]) : undefined;
    return { total, records: await this.records(context, rows, withMembers), nextCursor };
  }

  async get(context: ScimContext, groupId: string, withMembers = true): Promise<ScimGroupRecord> {
    const { scimGroups } = context.region;
    const row = await scimGroups.find(context.orgId, groupId);
    if (!row) throw noGroup();
    return (await this.records(context, [row], withMembers))[0] as ScimGroupRecord;
  }

  /** The group held for a change in the transaction: 404 when it is gone or not SCIM's. */
  private async lock(context: ScimContext, tx: Transaction<RegionalSchema>, groupId: string): Promise<GroupRow> {
    const { groups } = context.region;
    const row = await groups.lock(tx, context.orgId, groupId);
    if (row?.scim_managed !== 1) throw noGroup();
    return row;
  }

  /** Members must be people of the organization: 400 invalidValue names the first that is not. */
  private async requirePeople(context: ScimContext, userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    const members = await this.members.findMany(context.orgId, userIds);
    const people = new Set(members.filter((member) => member.kind === 'user').map((member) => member.id));
    const stranger = userIds.find((id) => !people.has(id));
    if (stranger !== undefined) throw badRequest('invalidValue', `members: ${stranger} is not a user of the organization`);
  }

  async create(context: ScimContext, fields: ScimGroupFields): Promise<ScimGroupRecord> {
    await this.requirePeople(context, fields.memberIds);
    const { scimGroups: groups, groups: groupRows } = context.region;
    const now = this.now();
    const row: GroupRow = {
      id: randomUUID(),
      org_id: context.orgId,
      name: fields.displayName,
      name_key: groupNameKey(fields.displayName),
      division_id: null,
      scim_managed: 1,
      scim_external_id: fields.externalId,
      saml_linked: 0,
      created_at: now,
      updated_at: now,
    };
    await this.inTransaction(context, fields.displayName, async (tx) => {
      if (await groupRows.findByNameKey(context.orgId, row.name_key, tx)) throw nameTaken(fields.displayName);
      await groupRows.insert(tx, row);
      await groups.addMembers(tx, row.id, fields.memberIds, now);
      await this.record(tx, context, row.id, 'group.created', { displayName: row.name, externalId: row.scim_external_id }, now);
      for (const userId of fields.memberIds) await this.record(tx, context, row.id, 'group.member-added', { userId }, now);
    });
    return this.get(context, row.id);
  }

  /** PUT: displayName and externalId as given; members replaced when the body lists them. */
  async replace(context: ScimContext, groupId: string, given: Omit<ScimGroupFields, 'memberIds'> & { memberIds?: string[] }) {
    return this.change(context, groupId, (current) => ({
      ...current,
      ...given,
      memberIds: given.memberIds ?? current.memberIds,
    }));
  }

  async patch(context: ScimContext, groupId: string, operations: PatchOperation[]) {
    return this.change(context, groupId, (current) => applyGroupPatch(current, operations));
  }

  /**
   * Applies a change as a difference (members added, members removed), so two providers' calls
   * adding different members at once both count.
   */
  private async change(context: ScimContext, groupId: string, next: (current: ScimGroupFields) => ScimGroupFields) {
    const { scimGroups: groups, groups: groupRows } = context.region;
    const row = await groups.find(context.orgId, groupId);
    if (!row) throw noGroup();
    const currentIds = (await groups.memberIds([groupId])).get(groupId) ?? [];
    const before: ScimGroupFields = { displayName: row.name, externalId: row.scim_external_id, memberIds: currentIds };
    const after = next(before);
    const current = new Set(currentIds);
    const wanted = new Set(after.memberIds);
    const added = after.memberIds.filter((id) => !current.has(id));
    const removed = currentIds.filter((id) => !wanted.has(id));
    const renamed = after.displayName !== before.displayName;
    const described = renamed || after.externalId !== before.externalId;
    // A provider's periodic sync repeats what is stored: answered from what was read.
    if (!described && added.length === 0 && removed.length === 0) {
      return (await this.recordsWith([row], new Map([[groupId, currentIds]])))[0] as ScimGroupRecord;
    }
    await this.requirePeople(context, added);
    const now = this.now();

    await this.inTransaction(context, after.displayName, async (tx) => {
      // A DELETE since the read above removed the group: 404 before writing anything.
      await this.lock(context, tx, groupId);
      if (renamed) {
        const holder = await groupRows.findByNameKey(context.orgId, groupNameKey(after.displayName), tx);
        if (holder && holder.id !== groupId) throw nameTaken(after.displayName);
      }
      await groupRows.update(tx, groupId, {
        name: after.displayName,
        name_key: groupNameKey(after.displayName),
        scim_external_id: after.externalId,
        updated_at: now,
      });
      await groups.addMembers(tx, groupId, added, now);
      await groups.removeMembers(tx, groupId, removed);
      if (described) {
        await this.record(
          tx,
          context,
          groupId,
          'group.updated',
          { displayName: after.displayName, externalId: after.externalId },
          now,
        );
      }
      for (const userId of added) await this.record(tx, context, groupId, 'group.member-added', { userId }, now);
      for (const userId of removed) await this.record(tx, context, groupId, 'group.member-removed', { userId }, now);
    });
    return this.get(context, groupId);
  }

  async delete(context: ScimContext, groupId: string): Promise<void> {
    const { groups, transaction } = context.region;
    await transaction(async (tx) => {
      const row = await this.lock(context, tx, groupId);
      await groups.delete(tx, groupId);
      await this.record(tx, context, groupId, 'group.deleted', { displayName: row.name }, this.now());
    });
  }

  /** A regional transaction in which a concurrent taker of the name shows as 409 uniqueness. */
  private async inTransaction(context: ScimContext, name: string, work: (tx: Transaction<RegionalSchema>) => Promise<void>) {
    try {
      await context.region.transaction(work);
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(name);
      throw error;
    }
  }

  private record(
    tx: Transaction<RegionalSchema>,
    context: ScimContext,
    groupId: string,
    action: string,
    details: Record<string, unknown>,
    at: string,
  ) {
    const { audit } = context.region;
    return audit.record(tx, {
      orgId: context.orgId,
      actor: scimActor(context),
      action,
      target: { type: 'group', id: groupId },
      details,
      at,
    });
  }
}
