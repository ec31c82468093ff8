import type { MembershipRepository } from '../../adapters/db/repositories/membership-repository.js';
import type { OrganizationMemberRepository } from '../../adapters/db/repositories/organization-member-repository.js';
import type { MembershipRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import type { ListPage } from '../../domain/listing/cursor.js';
import type { NodeAccess } from '../node-service.js';
import type { MembershipChanges } from './membership-changes.js';

/** Who holds a membership, when the list is asked to expand it. */
export interface PrincipalSummary {
  name: string;
  email?: string;
}

export type ListedMembership = MembershipRow & { principal?: PrincipalSummary };

export interface MembershipServiceOptions {
  nodes: NodeAccess;
  changes: Pick<MembershipChanges, 'give' | 'take'>;
  /** The list and the groups' names. */
  memberships: MembershipRepository;
  /** The users' names. */
  members: Pick<OrganizationMemberRepository, 'findMany'>;
}

/** The memberships API: manage on the node, then MembershipChanges' rules. */
export class MembershipService {
  private readonly nodes: NodeAccess;
  private readonly changes: Pick<MembershipChanges, 'give' | 'take'>;
  private readonly memberships: MembershipRepository;
  private readonly members: Pick<OrganizationMemberRepository, 'findMany'>;

  constructor(options: MembershipServiceOptions) {
    this.nodes = options.nodes;
    this.changes = options.changes;
    this.memberships = options.memberships;
    this.members = options.members;
  }

  async list(
    principal: Principal,
    nodeId: string,
    options: { page: ListPage; expandPrincipal: boolean },
  ): Promise<ListedMembership[]> {
    const node = await this.nodes.authorize(principal, nodeId, 'manage');
    const rows = await this.memberships.listOnNode(node.id, options.page);
    if (!options.expandPrincipal) return rows;

    const userIds = rows.filter((row) => row.principal_type !== 'group').map((row) => row.principal_id);
    const groupIds = rows.filter((row) => row.principal_type === 'group').map((row) => row.principal_id);
    const [users, groups] = await Promise.all([
      this.members.findMany(principal.orgId, userIds),
      this.memberships.groupNames(principal.orgId, groupIds),
    ]);
    const summaries = new Map<string, PrincipalSummary>([...groups].map(([id, name]) => [id, { name }]));
    for (const user of users) {
      summaries.set(user.id, { name: `${user.first_name} ${user.last_name}`.trim() || user.email, email: user.email });
    }
    return rows.map((row) => {
      const summary = summaries.get(row.principal_id);
      return summary ? { ...row, principal: summary } : row;
    });
  }

  async set(principal: Principal, nodeId: string, principalId: string, roleId: string): Promise<MembershipRow> {
    const node = await this.nodes.authorize(principal, nodeId, 'manage');
    return this.changes.give(principal.orgId, node.id, principalId, roleId, { type: 'principal', id: principal.userId });
  }

  async remove(principal: Principal, nodeId: string, principalId: string): Promise<void> {
    const node = await this.nodes.authorize(principal, nodeId, 'manage');
    await this.changes.take(principal.orgId, node.id, principalId, { type: 'principal', id: principal.userId });
  }
}
