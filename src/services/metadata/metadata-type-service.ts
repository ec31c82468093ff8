import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { MetadataTypeRow, RegionalSchema } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import {
  checkMetadataType,
  definitionOf,
  type MetadataProperty,
  type MetadataTypeDefinition,
  metadataTypeNameKey,
  normalizeProperty,
  type ObjectKind,
} from '../../domain/metadata/metadata-types.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeService } from '../node-service.js';

type Tx = Transaction<RegionalSchema>;

export interface MetadataTypeChanges {
  name?: string;
  appliesTo?: ObjectKind[];
  properties?: MetadataProperty[];
}

/** The whole definition, or 400 ValidationError naming the first field that breaks a rule. */
function checked(definition: MetadataTypeDefinition): MetadataTypeDefinition {
  const [first] = checkMetadataType(definition);
  if (first) throw validationError(`body${first.path ? `.${first.path}` : ''}: ${first.message}`);
  return { ...definition, properties: definition.properties.map(normalizeProperty) };
}

/** What the audit trail keeps of a type: the properties are counted, not copied (a type may hold thousands). */
function summary(definition: MetadataTypeDefinition) {
  return { name: definition.name, appliesTo: definition.appliesTo, properties: definition.properties.length };
}

function duplicate(name: string): ApiError {
  return new ApiError('DuplicateMetadataTypeName', `A metadata type named "${name}" exists in this organization`);
}

export interface MetadataTypeServiceOptions {
  clock: Clock;
  types: MetadataTypeRepository;
  /** Writing needs manage on the organization node. */
  nodes: Pick<NodeService, 'authorize'>;
  audit: Pick<AuditRepository, 'record'>;
}

/**
 * An organization's metadata types (docs/twins.md, "Metadata types"). Reading needs only a
 * member's token; writing needs manage on the organization node (Organization Administrator), as
 * roles do. Each change is one regional transaction with its audit event.
 */
export class MetadataTypeService {
  private readonly clock: Clock;
  private readonly types: MetadataTypeRepository;
  private readonly nodes: MetadataTypeServiceOptions['nodes'];
  private readonly auditTrail: MetadataTypeServiceOptions['audit'];

  constructor(options: MetadataTypeServiceOptions) {
    this.clock = options.clock;
    this.types = options.types;
    this.nodes = options.nodes;
    this.auditTrail = options.audit;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private requireAdministrator(principal: Principal) {
    return this.nodes.authorize(principal, principal.orgId, 'manage');
  }

  async list(principal: Principal, limit: number, offset: number): Promise<MetadataTypeRow[]> {
    return this.types.list(principal.orgId, limit, offset);
  }

  async get(principal: Principal, id: string): Promise<MetadataTypeRow> {
    const row = await this.types.find(principal.orgId, id);
    if (!row) throw new ApiError('NotFound', 'Metadata type not found');
    return row;
  }

  async create(principal: Principal, input: MetadataTypeDefinition): Promise<MetadataTypeRow> {
    await this.requireAdministrator(principal);
    const definition = checked(input);
    const now = this.now();
    const row: MetadataTypeRow = {
      id: randomUUID(),
      org_id: principal.orgId,
      name: definition.name,
      name_key: metadataTypeNameKey(definition.name),
      applies_to: JSON.stringify(definition.appliesTo),
      properties: JSON.stringify(definition.properties),
      created_by: principal.userId,
      updated_by: principal.userId,
      created_at: now,
      updated_at: now,
    };
    await this.write(row.name, async (tx) => {
      if ((await this.types.idOfNameKey(tx, row.org_id, row.name_key)) !== undefined) throw duplicate(row.name);
      await this.types.insert(tx, row);
      await this.audit(tx, principal, 'metadata-type.created', row.id, summary(definition), now);
    });
    return row;
  }

  async update(principal: Principal, id: string, changes: MetadataTypeChanges): Promise<MetadataTypeRow> {
    await this.requireAdministrator(principal);
    const now = this.now();
    return this.write(changes.name ?? '', async (tx) => {
      const row = await this.types.lock(tx, principal.orgId, id);
      if (!row) throw new ApiError('NotFound', 'Metadata type not found');
      const before = definitionOf(row);
      const after = checked({ ...before, ...changes });
      const nameKey = metadataTypeNameKey(after.name);
      if (nameKey !== row.name_key) {
        const holder = await this.types.idOfNameKey(tx, row.org_id, nameKey);
        if (holder !== undefined && holder !== row.id) throw duplicate(after.name);
      }
      const fields = {
        name: after.name,
        name_key: nameKey,
        applies_to: JSON.stringify(after.appliesTo),
        properties: JSON.stringify(after.properties),
        updated_by: principal.userId,
        updated_at: now,
      };
      await this.types.update(tx, row.id, fields);
      await this.audit(
        tx,
        principal,
        'metadata-type.updated',
        row.id,
        { before: summary(before), after: summary(after), changed: Object.keys(changes) },
        now,
      );
      return { ...row, ...fields };
    });
  }

  async delete(principal: Principal, id: string): Promise<void> {
    await this.requireAdministrator(principal);
    const now = this.now();
    await this.types.transaction(async (tx) => {
      const row = await this.types.lock(tx, principal.orgId, id);
      if (!row) throw new ApiError('NotFound', 'Metadata type not found');
      // Assignments hold the type's row FOR SHARE (PostgreSQL; SQLite has one writer): with it held
      // here, none can land between the count and the delete.
      const uses = await this.types.countUses(principal.orgId, row.id, tx);
      if (uses > 0) {
        throw new ApiError(
          'MetadataTypeInUse',
          `The metadata type is used by ${uses} object${uses === 1 ? '' : 's'} in twins, open drafts or planning layouts: give them another type or none first`,
        );
      }
      await this.types.delete(tx, row.id);
      await this.audit(tx, principal, 'metadata-type.deleted', row.id, summary(definitionOf(row)), now);
    });
  }

  /**
   * One write transaction. A write that lost a race on the unique name index (two creations of one
   * name at once) gets the answer the name check would have given had the other committed first.
   */
  private async write<T>(name: string, change: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.types.transaction(change);
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate(name);
      throw error;
    }
  }

  private audit(tx: Tx, principal: Principal, action: string, id: string, details: Record<string, unknown>, at: string) {
    return this.auditTrail.record(tx, {
      orgId: principal.orgId,
      actor: { type: 'principal', id: principal.userId },
      action,
      target: { type: 'metadata-type', id },
      details,
      at,
    });
  }
}
