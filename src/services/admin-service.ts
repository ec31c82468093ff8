import { randomUUID } from 'node:crypto';
import type { InTransaction } from '../adapters/db/database.js';
import type { ComparisonRepository } from '../adapters/db/repositories/comparison-repository.js';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { LibraryModelRepository } from '../adapters/db/repositories/library-model-repository.js';
import type { NodeRepository } from '../adapters/db/repositories/node-repository.js';
import { newNodeRow } from '../adapters/db/repositories/node-rows.js';
import type { NodeTreeRepository } from '../adapters/db/repositories/node-tree-repository.js';
import type { RoleRepository } from '../adapters/db/repositories/role-repository.js';
import type { UploadRepository } from '../adapters/db/repositories/upload-repository.js';
import type { RegionalSchema } from '../adapters/db/schema.js';
import { hashPassword } from '../crypto/secrets.js';
import { ApiError, validationError } from '../domain/errors.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID, organizationRoleRows } from '../domain/people/roles.js';
import { isRegion, REGIONS, type Region } from '../domain/regions.js';
import type { Clock } from '../ports/clock.js';
import type { ApplicationService } from './application-service.js';
import type { MembershipChanges } from './people/membership-changes.js';
import type { ScimTokenService } from './scim/scim-token-service.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const IDENTITY_PROVIDER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const DOMAIN = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function requireName(field: string, value: string): void {
  const length = [...value].length;
  if (length < 1 || length > 255) throw validationError(`${field} must be 1 to 255 characters`);
}

/** What provisioning reads and writes in a region. */
export interface AdminRegion {
  region: Region;
  transaction: InTransaction<RegionalSchema>;
  nodes: Pick<NodeRepository, 'insert' | 'findById' | 'setRequiredIdentityProvider'>;
  roles: Pick<RoleRepository, 'list'>;
  /** The storage sums, from one snapshot. */
  tree: Pick<NodeTreeRepository, 'readTransaction' | 'activeBytes' | 'trashedBytesOfOrganization'>;
  uploads: Pick<UploadRepository, 'reservedBytes'>;
  libraryModels: Pick<LibraryModelRepository, 'bytesInUse'>;
  comparisons: Pick<ComparisonRepository, 'bytesInUse'>;
}

export interface AdminServiceOptions {
  clock: Clock;
  /** Organizations and users (global store). */
  directory: Pick<
    DirectoryRepository,
    'findOrganization' | 'insertOrganization' | 'updateOrganization' | 'findUserByEmail' | 'insertUser'
  >;
  /** Each region's API address, answered with a new organization. */
  regionUrls: Record<Region, string>;
  /** An opened region (421 RegionNotServed for another). */
  region(name: Region): AdminRegion;
  /** Every opened region: where a node is looked for. */
  openedRegions(): AdminRegion[];
  applications: Pick<ApplicationService, 'create'>;
  /** The SCIM tokens of an organization of that region. */
  scimTokensIn(region: Region): Pick<ScimTokenService, 'create'>;
  /** Role changes in that region, with the memberships API's rules. */
  membershipChangesIn(region: Region): Pick<MembershipChanges, 'give'>;
}

/** Provisioning that has no public API: what `rdp admin` and the tests call. */
export class AdminService {
  private readonly clock: Clock;
  private readonly directory: AdminServiceOptions['directory'];
  private readonly regionUrls: Record<Region, string>;
  private readonly region: (name: Region) => AdminRegion;
  private readonly openedRegions: () => AdminRegion[];
  private readonly applications: Pick<ApplicationService, 'create'>;
  private readonly scimTokensIn: (region: Region) => Pick<ScimTokenService, 'create'>;
  private readonly membershipChangesIn: (region: Region) => Pick<MembershipChanges, 'give'>;

