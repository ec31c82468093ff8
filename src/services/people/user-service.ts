import type { MemberFilter, OrganizationMember } from '../../adapters/db/repositories/organization-member-repository.js';
import { UserRepository } from '../../adapters/db/repositories/user-repository.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import type { ListPage } from '../../domain/listing/cursor.js';
import { checkNotLastAdministrator } from '../../domain/people/membership-rules.js';
import {
  checkDeactivation,
  checkSeatFree,
  needsOrganizationManage,
  planUserChange,
  type UserChange,
} from '../../domain/people/user-rules.js';
import type { Platform, RegionContext } from '../../platform.js';
import type { NodeService } from '../node-service.js';
import type { MembershipChanges } from './membership-changes.js';

/**
 * The organization's users and service users: global rows, seen through their place in the
 * organization (platform.members). Any active member may read them; changing others, or
 * anyone's activation, needs manage on the organization node.
 */
export class UserService {
  private readonly users: UserRepository;

  constructor(
    private readonly platform: Platform,
    private readonly region: RegionContext,
    private readonly nodes: NodeService,
    private readonly memberships: MembershipChanges,
  ) {
    this.users = new UserRepository(platform.stores.global.db);
  }

  list(principal: Principal, filter: MemberFilter, page: ListPage): Promise<OrganizationMember[]> {
    return this.platform.members.list(principal.orgId, filter, page);
  }

  async get(principal: Principal, userId: string): Promise<OrganizationMember> {
    const member = await this.platform.members.find(principal.orgId, userId);
    if (!member) throw new ApiError('NotFound', `No user ${userId} in this organization`);
    return member;
  }

  /**
   * Names, and activation in this organization. Runs under the organization's global lock
   * (members.withSeats): seats are counted exactly, and a deactivation cannot race a change of
   * administrator memberships (MembershipChanges takes the same lock). The audit events follow
   * in the regional store; the user's tokens stop at once in this process.
   */
  async update(principal: Principal, userId: string, change: UserChange): Promise<OrganizationMember> {
    const orgId = principal.orgId;
    await this.get(principal, userId);
    if (needsOrganizationManage(principal.userId, userId, change)) await this.nodes.authorize(principal, orgId, 'manage');
    if (change.active === false) checkDeactivation(principal.userId, userId);

    const now = this.now();
    const plan = await this.platform.members.withSeats(orgId, async (tx, seats) => {
      const current = await this.platform.members.find(orgId, userId, tx);
      if (!current) throw new ApiError('NotFound', `No user ${userId} in this organization`);
      const clientId = current.kind === 'service' ? await this.users.applicationOf(tx, userId) : undefined;
      const plan = planUserChange(
        {
          kind: current.kind,
          firstName: current.first_name,
          lastName: current.last_name,
          memberDeactivatedAt: current.member_deactivated_at,
          userDeactivatedAt: current.deactivated_at,
        },
        change,
        now,
        clientId !== undefined,
      );
      if (plan.deactivates && current.kind === 'user') {
        checkNotLastAdministrator(userId, await this.memberships.activeAdministrators(orgId));
      }
      if (plan.reactivates && current.kind === 'user') checkSeatFree(seats);
      if (Object.keys(plan.user).length > 0) await this.users.update(tx, userId, { ...plan.user, updated_at: now });
      if (Object.keys(plan.member).length > 0) {
        await this.platform.members.update(orgId, userId, { ...plan.member, updated_at: now }, tx);
      }
      if (plan.endApplicationGrants && clientId) await this.users.endApplicationGrants(tx, clientId, now);
      return { ...plan, clientId };
    });

    if (plan.events.length > 0) {
      await this.region.tree.transaction(async (tx) => {
        for (const event of plan.events) {
          await this.region.audit.record(tx, {
            orgId,
            actor: { type: 'principal', id: principal.userId },
            action: event.action,
            target: { type: 'user', id: userId },
            details: event.details,
            at: now,
          });
        }
      });
    }
    if (plan.deactivates || plan.reactivates) this.platform.principalChanges.changed(userId);
    if (plan.endApplicationGrants && plan.clientId) this.platform.recentDirectory.forgetApplication(plan.clientId, userId);
    return this.get(principal, userId);
  }

  private now(): string {
    return this.platform.clock.now().toISOString();
  }
}
