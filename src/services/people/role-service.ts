import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { InTransaction } from '../../adapters/db/database.js';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { RoleRepository } from '../../adapters/db/repositories/role-repository.js';
import type { RegionalSchema, RoleRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import type { ListPage } from '../../domain/listing/cursor.js';
import { checkRoleEditable, checkRoleUnused } from '../../domain/people/role-rules.js';
import { normalizePermissions } from '../../domain/people/roles.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeAccess } from '../node-service.js';

export interface RoleServiceOptions {
  clock: Clock;
  nodes: NodeAccess;
  roles: RoleRepository;
  audit: AuditRepository;
  transaction: InTransaction<RegionalSchema>;
}

/**
 * An organization's roles. Reading needs only membership of the organization; writing needs
 * manage on the organization node. Each change is one regional transaction with its audit event.
 */
export class RoleService {
  private readonly clock: Clock;
  private readonly nodes: NodeAccess;
  private readonly roles: RoleRepository;
  private readonly auditTrail: AuditRepository;
  private readonly transaction: InTransaction<RegionalSchema>;

  constructor(options: RoleServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.roles = options.roles;
    this.auditTrail = options.audit;
    this.transaction = options.transaction;
  }

  /** Every role, or a page of them. */
  async list(principal: Principal, page?: ListPage): Promise<RoleRow[]> {
    return this.roles.list(principal.orgId, page);
  }

  async create(principal: Principal, input: { name: string; permissions: string[] }): Promise<RoleRow> {
    await this.nodes.authorize(principal, principal.orgId, 'manage');
    const permissions = normalizePermissions(input.permissions);
    const now = this.now();
    const row: RoleRow = {
      org_id: principal.orgId,
      id: randomUUID(),
      name: input.name,
      name_key: input.name.toLowerCase(),
      kind: 'custom',
      permissions: JSON.stringify(permissions),
      created_at: now,
      updated_at: now,
    };
    await this.transaction(async (tx) => {
      if (await this.roles.nameTaken(tx, principal.orgId, input.name)) throw duplicate(input.name);
      if (!(await this.roles.insert(tx, row))) throw duplicate(input.name);
      await this.audit(tx, principal, 'role.created', row.id, { name: row.name, permissions });
    });
    return row;
  }

  async update(principal: Principal, roleId: string, input: { name?: string; permissions?: string[] }): Promise<RoleRow> {
    await this.nodes.authorize(principal, principal.orgId, 'manage');
    const permissions = input.permissions === undefined ? undefined : normalizePermissions(input.permissions);
    return this.transaction(async (tx) => {
      const role = await this.roles.lock(tx, principal.orgId, roleId, 'update');
      if (!role) throw new ApiError('NotFound', `No role ${roleId} in this organization`);
      checkRoleEditable(role);
      const fields = {
        ...(input.name !== undefined ? { name: input.name, name_key: input.name.toLowerCase() } : {}),
        ...(permissions !== undefined ? { permissions: JSON.stringify(permissions) } : {}),
        updated_at: this.now(),
      };
      if (input.name !== undefined && (await this.roles.nameTaken(tx, principal.orgId, input.name, role.id))) {
        throw duplicate(input.name);
      }
      if (!(await this.roles.update(tx, principal.orgId, role.id, fields))) throw duplicate(input.name ?? role.name);
      await this.audit(tx, principal, 'role.updated', role.id, {
        ...(input.name !== undefined ? { name: input.name, previousName: role.name } : {}),
        ...(permissions !== undefined ? { permissions, previousPermissions: JSON.parse(role.permissions) } : {}),
      });
      return { ...role, ...fields };
    });
  }

  async remove(principal: Principal, roleId: string): Promise<void> {
    await this.nodes.authorize(principal, principal.orgId, 'manage');
    await this.transaction(async (tx) => {
      // Held first: a membership or invitation giving the role meanwhile waits, then finds it gone.
      const role = await this.roles.lock(tx, principal.orgId, roleId, 'update');
      if (!role) throw new ApiError('NotFound', `No role ${roleId} in this organization`);
      checkRoleEditable(role);
      checkRoleUnused(await this.roles.use(tx, principal.orgId, role.id));
      await this.roles.delete(tx, principal.orgId, role.id);
      await this.audit(tx, principal, 'role.deleted', role.id, { name: role.name, permissions: JSON.parse(role.permissions) });
    });
  }

  private audit(
    tx: Transaction<RegionalSchema>,
    principal: Principal,
    action: string,
    roleId: string,
    details: Record<string, unknown>,
  ) {
    return this.auditTrail.record(tx, {
      orgId: principal.orgId,
      actor: { type: 'principal', id: principal.userId },
      action,
      target: { type: 'role', id: roleId },
      details,
      at: this.now(),
    });
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

function duplicate(name: string): ApiError {
  return new ApiError('DuplicateRoleName', `A role named "${name}" exists in this organization`);
}
