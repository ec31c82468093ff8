import { randomUUID } from 'node:crypto';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { InvitationRepository } from '../../adapters/db/repositories/invitation-repository.js';
import type { MembershipRepository } from '../../adapters/db/repositories/membership-repository.js';
import type { NodeRepository } from '../../adapters/db/repositories/node-repository.js';
import type { OrganizationMemberRepository } from '../../adapters/db/repositories/organization-member-repository.js';
import type { RoleRepository } from '../../adapters/db/repositories/role-repository.js';
import type { InvitationRow, NodeRow, OrganizationRow, RoleRow, UserRow } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import { hashToken } from '../../crypto/secrets.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID } from '../../domain/people/roles.js';
import { checkSeatFree } from '../../domain/people/user-rules.js';
import type { Clock } from '../../ports/clock.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';

/** What an acceptance reads and writes in the invitation's region. */
export interface InvitationRegion {
  invitations: InvitationRepository;
  nodes: Pick<NodeRepository, 'findById'>;
  roles: Pick<RoleRepository, 'find'>;
  memberships: Pick<MembershipRepository, 'find' | 'upsert'>;
  audit: AuditRepository;
  outbox: Pick<WebhookOutbox, 'record'>;
}

export interface InvitationAcceptanceOptions {
  clock: Clock;
  /** The organization and whether the invited address has an account. */
  directory: Pick<DirectoryRepository, 'findOrganization' | 'findUserByEmail'>;
  /** People's places in organizations, under the organization's seat count. */
  members: OrganizationMemberRepository;
  /** Every region this process opened: a link does not name its region. */
  regions(): InvitationRegion[];
}

/** What a link leads to: an open invitation with what its page shows, or why it is closed. */
export type OpenedInvitation =
  | { status: 'unknown' | 'revoked' | 'accepted' | 'gone' }
  | {
      status: 'open';
      invitation: InvitationRow;
      region: InvitationRegion;
      organization: OrganizationRow;
      node: NodeRow;
      role: RoleRow;
      /** The account that already has the invited address, if any: it signs in instead of signing up. */
      account: UserRow | undefined;
    };

type Open = Extract<OpenedInvitation, { status: 'open' }>;

/** Who accepts: an existing account that has signed in, or a new one for the invited address. */
export type Invitee = { account: UserRow } | { newAccount: { firstName: string; lastName: string; passwordHash: string } };

/** The invited address got an account between showing the form and posting it. */
export class AccountExists extends Error {}
/** Revoked or accepted while this acceptance ran. */
export class InvitationClosed extends Error {}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Accepting an invitation through its page. The global store (account, place in the
 * organization, its seat) is written first and the regional one (membership, invitation
 * accepted, audit) last, in one transaction each: if the second fails, the invitation is still
 * pending and the same link completes it (the account now exists, so it asks for the password).
 */
export class InvitationAcceptance {
  private readonly clock: Clock;
  private readonly directory: Pick<DirectoryRepository, 'findOrganization' | 'findUserByEmail'>;
  private readonly members: OrganizationMemberRepository;
  private readonly regions: () => InvitationRegion[];

  constructor(options: InvitationAcceptanceOptions) {
    this.clock = options.clock;
    this.directory = options.directory;
    this.members = options.members;
    this.regions = options.regions;
  }

  async open(token: string): Promise<OpenedInvitation> {
    if (!TOKEN.test(token)) return { status: 'unknown' };
    const tokenHash = hashToken(token);
    // The link does not name its region: the hash is unique, so at most one region has it.
    for (const region of this.regions()) {
      const invitation = await region.invitations.findByTokenHash(tokenHash);
      if (!invitation) continue;
      if (invitation.state === 'sending') return { status: 'unknown' };
      if (invitation.state !== 'pending') return { status: invitation.state };
      const [organization, node, role, account] = await Promise.all([
        this.directory.findOrganization(invitation.org_id),
        region.nodes.findById(invitation.node_id),
        region.roles.find(invitation.org_id, invitation.role_id),
        this.directory.findUserByEmail(invitation.email),
      ]);
      if (!organization || !node || node.trashed_at !== null || !role) return { status: 'gone' };
      return { status: 'open', invitation, region, organization, node, role, account };
    }
    return { status: 'unknown' };
  }

