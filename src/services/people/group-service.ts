import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { InTransaction } from '../../adapters/db/database.js';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { GroupFilter, GroupRepository, GroupWithCount } from '../../adapters/db/repositories/group-repository.js';
import type {
  OrganizationMember,
  OrganizationMemberRepository,
} from '../../adapters/db/repositories/organization-member-repository.js';
import type { GroupRow, NodeRow, RegionalSchema } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import type { ListPage } from '../../domain/listing/cursor.js';
import {
  checkGroupRemoval,
  checkGroupUpdate,
  checkMemberAddition,
  checkMemberRemoval,
  checkMembershipsInside,
  checkNameFree,
  type GroupState,
  groupNameKey,
} from '../../domain/people/group-rules.js';
import type { Clock } from '../../ports/clock.js';
import { type NodeService, requireAccess } from '../node-service.js';

type Tx = Transaction<RegionalSchema>;

export interface GroupServiceOptions {
  clock: Clock;
  /** Manage on the organization node; a division read with the caller's access to it. */
  nodes: Pick<NodeService, 'authorize' | 'findWithAccess'>;
  groups: GroupRepository;
  /** Members must be users of the organization. */
  people: Pick<OrganizationMemberRepository, 'find' | 'findMany'>;
  audit: AuditRepository;
  transaction: InTransaction<RegionalSchema>;
}

export interface GroupChanges {
  name?: string;
  /** null makes the group an organization group. */
  divisionId?: string | null;
  samlLinked?: boolean;
}

function stateOf(group: GroupRow): GroupState {
  return { scimManaged: group.scim_managed === 1, samlLinked: group.saml_linked === 1, divisionId: group.division_id };
}

/**
 * Groups of one region's organizations and their members (docs/people.md, "Groups"). Writes need
 * manage on the group's owning division, or on the organization node for an organization group;
 * reads need only an active member's token (the verifier checked that).
 */
export class GroupService {
  private readonly clock: Clock;
  private readonly nodes: Pick<NodeService, 'authorize' | 'findWithAccess'>;
  private readonly groups: GroupRepository;
  private readonly people: Pick<OrganizationMemberRepository, 'find' | 'findMany'>;
  private readonly audit: AuditRepository;
  private readonly transaction: InTransaction<RegionalSchema>;

