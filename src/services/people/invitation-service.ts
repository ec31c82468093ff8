import { randomUUID } from 'node:crypto';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { InvitationFilter, InvitationRepository } from '../../adapters/db/repositories/invitation-repository.js';
import type { MembershipRepository } from '../../adapters/db/repositories/membership-repository.js';
import type { NodeRepository } from '../../adapters/db/repositories/node-repository.js';
import type {
  OrganizationMember,
  OrganizationMemberRepository,
} from '../../adapters/db/repositories/organization-member-repository.js';
import type { RoleRepository } from '../../adapters/db/repositories/role-repository.js';
import type { InvitationRow } from '../../adapters/db/schema.js';
import { hashToken, randomToken } from '../../crypto/secrets.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import type { ListPage } from '../../domain/listing/cursor.js';
import type { NodeKind } from '../../domain/nodes/hierarchy.js';
import { issuerOf } from '../../domain/oauth/issuer.js';
import {
  allowedDomains,
  checkEmailDomain,
  invitationMail,
  normalizeInvitedEmail,
  STALE_SENDING_MS,
} from '../../domain/people/invitation-rules.js';
import { checkRoleAssignment } from '../../domain/people/roles.js';
import { checkSeatFree } from '../../domain/people/user-rules.js';
import type { Clock } from '../../ports/clock.js';
import { type Mailer, MailFailure } from '../../ports/mailer.js';
import type { NodeAccess } from '../node-service.js';

/** The address of an invitation's page: the link its mail carries. */
export function invitationLink(publicUrl: string, token: string): string {
  return `${issuerOf(publicUrl)}/invitations/${token}`;
}

export interface InvitationServiceOptions {
  clock: Clock;
  nodes: NodeAccess;
  invitations: InvitationRepository;
  /** Whether a revoked invitation's node still exists (trashed or not). */
  nodeRows: Pick<NodeRepository, 'findById'>;
  roles: Pick<RoleRepository, 'find'>;
  /** Whether the invited person already holds a membership on the node. */
  memberships: Pick<MembershipRepository, 'find'>;
  audit: AuditRepository;
  /** The organization's name and allowed e-mail domains. */
  organizations: Pick<DirectoryRepository, 'findOrganization'>;
  /** Whether the address is a member already, and whether a seat is free. */
  members: Pick<OrganizationMemberRepository, 'findByEmail' | 'seats'>;
  mailer: Mailer;
  /** Where the invitation's page is (its link). */
  publicUrl: string;
}

/**
 * Invitations of one region (docs/people.md, Invitations): checked, stored as `sending`, mailed
 * before the request returns, then `pending`. A mail failure removes the row, so nothing is
 * persisted and the same request can be sent again.
 */
export class InvitationService {
  private readonly clock: Clock;
  private readonly nodes: NodeAccess;
  private readonly invitations: InvitationRepository;
  private readonly nodeRows: Pick<NodeRepository, 'findById'>;
  private readonly roles: Pick<RoleRepository, 'find'>;
  private readonly memberships: Pick<MembershipRepository, 'find'>;
  private readonly audit: AuditRepository;
  private readonly organizations: Pick<DirectoryRepository, 'findOrganization'>;
  private readonly members: Pick<OrganizationMemberRepository, 'findByEmail' | 'seats'>;
  private readonly mailer: Mailer;
  private readonly publicUrl: string;