  /**
   * Links the invitee to the organization (a seat if they take a new one: 403 Forbidden
   * resource when none is free), gives the role on the node and marks the invitation accepted.
   */
  async accept(opened: Open, invitee: Invitee): Promise<{ userId: string; isAdmin: boolean }> {
    const { invitation, region, node, role } = opened;
    const orgId = invitation.org_id;
    const givesAdmin = role.id === ORGANIZATION_ADMINISTRATOR_ROLE_ID;
    const now = this.clock.now().toISOString();
    const { members } = this;

    const joined = await this.join(opened, invitee, now);

    const { invitations: repository, memberships, audit, outbox } = region;
    try {
      await repository.transaction(async (tx) => {
        const accepted = { state: 'accepted' as const, accepted_by: joined.userId, accepted_at: now, updated_at: now };
        if (!(await repository.transition(tx, invitation.id, 'pending', accepted))) throw new InvitationClosed();
        // An invitation never takes the Organization Administrator role away (the last one's, say).
        const existing = await memberships.find(node.id, joined.userId, tx);
        const keepsAdministrator = existing?.role_id === ORGANIZATION_ADMINISTRATOR_ROLE_ID && !givesAdmin;
        if (!keepsAdministrator) {
          await memberships.upsert(tx, {
            node_id: node.id,
            principal_id: joined.userId,
            principal_type: 'user',
            role_id: role.id,
            created_at: now,
          });
        }
        await audit.record(tx, {
          orgId,
          actor: { type: 'invitee', id: joined.userId },
          action: 'invitation.accepted',
          target: { type: 'invitation', id: invitation.id },
          details: {
            email: invitation.email,
            nodeId: node.id,
            roleId: keepsAdministrator ? ORGANIZATION_ADMINISTRATOR_ROLE_ID : role.id,
            userId: joined.userId,
            accountCreated: 'newAccount' in invitee,
          },
          at: now,
        });
        const event = { invitationId: invitation.id, nodeId: node.id, userId: joined.userId };
        await outbox.record(tx, orgId, 'invitation.accepted', event);
      });
    } catch (error) {
      if (!(error instanceof InvitationClosed)) throw error;
      // A second submission of the same form (a double click) accepted it first: done.
      const closed = await repository.find(orgId, invitation.id);
      if (closed?.state !== 'accepted' || closed.accepted_by !== joined.userId) {
        // Revoked meanwhile: undo what this attempt added to the organization (not the new account).
        if (joined.linkedNow) await members.unlink(orgId, joined.userId);
        else if (joined.adminSetNow) await members.update(orgId, joined.userId, { is_admin: 0, updated_at: now });
        throw error;
      }
    }
    const place = await members.find(orgId, joined.userId);
    return { userId: joined.userId, isAdmin: place?.is_admin === 1 };
  }

  /** The global half, under the organization's seat count: the account if new, its place, the admin mark. */
  private async join(opened: Open, invitee: Invitee, now: string) {
    const { invitation } = opened;
    const orgId = invitation.org_id;
    const givesAdmin = opened.role.id === ORGANIZATION_ADMINISTRATOR_ROLE_ID;
    const { members } = this;
    try {
      return await members.withSeats(orgId, async (tx, seats) => {
        let userId: string;
        if ('account' in invitee) {
          userId = invitee.account.id;
        } else {
          userId = randomUUID();
          if (await tx.selectFrom('users').select('id').where('email', '=', invitation.email).executeTakeFirst()) {
            throw new AccountExists();
          }
        }
        const place = await members.find(orgId, userId, tx);
        if (!place) checkSeatFree(seats);
        if ('newAccount' in invitee) {
          await tx
            .insertInto('users')
            .values({
              id: userId,
              email: invitation.email,
              password_hash: invitee.newAccount.passwordHash,
              first_name: invitee.newAccount.firstName,
              last_name: invitee.newAccount.lastName,
              kind: 'user',
              deactivated_at: null,
              tokens_not_before: null,
              created_at: now,
              updated_at: now,
            })
            .execute();
        }
        if (!place) {
          await members.link(tx, {
            user_id: userId,
            org_id: orgId,
            is_admin: givesAdmin ? 1 : 0,
            deactivated_at: null,
            scim_external_id: null,
            created_at: now,
            updated_at: now,
          });
        } else if (givesAdmin && place.is_admin !== 1) {
          await members.update(orgId, userId, { is_admin: 1, updated_at: now }, tx);
        }
        return { userId, linkedNow: !place, adminSetNow: givesAdmin && place?.is_admin !== 1 };
      });
    } catch (error) {
      // A concurrent acceptance created the account first.
      if ('newAccount' in invitee && isUniqueViolation(error)) throw new AccountExists();
      throw error;
    }
  }
}