  constructor(options: GroupServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.groups = options.groups;
    this.people = options.people;
    this.audit = options.audit;
    this.transaction = options.transaction;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private actor(principal: Principal) {
    return { type: 'principal' as const, id: principal.userId };
  }

  /** The active division of the caller's organization with that id, with the caller's access to it; 400 otherwise. */
  private async division(principal: Principal, divisionId: string) {
    const found = await this.nodes.findWithAccess(principal, divisionId);
    if (found?.node.kind !== 'division' || found.node.trashed_at !== null) {
      throw validationError('divisionId: not a division of the organization');
    }
    return found;
  }

  /** Manage on the owning division, or on the organization node for an organization group. */
  private async requireManage(principal: Principal, divisionId: string | null): Promise<NodeRow> {
    if (divisionId === null) return this.nodes.authorize(principal, principal.orgId, 'manage');
    const found = await this.division(principal, divisionId);
    requireAccess(principal, found, 'manage');
    return found.node;
  }

  private async requireGroup(principal: Principal, groupId: string): Promise<GroupWithCount> {
    const group = await this.groups.find(principal.orgId, groupId);
    if (!group) throw new ApiError('NotFound', 'Group not found');
    return group;
  }

  /**
   * Runs a change in one transaction with the group locked and re-read. `seen` is the row the
   * permission was checked on: if another request moved the group since, it is checked again.
   */
  private async withLockedGroup<T>(principal: Principal, seen: GroupRow, change: (tx: Tx, group: GroupRow) => Promise<T>) {
    return this.transaction(async (tx) => {
      const group = await this.groups.lock(tx, principal.orgId, seen.id);
      if (!group) throw new ApiError('NotFound', 'Group not found');
      if (group.division_id !== seen.division_id) await this.requireManage(principal, group.division_id);
      return change(tx, group);
    });
  }

  /** The name is free in the organization (another group holding it refuses; the group itself does not). */
  private async checkName(orgId: string, nameKey: string, selfId: string | undefined, db?: Tx): Promise<void> {
    const holder = await this.groups.findByNameKey(orgId, nameKey, db);
    checkNameFree(holder && holder.id !== selfId ? { scimManaged: holder.scim_managed === 1 } : undefined);
  }

  /**
   * A write that lost a race on the unique name index: the answer is the one the check before it
   * would have given, had the other request committed first.
   */
  private async nameConflict(error: unknown, orgId: string, nameKey: string, selfId?: string): Promise<never> {
    if (!isUniqueViolation(error)) throw error;
    await this.checkName(orgId, nameKey, selfId);
    throw new ApiError('DuplicateGroupName');
  }

  async create(principal: Principal, input: { name: string; divisionId?: string }): Promise<GroupWithCount> {
    const divisionId = input.divisionId ?? null;
    await this.requireManage(principal, divisionId);
    const now = this.now();
    const row: GroupRow = {
      id: randomUUID(),
      org_id: principal.orgId,
      name: input.name,
      name_key: groupNameKey(input.name),
      division_id: divisionId,
      scim_managed: 0,
      scim_external_id: null,
      saml_linked: 0,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.transaction(async (tx) => {
        await this.checkName(row.org_id, row.name_key, undefined, tx);
        await this.groups.insert(tx, row);
        await this.audit.record(tx, {
          orgId: row.org_id,
          actor: this.actor(principal),
          action: 'group.created',
          target: { type: 'group', id: row.id },
          details: { name: row.name, divisionId },
          at: now,
        });
      });
    } catch (error) {
      return this.nameConflict(error, row.org_id, row.name_key);
    }
    return { ...row, member_count: 0 };
  }

  async list(principal: Principal, filter: { divisionId?: string; name?: string }, page: ListPage) {
    const query: GroupFilter = {};
    if (filter.divisionId !== undefined) query.divisionId = (await this.division(principal, filter.divisionId)).node.id;
    if (filter.name !== undefined) query.nameKey = groupNameKey(filter.name);
    return this.groups.list(principal.orgId, query, page);
  }

  async get(principal: Principal, groupId: string): Promise<GroupWithCount> {
    return this.requireGroup(principal, groupId);
  }

  async update(principal: Principal, groupId: string, changes: GroupChanges): Promise<GroupWithCount> {
    const seen = await this.requireGroup(principal, groupId);
    await this.requireManage(principal, seen.division_id);
    checkGroupUpdate(stateOf(seen));
    const moving = changes.divisionId !== undefined && changes.divisionId !== seen.division_id;
    const target = moving ? await this.requireManage(principal, changes.divisionId ?? null) : undefined;
    const nameKey = changes.name !== undefined ? groupNameKey(changes.name) : seen.name_key;
    const now = this.now();
    try {
      return await this.withLockedGroup(principal, seen, async (tx, group) => {
        checkGroupUpdate(stateOf(group));
        if (target && target.kind === 'division')
          checkMembershipsInside(await this.groups.membershipPaths(tx, group.id), target.path);
        if (changes.name !== undefined) await this.checkName(group.org_id, nameKey, group.id, tx);
        const fields = {
          ...(changes.name !== undefined ? { name: changes.name, name_key: nameKey } : {}),
          ...(moving ? { division_id: changes.divisionId ?? null } : {}),
          ...(changes.samlLinked !== undefined ? { saml_linked: changes.samlLinked ? 1 : 0 } : {}),
          updated_at: now,
        };
        await this.groups.update(tx, group.id, fields);
        await this.audit.record(tx, {
          orgId: group.org_id,
          actor: this.actor(principal),
          action: 'group.updated',
          target: { type: 'group', id: group.id },
          details: { before: { name: group.name, divisionId: group.division_id, samlLinked: group.saml_linked === 1 }, changes },
          at: now,
        });
        return { ...group, ...fields, member_count: seen.member_count };
      });
    } catch (error) {
      return this.nameConflict(error, seen.org_id, nameKey, groupId);
    }
  }

  /** Removes the group, its members and its memberships on nodes, in one transaction. */
  async delete(principal: Principal, groupId: string): Promise<void> {
    const seen = await this.requireGroup(principal, groupId);
    await this.requireManage(principal, seen.division_id);
    checkGroupRemoval(stateOf(seen));
    const now = this.now();
    await this.withLockedGroup(principal, seen, async (tx, group) => {
      checkGroupRemoval(stateOf(group));
      await this.groups.delete(tx, group.id);
      await this.audit.record(tx, {
        orgId: group.org_id,
        actor: this.actor(principal),
        action: 'group.deleted',
        target: { type: 'group', id: group.id },
        details: { name: group.name, divisionId: group.division_id },
        at: now,
      });
    });
  }

  /** A user or service user of the organization, or 404. */
  private async requireMember(orgId: string, userId: string): Promise<OrganizationMember> {
    const member = await this.people.find(orgId, userId);
    if (!member) throw new ApiError('NotFound', 'User not found');
    return member;
  }

  async addMember(principal: Principal, groupId: string, userId: string): Promise<OrganizationMember> {
    const seen = await this.requireGroup(principal, groupId);
    await this.requireManage(principal, seen.division_id);
    const member = await this.requireMember(principal.orgId, userId);
    const now = this.now();
    try {
      await this.withLockedGroup(principal, seen, async (tx, group) => {
        checkMemberAddition(stateOf(group), await this.groups.isMember(tx, group.id, member.id));
        await this.groups.addMember(tx, { group_id: group.id, user_id: member.id, created_at: now });
        await this.audit.record(tx, {
          orgId: group.org_id,
          actor: this.actor(principal),
          action: 'group.member-added',
          target: { type: 'group', id: group.id },
          details: { userId: member.id },
          at: now,
        });
      });
    } catch (error) {
      // A concurrent request added the same member first.
      if (isUniqueViolation(error)) throw new ApiError('UserAlreadyMember');
      throw error;
    }
    return member;
  }

  async removeMember(principal: Principal, groupId: string, userId: string): Promise<void> {
    const seen = await this.requireGroup(principal, groupId);
    await this.requireManage(principal, seen.division_id);
    const now = this.now();
    await this.withLockedGroup(principal, seen, async (tx, group) => {
      checkMemberRemoval(stateOf(group), await this.groups.isMember(tx, group.id, userId));
      await this.groups.removeMember(tx, group.id, userId);
      await this.audit.record(tx, {
        orgId: group.org_id,
        actor: this.actor(principal),
        action: 'group.member-removed',
        target: { type: 'group', id: group.id },
        details: { userId },
        at: now,
      });
    });
  }

  /** A page of members in the order they joined; those no longer in the organization are left out. */
  async members(principal: Principal, groupId: string, limit: number, offset: number): Promise<OrganizationMember[]> {
    const group = await this.requireGroup(principal, groupId);
    const page = await this.groups.memberPage(group.id, limit, offset);
    const found = new Map(
      (
        await this.people.findMany(
          principal.orgId,
          page.map((row) => row.user_id),
        )
      ).map((member) => [member.id, member]),
    );
    return page.flatMap((row) => found.get(row.user_id) ?? []);
  }
}