  constructor(options: InvitationServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.invitations = options.invitations;
    this.nodeRows = options.nodeRows;
    this.roles = options.roles;
    this.memberships = options.memberships;
    this.audit = options.audit;
    this.organizations = options.organizations;
    this.members = options.members;
    this.mailer = options.mailer;
    this.publicUrl = options.publicUrl;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Invites an address to a node (the organization node when nodeId is absent). */
  async invite(
    principal: Principal,
    nodeId: string | undefined,
    input: { email: string; roleId: string },
  ): Promise<InvitationRow> {
    const email = normalizeInvitedEmail(input.email);
    const { node, role, org } = await this.check(principal, nodeId ?? principal.orgId, email, input.roleId);

    const token = randomToken(32);
    const created = this.now();
    const row: InvitationRow = {
      id: randomUUID(),
      org_id: org.id,
      node_id: node.id,
      email,
      role_id: role.id,
      state: 'sending',
      token_hash: hashToken(token),
      invited_by: principal.userId,
      accepted_by: null,
      created_at: created,
      updated_at: created,
      accepted_at: null,
    };
    const staleBefore = new Date(Date.parse(created) - STALE_SENDING_MS).toISOString();
    if (!(await this.invitations.insertSending(row, staleBefore))) {
      throw new ApiError('UserAlreadyInvited', `A pending invitation exists for ${email} on this node`);
    }

    const mail = invitationMail({
      organizationName: org.name,
      nodeName: node.name,
      toOrganization: node.kind === 'organization',
      roleName: role.name,
      link: invitationLink(this.publicUrl, token),
    });
    try {
      await this.mailer.send({ to: email, ...mail });
    } catch (error) {
      await this.invitations.deleteSending(row.id);
      throw mailError(error);
    }

    const updated = this.now();
    await this.invitations.transaction(async (tx) => {
      // Housekeeping removes a row left `sending` too long: its link then leads nowhere, so ask again.
      if (!(await this.invitations.transition(tx, row.id, 'sending', { state: 'pending', updated_at: updated }))) {
        throw new ApiError('InvitationEmailNotSent', 'The invitation took too long to send; retry the same request');
      }
      await this.audit.record(tx, {
        orgId: org.id,
        actor: { type: 'principal', id: principal.userId },
        action: 'invitation.created',
        target: { type: 'invitation', id: row.id },
        details: { email, nodeId: node.id, roleId: role.id },
        at: updated,
      });
    });
    return { ...row, state: 'pending', updated_at: updated };
  }

  /** The checks of docs/people.md, in its order: who may invite, role and node, domain, seat, member. */
  private async check(principal: Principal, nodeId: string, email: string, roleId: string) {
    const node = await this.nodes.authorize(principal, nodeId, 'manage');
    const role = await this.roles.find(principal.orgId, roleId);
    checkRoleAssignment(roleId, role, node.kind as NodeKind);
    const org = await this.organizations.findOrganization(principal.orgId);
    // Neither is missing here (checkRoleAssignment refused a missing role); this tells the compiler.
    if (!org || !role) throw new ApiError('NotFound', 'Node not found');
    checkEmailDomain(email, allowedDomains(org.email_domains));
    const member = await this.members.findByEmail(org.id, email);
    // A read without the lock: acceptance checks the seat again under it.
    if (!member) checkSeatFree(await this.members.seats(org.id));
    if (member) await this.checkNotMember(member, node);
    return { node, role, org };
  }

  /**
   * docs/design/errors.md#members: a person with a place in the organization, with a role anywhere
   * or none, is already a member of it; to a node they are one when they hold a membership on that
   * node. A deactivated place counts too: accepting would not reactivate it (docs/people.md), so
   * the invitation could only mislead; PATCH /v1/users/{userId} reactivates.
   */
  private async checkNotMember(member: OrganizationMember, node: { id: string; kind: string }): Promise<void> {
    if (node.kind === 'organization') {
      const state =
        member.member_deactivated_at === null && member.deactivated_at === null ? '' : ' (deactivated: reactivate them instead)';
      throw new ApiError('UserAlreadyMember', `${member.email} is already a member of the organization${state}`);
    }
    if (await this.memberships.find(node.id, member.id)) {
      throw new ApiError('UserAlreadyMember', `${member.email} already has a role on this node`);
    }
  }

  /** The organization's invitations (manage on its node), or one node's (manage on that node). */
  async list(principal: Principal, filter: InvitationFilter, page: ListPage): Promise<InvitationRow[]> {
    const node = await this.nodes.authorize(principal, filter.nodeId ?? principal.orgId, 'manage');
    return this.invitations.list(
      principal.orgId,
      { ...filter, ...(filter.nodeId !== undefined ? { nodeId: node.id } : {}) },
      page,
    );
  }

  /** A pending invitation becomes revoked: its link stops working and the address may be invited again. */
  async revoke(principal: Principal, invitationId: string): Promise<void> {
    const invitation = await this.invitations.find(principal.orgId, invitationId);
    if (!invitation || invitation.state === 'sending') throw new ApiError('NotFound', 'Invitation not found');
    // Manage on its node, trashed or not; on the organization node once the node is gone.
    const nodeExists = (await this.nodeRows.findById(invitation.node_id)) !== undefined;
    await this.nodes.authorize(principal, nodeExists ? invitation.node_id : principal.orgId, 'manage', 'any');
    const now = this.now();
    await this.invitations.transaction(async (tx) => {
      if (!(await this.invitations.transition(tx, invitation.id, 'pending', { state: 'revoked', updated_at: now }))) {
        throw new ApiError(
          'InvitationNotPending',
          `The invitation is ${(await this.invitations.find(principal.orgId, invitation.id, tx))?.state}`,
        );
      }
      await this.audit.record(tx, {
        orgId: principal.orgId,
        actor: { type: 'principal', id: principal.userId },
        action: 'invitation.revoked',
        target: { type: 'invitation', id: invitation.id },
        details: { email: invitation.email, nodeId: invitation.node_id, roleId: invitation.role_id },
        at: now,
      });
    });
  }
}

/** The spec's two mail codes; the mail server's own reason stays in the log (the error's cause). */
function mailError(error: unknown): Error {
  if (!(error instanceof MailFailure)) return error instanceof Error ? error : new Error(String(error));
  const apiError = new ApiError(error.kind === 'rejected' ? 'InvitationEmailRejected' : 'InvitationEmailNotSent');
  apiError.cause = error;
  return apiError;
}
