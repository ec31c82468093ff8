import { randomUUID } from 'node:crypto';
import { type InvitationFilter, InvitationRepository } from '../../adapters/db/repositories/invitation-repository.js';
import type { OrganizationMember } from '../../adapters/db/repositories/organization-member-repository.js';
import type { InvitationRow } from '../../adapters/db/schema.js';
import { hashToken, randomToken } from '../../crypto/secrets.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
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
import type { Platform, RegionContext } from '../../platform.js';
import { MailFailure } from '../../ports/mailer.js';
import type { NodeService } from '../node-service.js';

/** The address of an invitation's page: the link its mail carries. */
export function invitationLink(publicUrl: string, token: string): string {
  return `${issuerOf(publicUrl)}/invitations/${token}`;
}

/**
 * Invitations of one region (docs/people.md, Invitations): checked, stored as `sending`, mailed
 * before the request returns, then `pending`. A mail failure removes the row, so nothing is
 * persisted and the same request can be sent again.
 */
export class InvitationService {
  readonly repository: InvitationRepository;

  constructor(
    private readonly platform: Platform,
    private readonly region: RegionContext,
    private readonly nodes: NodeService,
  ) {
    this.repository = new InvitationRepository(region.store.db);
  }

  private now(): string {
    return this.platform.clock.now().toISOString();
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
    if (!(await this.repository.insertSending(row, staleBefore))) {
      throw new ApiError('UserAlreadyInvited', `A pending invitation exists for ${email} on this node`);
    }

    const mail = invitationMail({
      organizationName: org.name,
      nodeName: node.name,
      toOrganization: node.kind === 'organization',
      roleName: role.name,
      link: invitationLink(this.platform.config.publicUrl, token),
    });
    try {
      await this.platform.mailer.send({ to: email, ...mail });
    } catch (error) {
      await this.repository.deleteSending(row.id);
      throw mailError(error);
    }

    const updated = this.now();
    await this.repository.transaction(async (tx) => {
      // Housekeeping removes a row left `sending` too long: its link then leads nowhere, so ask again.
      if (!(await this.repository.transition(tx, row.id, 'sending', { state: 'pending', updated_at: updated }))) {
        throw new ApiError('InvitationEmailNotSent', 'The invitation took too long to send; retry the same request');
      }
      await this.region.audit.record(tx, {
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
    const role = await this.region.roles.find(principal.orgId, roleId);
    checkRoleAssignment(roleId, role, node.kind as NodeKind);
    const org = await this.platform.directory.findOrganization(principal.orgId);
    // Neither is missing here (checkRoleAssignment refused a missing role); this tells the compiler.
    if (!org || !role) throw new ApiError('NotFound', 'Node not found');
    checkEmailDomain(email, allowedDomains(org.email_domains));
    const member = await this.platform.members.findByEmail(org.id, email);
    // A read without the lock: acceptance checks the seat again under it.
    if (!member) checkSeatFree(await this.platform.members.seats(org.id));
    if (member) await this.checkNotMember(member, node);
    return { node, role, org };
  }

  /**
   * DESIGN.md section 4: a person with a place in the organization, with a role anywhere or none,
   * is already a member of it; to a node they are one when they hold a membership on that node.
   * A deactivated place counts too: accepting would not reactivate it (docs/people.md), so the
   * invitation could only mislead; PATCH /v1/users/{userId} reactivates.
   */
  private async checkNotMember(member: OrganizationMember, node: { id: string; kind: string }): Promise<void> {
    if (node.kind === 'organization') {
      const state =
        member.member_deactivated_at === null && member.deactivated_at === null ? '' : ' (deactivated: reactivate them instead)';
      throw new ApiError('UserAlreadyMember', `${member.email} is already a member of the organization${state}`);
    }
    if (await this.region.memberships.find(this.region.store.db, node.id, member.id)) {
      throw new ApiError('UserAlreadyMember', `${member.email} already has a role on this node`);
    }
  }

  /** The organization's invitations (manage on its node), or one node's (manage on that node). */
  async list(principal: Principal, filter: InvitationFilter, limit: number, offset: number): Promise<InvitationRow[]> {
    const node = await this.nodes.authorize(principal, filter.nodeId ?? principal.orgId, 'manage');
    return this.repository.list(
      principal.orgId,
      { ...filter, ...(filter.nodeId !== undefined ? { nodeId: node.id } : {}) },
      limit,
      offset,
    );
  }

  /** A pending invitation becomes revoked: its link stops working and the address may be invited again. */
  async revoke(principal: Principal, invitationId: string): Promise<void> {
    const invitation = await this.repository.find(principal.orgId, invitationId);
    if (!invitation || invitation.state === 'sending') throw new ApiError('NotFound', 'Invitation not found');
    // Manage on its node, trashed or not; on the organization node once the node is gone.
    const nodeExists = (await this.region.nodes.findById(invitation.node_id)) !== undefined;
    await this.nodes.authorize(principal, nodeExists ? invitation.node_id : principal.orgId, 'manage', 'any');
    const now = this.now();
    await this.repository.transaction(async (tx) => {
      if (!(await this.repository.transition(tx, invitation.id, 'pending', { state: 'revoked', updated_at: now }))) {
        throw new ApiError(
          'InvitationNotPending',
          `The invitation is ${(await this.repository.find(principal.orgId, invitation.id, tx))?.state}`,
        );
      }
      await this.region.audit.record(tx, {
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
