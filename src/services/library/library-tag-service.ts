import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { LibraryTagRepository } from '../../adapters/db/repositories/library-tag-repository.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { LibraryTagRow, RegionalSchema } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import type { LibraryTagWithCount } from '../../domain/library/tags.js';
import { tagNameKey } from '../../domain/library/tags.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeService } from '../node-service.js';

type Tx = Transaction<RegionalSchema>;

export interface LibraryTagInput {
  name: string;
  color?: string | null;
}

export interface LibraryTagChanges {
  name?: string;
  color?: string | null;
}

function duplicate(name: string): ApiError {
  return new ApiError('DuplicateTagName', `A tag named "${name}" exists in this organization`);
}

function notFound(): ApiError {
  return new ApiError('NotFound', 'Tag not found');
}

export interface LibraryTagServiceOptions {
  clock: Clock;
  nodes: Pick<NodeService, 'authorize'>;
  tags: LibraryTagRepository;
  /** Where each change runs: one regional transaction. */
  tree: Pick<NodeTreeRepository, 'transaction'>;
  audit: Pick<AuditRepository, 'record'>;
}

/**
 * The tags of an organization's asset library (docs/asset-library.md). The library is the
 * organization's: any member reads it; changing it needs edit on the organization node (an
 * editor there, or an Organization Administrator), as the organization node is where a role
 * reaches the whole organization. Each change is one regional transaction with its audit event.
 */
export class LibraryTagService {
  private readonly tags: LibraryTagRepository;

  constructor(private readonly options: LibraryTagServiceOptions) {
    this.tags = options.tags;
  }

  private now(): string {
    return this.options.clock.now().toISOString();
  }

  private requireEditor(principal: Principal) {
    return this.options.nodes.authorize(principal, principal.orgId, 'edit');
  }

  async list(principal: Principal, limit: number, offset: number): Promise<LibraryTagWithCount[]> {
    return this.tags.list(principal.orgId, limit, offset);
  }

  async get(principal: Principal, id: string): Promise<LibraryTagWithCount> {
    const row = await this.tags.find(principal.orgId, id);
    if (!row) throw notFound();
    return row;
  }

  async create(principal: Principal, input: LibraryTagInput): Promise<LibraryTagWithCount> {
    await this.requireEditor(principal);
    const now = this.now();
    const row: LibraryTagRow = {
      id: randomUUID(),
      org_id: principal.orgId,
      name: input.name,
      name_key: tagNameKey(input.name),
      color: input.color ?? null,
      created_by: principal.userId,
      updated_by: principal.userId,
      created_at: now,
      updated_at: now,
    };
    await this.write(row.name, async (tx) => {
      if ((await this.tags.idOfNameKey(tx, row.org_id, row.name_key)) !== undefined) throw duplicate(row.name);
      await this.tags.insert(tx, row);
      await this.audit(tx, principal, 'library-tag.created', row.id, { name: row.name, color: row.color }, now);
    });
    // A new tag is on no model yet.
    return { ...row, model_count: 0 };
  }

  async update(principal: Principal, id: string, changes: LibraryTagChanges): Promise<LibraryTagWithCount> {
    await this.requireEditor(principal);
    const now = this.now();
    return this.write(changes.name ?? '', async (tx) => {
      const row = await this.tags.lock(tx, principal.orgId, id);
      if (!row) throw notFound();
      const name = changes.name ?? row.name;
      const nameKey = tagNameKey(name);
      if (nameKey !== row.name_key) {
        const holder = await this.tags.idOfNameKey(tx, row.org_id, nameKey);
        if (holder !== undefined && holder !== row.id) throw duplicate(name);
      }
      const fields = {
        name,
        name_key: nameKey,
        color: changes.color === undefined ? row.color : changes.color,
        updated_by: principal.userId,
        updated_at: now,
      };
      await this.tags.update(tx, row.id, fields);
      await this.audit(
        tx,
        principal,
        'library-tag.updated',
        row.id,
        {
          before: { name: row.name, color: row.color },
          after: { name: fields.name, color: fields.color },
          changed: Object.keys(changes),
        },
        now,
      );
      const updated = await this.tags.find(principal.orgId, row.id, tx);
      if (!updated) throw notFound();
      return updated;
    });
  }

  /** Deletes the tag and, in the same transaction, takes it off every model that carries it. */
  async delete(principal: Principal, id: string): Promise<void> {
    await this.requireEditor(principal);
    const now = this.now();
    await this.options.tree.transaction(async (tx) => {
      const row = await this.tags.lock(tx, principal.orgId, id);
      if (!row) throw notFound();
      const unassigned = await this.tags.delete(tx, row.id);
      await this.audit(
        tx,
        principal,
        'library-tag.deleted',
        row.id,
        { name: row.name, color: row.color, unassignedFromModels: unassigned },
        now,
      );
    });
  }

  /**
   * One write transaction. A write that lost a race on the unique name index (two creations of one
   * name at once) gets the answer the name check would have given had the other committed first.
   */
  private async write<T>(name: string, change: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.options.tree.transaction(change);
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate(name);
      throw error;
    }
  }

  private audit(tx: Tx, principal: Principal, action: string, id: string, details: Record<string, unknown>, at: string) {
    return this.options.audit.record(tx, {
      orgId: principal.orgId,
      actor: { type: 'principal', id: principal.userId },
      action,
      target: { type: 'library-tag', id },
      details,
      at,
    });
  }
}