  constructor(options: AdminServiceOptions) {
    this.clock = options.clock;
    this.directory = options.directory;
    this.regionUrls = options.regionUrls;
    this.region = options.region;
    this.openedRegions = options.openedRegions;
    this.applications = options.applications;
    this.scimTokensIn = options.scimTokensIn;
    this.membershipChangesIn = options.membershipChangesIn;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  async createOrganization(input: {
    name: string;
    region: string;
    storageQuota?: number | undefined;
    seatLimit?: number | undefined;
    emailDomains?: string[] | undefined;
  }) {
    requireName('name', input.name);
    if (!isRegion(input.region)) throw validationError(`region must be one of ${REGIONS.join(', ')}`);
    if (input.storageQuota !== undefined && !(Number.isSafeInteger(input.storageQuota) && input.storageQuota >= 0)) {
      throw validationError('storage quota must be a whole number of bytes');
    }
    if (input.seatLimit !== undefined && !(Number.isSafeInteger(input.seatLimit) && input.seatLimit >= 0)) {
      throw validationError('seat limit must be a whole number');
    }
    const emailDomains = (input.emailDomains ?? []).map((domain) => domain.trim().toLowerCase()).filter(Boolean);
    const badDomain = emailDomains.find((domain) => !DOMAIN.test(domain));
    if (badDomain) throw validationError(`"${badDomain}" is not a domain name`);

    const id = randomUUID();
    const now = this.now();
    const region = this.region(input.region);
    // The regional root first: an organization row never points at a region that lacks its node.
    await region.transaction(async (tx) => {
      await region.nodes.insert(newNodeRow(null, { id, kind: 'organization', name: input.name, now }), tx);
      const roles = organizationRoleRows(id, now, randomUUID);
      await tx.insertInto('roles').values(roles).execute();
    });
    try {
      await this.directory.insertOrganization({
        id,
        name: input.name,
        region: input.region,
        storage_quota: input.storageQuota ?? null,
        seat_limit: input.seatLimit ?? null,
        email_domains: JSON.stringify(emailDomains),
        rate_limit_bucket: null,
        rate_limit_refill_per_second: null,
        processing_slots: null,
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      // Two stores, no shared transaction: undo the regional half so nothing is left behind.
      await region.transaction(async (tx) => {
        await tx.deleteFrom('roles').where('org_id', '=', id).execute();
        await tx.deleteFrom('nodes').where('id', '=', id).execute();
      });
      throw error;
    }
    return { id, name: input.name, region: input.region, apiUrl: this.regionUrls[input.region] };
  }

  async setOrganizationLimits(
    orgId: string,
    limits: { storageQuota?: number | null; processingSlots?: number | null; seatLimit?: number | null },
  ) {
    await this.requireOrganization(orgId);
    if (limits.seatLimit !== undefined) {
      const seats = limits.seatLimit;
      if (seats !== null && !(Number.isSafeInteger(seats) && seats >= 0)) {
        throw validationError('seat limit must be a whole number');
      }
      // A limit below the seats in use keeps them; it refuses the next person until seats free up.
      await this.directory.updateOrganization(orgId, { seat_limit: seats, updated_at: this.now() });
    }
    if (limits.storageQuota !== undefined) {
      await this.directory.updateOrganization(orgId, { storage_quota: limits.storageQuota, updated_at: this.now() });
    }
    if (limits.processingSlots !== undefined) {
      const slots = limits.processingSlots;
      if (slots !== null && !(Number.isSafeInteger(slots) && slots >= 0 && slots <= 10_000)) {
        throw validationError('processing slots must be a whole number from 0 to 10000');
      }
      await this.directory.updateOrganization(orgId, { processing_slots: slots, updated_at: this.now() });
    }
  }

  /**
   * What the organization stores, in bytes: its active nodes, its trash (counted again on
   * restore), the reservations of uploads in progress, its library models and its comparisons'
   * outputs, and the quota they are held to (usedBytes: what the quota counts).
   */
  async storageUse(orgId: string) {
    const org = await this.requireOrganization(orgId);
    const { tree, uploads } = this.region(org.region as Region);
    const now = this.now();
    // The sums the quota checks make (UploadService.usedBytes), from one snapshot.
    const { libraryModels, comparisons } = this.region(org.region as Region);
    const { activeBytes, trashedBytes, reservedBytes, libraryBytes, comparisonBytes } = await tree.readTransaction(
      async (tx) => ({
        activeBytes: await tree.activeBytes(tx, orgId),
        trashedBytes: await tree.trashedBytesOfOrganization(tx, orgId),
        reservedBytes: await uploads.reservedBytes(tx, orgId, now),
        libraryBytes: await libraryModels.bytesInUse(tx, orgId, now),
        comparisonBytes: await comparisons.bytesInUse(tx, orgId),
      }),
    );
    return {
      id: orgId,
      activeBytes,
      trashedBytes,
      reservedBytes,
      libraryBytes,
      comparisonBytes,
      usedBytes: activeBytes + reservedBytes + libraryBytes + comparisonBytes,
      storageQuota: org.storage_quota,
      processingSlots: org.processing_slots,
    };
  }

  /**
   * The organization's request bucket: its size and its refill per second (null: the configured
   * default). Running API processes pick it up within their limits cache time (a few seconds).
   */
  async setOrganizationRateLimit(orgId: string, limits: { bucket: number | null; refillPerSecond: number | null }) {
    await this.requireOrganization(orgId);
    for (const [name, value] of [
      ['bucket', limits.bucket],
      ['refill', limits.refillPerSecond],
    ] as const) {
      if (value !== null && !(Number.isSafeInteger(value) && value >= 1 && value <= 1_000_000_000)) {
        throw validationError(`${name} must be a whole number from 1 to 1000000000`);
      }
    }
    await this.directory.updateOrganization(orgId, {
      rate_limit_bucket: limits.bucket,
      rate_limit_refill_per_second: limits.refillPerSecond,
      updated_at: this.now(),
    });
    return { id: orgId, bucket: limits.bucket, refillPerSecond: limits.refillPerSecond };
  }

  /** Requires callers of a node and its subtree to have signed in through the provider; null lifts it. */
  async restrictNodeToIdentityProvider(nodeId: string, provider: string | null) {
    if (provider !== null && !IDENTITY_PROVIDER.test(provider)) {
      throw validationError('provider must be 1 to 64 letters, digits and . _ -, starting with a letter or digit');
    }
    const located = await this.locateNode(nodeId);
    if (!located) throw new ApiError('NotFound', `node ${nodeId} not found`);
    const { nodes } = located.region;
    await nodes.setRequiredIdentityProvider(nodeId, provider, this.now());
    return { nodeId, requiredIdentityProvider: provider };
  }

  async createUser(input: {
    email: string;
    password: string;
    firstName?: string | undefined;
    lastName?: string | undefined;
    orgId?: string | undefined;
    orgAdmin?: boolean | undefined;
  }) {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email)) throw validationError(`"${input.email}" is not an e-mail address`);
    if (input.password.length < 8) throw validationError('password must be at least 8 characters');
    if (input.orgAdmin && !input.orgId) throw validationError('--org-admin needs --org');
    const org = input.orgId ? await this.requireOrganization(input.orgId) : undefined;
    if (await this.directory.findUserByEmail(email)) throw validationError(`a user with e-mail ${email} exists`);

    const id = randomUUID();
    const now = this.now();
    await this.directory.insertUser(
      {
        id,
        email,
        password_hash: await hashPassword(input.password),
        first_name: input.firstName ?? '',
        last_name: input.lastName ?? '',
        kind: 'user',
        deactivated_at: null,
        tokens_not_before: null,
        created_at: now,
        updated_at: now,
      },
      org ? { orgId: org.id, isAdmin: Boolean(input.orgAdmin) } : undefined,
    );
    if (org && input.orgAdmin) {
      await this.grantMembership({ nodeId: org.id, principalId: id, roleId: ORGANIZATION_ADMINISTRATOR_ROLE_ID });
    }
    return { id, email };
  }

  /** The command line's registration; the rules are ApplicationService's, shared with the settings pages. */
  async createApplication(input: {
    orgId: string;
    name: string;
    flow: string;
    native?: boolean | undefined;
    redirectUris?: string[] | undefined;
    noSecret?: boolean | undefined;
    scopes: string[];
  }) {
    await this.requireOrganization(input.orgId);
    return this.applications.create(input.orgId, {
      name: input.name,
      flow: input.flow,
      native: input.native,
      redirectUris: input.redirectUris,
      hasSecret: !input.noSecret,
      scopes: input.scopes,
    });
  }

  /** A SCIM token for the organization's identity provider; the token is in this answer only. */
  async createScimToken(input: { orgId: string; name: string }) {
    const org = await this.requireOrganization(input.orgId);
    return this.scimTokensIn(org.region as Region).create(input.orgId, input.name, { type: 'admin-cli', id: 'rdp-admin' });
  }

  async listRoles(orgId: string) {
    const org = await this.requireOrganization(orgId);
    const { roles: repository } = this.region(org.region as Region);
    const roles = await repository.list(org.id);
    return roles.map((role) => ({
      id: role.id,
      name: role.name,
      kind: role.kind,
      permissions: JSON.parse(role.permissions) as string[],
    }));
  }

  /**
   * Gives a principal a role on a node, with the memberships API's rules (MembershipChanges):
   * the principal must be a user or group of the node's organization, and so on.
   */
  async grantMembership(input: { nodeId: string; principalId: string; roleId: string }) {
    const located = await this.locateNode(input.nodeId);
    if (!located) throw new ApiError('NotFound', `node ${input.nodeId} not found`);
    const { region, node } = located;
    const row = await this.membershipChangesIn(region.region).give(node.org_id, node.id, input.principalId, input.roleId, {
      type: 'admin-cli',
      id: 'rdp-admin',
    });
    return { nodeId: node.id, principalId: input.principalId, roleId: row.role_id };
  }

  private async requireOrganization(id: string) {
    const org = await this.directory.findOrganization(id);
    if (!org) throw new ApiError('NotFound', `organization ${id} not found`);
    return org;
  }

  private async locateNode(id: string) {
    for (const region of this.openedRegions()) {
      const node = await region.nodes.findById(id);
      if (node) return { region, node };
    }
    return undefined;
  }
}
