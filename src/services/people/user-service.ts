import type { InTransaction } from '../../adapters/db/database.js';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type {
  MemberFilter,
  OrganizationMember,
  OrganizationMemberRepository,
} from '../../adapters/db/repositories/organization-member-repository.js';
import type { UserRepository } from '../../adapters/db/repositories/user-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
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
import type { Clock } from '../../ports/clock.js';
import type { NodeAccess } from '../node-service.js';
import type { MembershipChanges } from './membership-changes.js';

export interface UserServiceOptions {
  clock: Clock;
  nodes: NodeAccess;
  /** People's places in organizations (global), under the organization's seat lock. */
  members: OrganizationMemberRepository;
  /** The users' own rows and their applications' grants. */
  users: UserRepository;
  /** The last active administrator may not be deactivated. */
  administrators: Pick<MembershipChanges, 'activeAdministrators'>;
  audit: AuditRepository;
  transaction: InTransaction<RegionalSchema>;
  /** Tells this process's token caches that a user was deactivated or reactivated. */
  principalChanged(userId: string): void;
  /** Tells the token endpoint's cache that a service user's application changed. */
  forgetApplication(clientId: string, serviceUserId: string): void;
}

/**
 * The organization's users and service users: global rows, seen through their place in the
 * organization (members). Any active member may read them; changing others, or
 * anyone's activation, needs manage on the organization node.
 */
export class UserService {
  private readonly clock: Clock;
  private readonly nodes: NodeAccess;
  private readonly members: OrganizationMemberRepository;
  private readonly users: UserRepository;
  private readonly administrators: Pick<MembershipChanges, 'activeAdministrators'>;
  private readonly audit: AuditRepository;
  private readonly transaction: InTransaction<RegionalSchema>;
  private readonly principalChanged: (userId: string) => void;
  private readonly forgetApplication: (clientId: string, serviceUserId: string) => void;

  constructor(options: UserServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.members = options.members;
    this.users = options.users;
    this.administrators = options.administrators;
    this.audit = options.audit;
    this.transaction = options.transaction;
    this.principalChanged = options.principalChanged;
    this.forgetApplication = options.forgetApplication;
  }

  list(principal: Principal, filter: MemberFilter, page: ListPage): Promise<OrganizationMember[]> {
    return this.members.list(principal.orgId, filter, page);
  }

  async get(principal: Principal, userId: string): Promise<OrganizationMember> {
    const member = await this.members.find(principal.orgId, userId);
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
    const plan = await this.members.withSeats(orgId, async (tx, seats) => {
      const current = await this.members.find(orgId, userId, tx);
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
        checkNotLastAdministrator(userId, await this.administrators.activeAdministrators(orgId));
      }
      if (plan.reactivates && current.kind === 'user') checkSeatFree(seats);
      if (Object.keys(plan.user).length > 0) await this.users.update(tx, userId, { ...plan.user, updated_at: now });
      if (Object.keys(plan.member).length > 0) {
        await this.members.update(orgId, userId, { ...plan.member, updated_at: now }, tx);
      }
      if (plan.endApplicationGrants && clientId) await this.users.endApplicationGrants(tx, clientId, now);
      return { ...plan, clientId };
    });

    if (plan.events.length > 0) {
      await this.transaction(async (tx) => {
        for (const event of plan.events) {
          await this.audit.record(tx, {
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
    if (plan.deactivates || plan.reactivates) this.principalChanged(userId);
    if (plan.endApplicationGrants && plan.clientId) this.forgetApplication(plan.clientId, userId);
    return this.get(principal, userId);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}
