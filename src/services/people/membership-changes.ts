import type { Transaction } from 'kysely';
import type { AuditActor, AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { MembershipRepository } from '../../adapters/db/repositories/membership-repository.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { OrganizationMemberRepository } from '../../adapters/db/repositories/organization-member-repository.js';
import type { RoleRepository } from '../../adapters/db/repositories/role-repository.js';
import type { GlobalSchema, MembershipRow, NodeRow, RegionalSchema } from '../../adapters/db/schema.js';
import { ApiError } from '../../domain/errors.js';
import type { NodeKind } from '../../domain/nodes/hierarchy.js';
import { checkGroupScope, checkNotLastAdministrator, isAdministration } from '../../domain/people/membership-rules.js';
import { checkRoleAssignment, ORGANIZATION_ADMINISTRATOR_ROLE_ID } from '../../domain/people/roles.js';
import type { Clock } from '../../ports/clock.js';

type Tx = Transaction<RegionalSchema>;
type GlobalTx = Transaction<GlobalSchema>;

/**
 * Giving and taking roles on nodes, with their rules: what the memberships API and the admin
 * command line share. Callers decide who may; this decides what may be.
 *
 * A change holds its node's row (FOR UPDATE on PostgreSQL) for its regional transaction, so
 * changes of one node take turns. A change on the organization node may touch administrators,
 * whose rules span both stores: it runs inside the organization's lock (members.lockOrganization,
 * which deactivations take too), global first and regional inside, so the last active
 * administrator cannot be removed by two changes at once, and the settings pages' flag
 * (user_organizations.is_admin) is written in that global transaction.
 */
export interface MembershipChangesOptions {
  clock: Clock;
  /** People's places in organizations (global): the organization's lock and the administrator flag. */
  members: OrganizationMemberRepository;
  memberships: MembershipRepository;
  roles: RoleRepository;
  /** The regional transaction and the node's lock. */
  tree: NodeTreeRepository;
  audit: AuditRepository;
}

export class MembershipChanges {
  private readonly clock: Clock;
  private readonly members: OrganizationMemberRepository;
  private readonly memberships: MembershipRepository;
  private readonly roles: RoleRepository;
  private readonly tree: NodeTreeRepository;
  private readonly audit: AuditRepository;

  constructor(options: MembershipChangesOptions) {
    this.clock = options.clock;
    this.members = options.members;
    this.memberships = options.memberships;
    this.roles = options.roles;
    this.tree = options.tree;
    this.audit = options.audit;
  }

  /** Creates or replaces the principal's membership on the node. */
  async give(orgId: string, nodeId: string, principalId: string, roleId: string, actor: AuditActor): Promise<MembershipRow> {
    if (nodeId !== orgId) return this.giveInRegion(orgId, nodeId, principalId, roleId, actor);
    return this.members.lockOrganization(orgId, async (globalTx) => {
      const row = await this.giveInRegion(orgId, nodeId, principalId, roleId, actor, globalTx);
      // Also when nothing changed: a retry repairs a flag that a failed commit left behind.
      if (row.principal_type !== 'group') {
        const administrator = isAdministration({
          nodeKind: 'organization',
          principalType: row.principal_type,
          roleId: row.role_id,
        });
        await this.markAdministrator(globalTx, orgId, principalId, administrator);
      }
      return row;
    });
  }

  /** Removes the principal's membership on the node; 404 when there is none. */
  async take(orgId: string, nodeId: string, principalId: string, actor: AuditActor) {
    if (nodeId !== orgId) {
      await this.takeInRegion(orgId, nodeId, principalId, actor);
      return;
    }
    await this.members.lockOrganization(orgId, async (globalTx) => {
      const taken = await this.takeInRegion(orgId, nodeId, principalId, actor);
      if (taken.principal_type !== 'group' && taken.role_id === ORGANIZATION_ADMINISTRATOR_ROLE_ID) {
        await this.markAdministrator(globalTx, orgId, principalId, false);
      }
    });
  }

  /**
   * The active people holding the Organization Administrator role directly on the organization
   * node. Exact while the caller holds the organization's lock (members.lockOrganization).
   */
  async activeAdministrators(orgId: string, tx?: Tx): Promise<string[]> {
    const ids = await this.memberships.usersWithRole(orgId, ORGANIZATION_ADMINISTRATOR_ROLE_ID, tx);
    const members = await this.members.findMany(orgId, ids);
    return members
      .filter((member) => member.kind === 'user' && member.deactivated_at === null && member.member_deactivated_at === null)
      .map((member) => member.id);
  }

  private async giveInRegion(
    orgId: string,
    nodeId: string,
    principalId: string,
    roleId: string,
    actor: AuditActor,
    globalTx?: GlobalTx,
  ): Promise<MembershipRow> {
    const member = await this.members.find(orgId, principalId, globalTx);
    return this.tree.transaction(async (tx) => {
      const node = await this.lockNode(tx, orgId, nodeId);
      const group = member ? undefined : await this.memberships.lockGroup(tx, orgId, principalId);
      if (!member && !group) throw new ApiError('NotFound', `principal ${principalId} not found`);
      const role = checkRoleAssignment(roleId, await this.roles.lock(tx, orgId, roleId, 'share'), node.kind as NodeKind);
      if (group) checkGroupScope(group, node.path);

      const previous = await this.memberships.find(node.id, principalId, tx);
      if (previous?.role_id === role.id) return previous;
      if (previous) await this.checkKeepsAdministrator(tx, node, previous);
      const row: MembershipRow = {
        node_id: node.id,
        principal_id: principalId,
        principal_type: member ? member.kind : 'group',
        role_id: role.id,
        created_at: previous?.created_at ?? this.now(),
      };
      await this.memberships.upsert(tx, row);
      await this.audit.record(tx, {
        orgId,
        actor,
        action: 'membership.set',
        target: { type: 'membership', id: `${node.id}/${principalId}` },
        details: {
          nodeId: node.id,
          principalId,
          principalType: row.principal_type,
          roleId: row.role_id,
          previousRoleId: previous?.role_id ?? null,
        },
        at: this.now(),
      });
      return row;
    });
  }

  private takeInRegion(orgId: string, nodeId: string, principalId: string, actor: AuditActor): Promise<MembershipRow> {
    return this.tree.transaction(async (tx) => {
      const node = await this.lockNode(tx, orgId, nodeId);
      const previous = await this.memberships.find(node.id, principalId, tx);
      if (!previous) throw new ApiError('NotFound', `No membership of ${principalId} on this node`);
      await this.checkKeepsAdministrator(tx, node, previous);
      await this.memberships.delete(tx, node.id, principalId);
      await this.audit.record(tx, {
        orgId,
        actor,
        action: 'membership.removed',
        target: { type: 'membership', id: `${node.id}/${principalId}` },
        details: { nodeId: node.id, principalId, principalType: previous.principal_type, roleId: previous.role_id },
        at: this.now(),
      });
      return previous;
    });
  }

  private async lockNode(tx: Tx, orgId: string, nodeId: string): Promise<NodeRow> {
    const node = await this.tree.lock(tx, nodeId);
    if (!node || node.org_id !== orgId || node.trashed_at !== null) throw new ApiError('NotFound', 'Node not found');
    return node;
  }

  /** A membership about to end or change may be the last active administrator's. */
  private async checkKeepsAdministrator(tx: Tx, node: NodeRow, previous: MembershipRow): Promise<void> {
    if (previous.principal_type !== 'user') return;
    if (!isAdministration({ nodeKind: node.kind, principalType: previous.principal_type, roleId: previous.role_id })) return;
    checkNotLastAdministrator(previous.principal_id, await this.activeAdministrators(node.org_id, tx));
  }

  private async markAdministrator(globalTx: GlobalTx, orgId: string, userId: string, administrator: boolean) {
    const member = await this.members.find(orgId, userId, globalTx);
    if (!member || (member.is_admin === 1) === administrator) return;
    await this.members.update(orgId, userId, { is_admin: administrator ? 1 : 0, updated_at: this.now() }, globalTx);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}
