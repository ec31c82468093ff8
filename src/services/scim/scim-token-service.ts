import { randomUUID } from 'node:crypto';
import type { InTransaction } from '../../adapters/db/database.js';
import type { AuditActor, AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { ScimTokenRepository } from '../../adapters/db/repositories/scim-token-repository.js';
import type { RegionalSchema, ScimTokenRow } from '../../adapters/db/schema.js';
import { hashToken, randomToken } from '../../crypto/secrets.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { checkNameLength } from '../../domain/nodes/hierarchy.js';
import type { Region } from '../../domain/regions.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeAccess } from '../node-service.js';

/** Tokens start with this, so a leaked one is recognizable (secret scanners, logs). */
export const SCIM_TOKEN_PREFIX = 'rdp_scim_';

export interface ScimTokenView {
  id: string;
  name: string;
  scimUrl: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Where a token's creation and deletion are recorded: the organization's regional audit trail. */
export interface ScimTokenAudit {
  audit: AuditRepository;
  transaction: InTransaction<RegionalSchema>;
}

export interface ScimTokenServiceOptions {
  clock: Clock;
  /** Manage on the organization node, for the regional API's callers. */
  nodes: NodeAccess;
  tokens: ScimTokenRepository;
  /** The organization and its region. */
  organizations: Pick<DirectoryRepository, 'findOrganization'>;
  /** An organization region's audit trail. */
  auditIn(region: Region): ScimTokenAudit;
  /** The SCIM endpoint's address, shown with each token (scimBaseUrl). */
  scimUrl: string;
}

/**
 * Bearer tokens an organization's identity provider uses on /scim/v2. The token is shown once,
 * at creation; the store keeps its SHA-256 (256 random bits need no slow hash). ScimAuthenticator
 * looks it up on every SCIM request.
 */
export class ScimTokenService {
  private readonly clock: Clock;
  private readonly nodes: NodeAccess;
  private readonly tokens: ScimTokenRepository;
  private readonly organizations: Pick<DirectoryRepository, 'findOrganization'>;
  private readonly auditIn: (region: Region) => ScimTokenAudit;
  readonly scimUrl: string;

  constructor(options: ScimTokenServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.tokens = options.tokens;
    this.organizations = options.organizations;
    this.auditIn = options.auditIn;
    this.scimUrl = options.scimUrl;
  }

  private view(row: ScimTokenRow): ScimTokenView {
    return { id: row.id, name: row.name, scimUrl: this.scimUrl, createdAt: row.created_at, lastUsedAt: row.last_used_at };
  }

  /** Manage on the organization node: what the regional API asks of a caller. */
  private async authorize(principal: Principal): Promise<AuditActor> {
    await this.nodes.authorize(principal, principal.orgId, 'manage');
    return { type: 'principal', id: principal.userId };
  }

  async createFor(principal: Principal, name: string) {
    return this.create(principal.orgId, name, await this.authorize(principal));
  }

  async listFor(principal: Principal): Promise<ScimTokenView[]> {
    await this.authorize(principal);
    return (await this.tokens.list(principal.orgId)).map((row) => this.view(row));
  }

  async deleteFor(principal: Principal, tokenId: string): Promise<void> {
    await this.delete(principal.orgId, tokenId, await this.authorize(principal));
  }

  async create(orgId: string, name: string, actor: AuditActor): Promise<ScimTokenView & { token: string }> {
    // The field as the API's validation errors name it, e.g. "body.name: must not be empty".
    const problem = checkNameLength('body.name:', name) ?? (name.trim() === '' ? 'body.name: must not be blank' : null);
    if (problem) throw validationError(problem);
    const org = await this.organizations.findOrganization(orgId);
    if (!org) throw new ApiError('NotFound', `organization ${orgId} not found`);
    const token = `${SCIM_TOKEN_PREFIX}${randomToken()}`;
    const now = this.clock.now().toISOString();
    const row: ScimTokenRow = {
      id: randomUUID(),
      org_id: orgId,
      name,
      token_hash: hashToken(token),
      created_by: actor.id,
      created_at: now,
      last_used_at: null,
    };
    await this.tokens.insert(row);
    // A global-store change: its audit event follows in the organization's regional store.
    const { audit, transaction } = this.auditIn(org.region as Region);
    await transaction((tx) =>
      audit.record(tx, {
        orgId,
        actor,
        action: 'scim-token.created',
        target: { type: 'scim-token', id: row.id },
        details: { name },
        at: now,
      }),
    );
    return { ...this.view(row), token };
  }

  async delete(orgId: string, tokenId: string, actor: AuditActor): Promise<void> {
    const org = await this.organizations.findOrganization(orgId);
    if (!org || !(await this.tokens.delete(orgId, tokenId))) throw new ApiError('NotFound', 'No SCIM token with this id');
    const { audit, transaction } = this.auditIn(org.region as Region);
    const at = this.clock.now().toISOString();
    await transaction((tx) =>
      audit.record(tx, { orgId, actor, action: 'scim-token.deleted', target: { type: 'scim-token', id: tokenId }, at }),
    );
  }
}
