import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { TwinRepository } from '../../adapters/db/repositories/twin-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { type KindOf, TWIN_OBJECT_KINDS } from '../../domain/twins/object-kinds.js';
import {
  applyPatch,
  byCreation,
  type DraftChange,
  type FieldsOf,
  type FoldedChange,
  foldDelete,
  foldUpdate,
  overlay,
  type Patch,
  type StoredFields,
  type TwinObject,
  type TwinObjectType,
} from '../../domain/twins/twin-objects.js';
import { isWebhookEventType } from '../../domain/webhooks/events.js';
import type { Clock } from '../../ports/clock.js';
import { checkMetadataTypeApplies, retypedMetadata } from './metadata-type-check.js';
import type { TwinContext, TwinService } from './twin-service.js';

type Tx = Transaction<RegionalSchema>;

/** A draft list's first read of live rows goes this far past the page, for the draft's removals. */
const DRAFT_PAGE_SLACK = 20;

export interface TwinObjectServiceOptions<K extends TwinObjectType> {
  /** The kind: its names and which writes hold the twin's row (src/domain/twins/kinds/). */
  kind: KindOf<K>;
  twins: TwinRepository;
  clock: Clock;
  /** The draft's lock and the audit trail and webhook events of twin writes. */
  drafts: Pick<TwinService, 'lockOpen' | 'audit' | 'recordEvent'>;
  /** The metadata type a write gives an object, held in its transaction (checkMetadataTypeApplies). */
  metadataTypes: Pick<MetadataTypeRepository, 'find' | 'hold'>;
}

/** A PATCH's options: a kind's check in the write's transaction, and whether to drop free sections that do not fit a type it gives. */
export interface UpdateOptions {
  checkInTx?: (tx: Tx) => Promise<void>;
  dropUnfitting?: boolean;
}

/**
 * Reads and writes of one kind of twin object through a context (docs/twins.md): through a site
 * they change the live twin; through a draft they record or fold the draft's change for the
 * object, and the live twin is untouched. Each write is one transaction with its audit event
 * (`<auditName>.created`, `.updated`, `.deleted`; details name the draft, or null).
 */
export class TwinObjectService<K extends TwinObjectType> {
  readonly kind: KindOf<K>;
  private readonly objectType: K;
  private readonly store: TwinRepository;
  private readonly clock: Clock;
  private readonly drafts: TwinObjectServiceOptions<K>['drafts'];
  private readonly metadataTypes: TwinObjectServiceOptions<K>['metadataTypes'];

  constructor(options: TwinObjectServiceOptions<K>) {
    this.kind = options.kind;
    this.objectType = options.kind.objectType;
    this.store = options.twins;
    this.clock = options.clock;
    this.drafts = options.drafts;
    this.metadataTypes = options.metadataTypes;
  }

  /** A page in createdAt, then id, order, as the context shows it. */
  async list(context: TwinContext, limit: number, offset: number): Promise<TwinObject<K>[]> {
    const { site, draft } = context;
    if (!draft) return this.store.listObjects(site.id, this.objectType, limit, offset);
    // The view's first offset + limit objects are added ones and live ones among the first
    // offset + limit + (removed) live rows: a change never moves an object in the order (createdAt
    // and id are not patched), so only that prefix of the live rows is read, not the whole twin.
    // Read side by side (two connections on PostgreSQL), as the two reads of the whole view were
    // never one snapshot either: the first page of live rows is usually enough; more only when the
    // draft removes many.
    const [changes, first] = await Promise.all([
      this.store.changesOf(draft.id, this.objectType),
      this.store.listObjects(site.id, this.objectType, offset + limit + DRAFT_PAGE_SLACK, 0),
    ]);
    const removed = changes.filter((change) => change.kind === 'removed').length;
    const live =
      removed <= DRAFT_PAGE_SLACK ? first : await this.store.listObjects(site.id, this.objectType, offset + limit + removed, 0);
    return this.overlaid(live, changes).slice(offset, offset + limit);
  }

  /** Every object of the kind as the context shows it (a draft's: the live rows overlaid by its changes), in list order. */
  async all(context: TwinContext, tx?: Tx): Promise<TwinObject<K>[]> {
    const { site, draft } = context;
    const changes = draft ? await this.store.changesOf(draft.id, this.objectType, tx) : [];
    return this.overlaid(await this.store.allObjects(site.id, this.objectType, tx), changes);
  }

  /** Live objects (in list order) overlaid by a draft's changes, with the objects it adds, in list order. */
  private overlaid(liveObjects: TwinObject<K>[], changeList: DraftChange<K>[]): TwinObject<K>[] {
    const changes = new Map(changeList.map((change) => [change.objectId, change]));
    const view: TwinObject<K>[] = [];
    for (const object of liveObjects) {
      const fields = overlay(object.fields, changes.get(object.id));
      if (fields) view.push({ id: object.id, objectType: this.objectType, fields });
    }
    for (const change of changes.values()) {
      if (change.kind === 'added') view.push({ id: change.objectId, objectType: this.objectType, fields: change.fields });
    }
    return view.sort(byCreation);
  }

  /** The object as the context shows it, or undefined. */
  async find(context: TwinContext, id: string, tx?: Tx): Promise<TwinObject<K> | undefined> {
    const live = (await this.store.findObject(context.site.id, this.objectType, id, tx, tx !== undefined))?.fields;
    if (!context.draft) return live && { id, objectType: this.objectType, fields: live };
    // A change to an object of another kind (the id is another kind's) reads as none.
    const change = await this.store.changeOf(context.draft.id, this.objectType, id, tx);
    const fields = overlay(live, change);
    return fields && { id, objectType: this.objectType, fields };
  }

  async get(context: TwinContext, id: string): Promise<TwinObject<K>> {
    const found = await this.find(context, id);
    if (!found) throw new ApiError('NotFound', this.kind.notFound);
    return found;
  }

  /** checkInTx (a kind's rules that read the context, e.g. zones' nesting) runs first in the write's transaction. */
  async create(
    principal: Principal,
    context: TwinContext,
    input: FieldsOf<K>,
    checkInTx?: (tx: Tx) => Promise<void>,
  ): Promise<TwinObject<K>> {
    const now = this.now();
    const fields: StoredFields<K> = {
      ...input,
      createdBy: principal.userId,
      updatedBy: principal.userId,
      createdAt: now,
      updatedAt: now,
    };
    const object: TwinObject<K> = { id: randomUUID(), objectType: this.objectType, fields };
    await this.write(context, this.kind.locksTwin(input), async (tx) => {
      if (checkInTx) await checkInTx(tx);
      await checkMetadataTypeApplies(this.metadataTypes, principal, input.metadataTypeId, this.kind, tx);
      const { site, draft } = context;
      if (draft) {
        await this.store.insertChange(tx, draft.id, { ...this.changeIds(object), kind: 'added', fields }, now);
      } else {
        await this.store.insertObject(tx, site, object);
      }
      await this.audit(tx, principal, context, 'created', object.id, { name: fields.name }, now);
    });
    return object;
  }

  async update(
    principal: Principal,
    context: TwinContext,
    id: string,
    changes: Patch<K>,
    options: UpdateOptions = {},
  ): Promise<TwinObject<K>> {
    const { checkInTx, dropUnfitting = false } = options;
    return this.updateWith(principal, context, id, 'updated', this.kind.locksTwin(changes), async (current, tx) => {
      if (checkInTx) await checkInTx(tx);
      // A type given to an object without one keeps its free sections that fit it; another type
      // (or none) starts with no values (docs/twins.md, "Free metadata"), in the same patch, so
      // a draft carries both together.
      const retyped = await retypedMetadata(
        this.metadataTypes,
        tx,
        principal,
        this.kind,
        current.fields,
        changes.metadataTypeId,
        dropUnfitting,
      );
      const completed: Patch<K> = this.kind.patched ? { ...changes, ...this.kind.patched(current.fields, changes) } : changes;
      const patch: Patch<K> = retyped.metadata ? { ...completed, metadata: retyped.metadata } : completed;
      return {
        changes: patch,
        details: { name: current.fields.name, changed: Object.keys(changes), ...retyped.details },
      };
    });
  }

  /**
   * A PATCH whose changes depend on the object as the transaction reads it (held on PostgreSQL
   * through the live twin; through a draft, the draft's row is held): `change` answers the
   * fields to patch and the audit details; the event is `<auditName>.<what>`. lockTwin: the
   * twin's row is held first (see TwinObjectKind.locksTwin).
   */
  async updateWith(
    principal: Principal,
    context: TwinContext,
    id: string,
    what: string,
    lockTwin: boolean,
    change: (current: TwinObject<K>, tx: Tx) => Promise<{ changes: Patch<K>; details: object }>,
  ): Promise<TwinObject<K>> {
    const now = this.now();
    return this.write(context, lockTwin, async (tx) => {
      const current = await this.find(context, id, tx);
      if (!current) throw new ApiError('NotFound', this.kind.notFound);
      const { changes, details } = await change(current, tx);
      const updated = await this.patchIn(tx, principal, context, current, changes, now);
      await this.audit(tx, principal, context, what, id, details, now);
      return updated;
    });
  }

  /**
   * Inside a write's transaction: the object (as the context shows it) patched, live or as the
   * draft's change; no audit event (the caller records its own). A zone's delete uses it for the
   * children and points of interest it changes.
   */
  async patchIn(
    tx: Tx,
    principal: Principal,
    context: TwinContext,
    current: TwinObject<K>,
    changes: Patch<K>,
    now: string,
  ): Promise<TwinObject<K>> {
    const patch: Patch<K> = { ...changes, updatedBy: principal.userId, updatedAt: now };
    const { site, draft } = context;
    const updated: TwinObject<K> = { ...current, fields: applyPatch(current.fields, patch) };
    if (draft) {
      const existing = await this.store.changeOf(draft.id, this.objectType, current.id, tx);
      await this.saveChange(tx, draft.id, current, existing, foldUpdate(existing, patch), now);
    } else {
      await this.store.replaceObject(tx, site, updated);
    }
    return updated;
  }

  /** alsoInTx runs in the delete's transaction first, with the object as the context shows it. */
  async delete(
    principal: Principal,
    context: TwinContext,
    id: string,
    alsoInTx?: (tx: Tx, current: TwinObject<K>, now: string) => Promise<Record<string, unknown> | undefined>,
  ): Promise<void> {
    const now = this.now();
    // A delete names no zone: it locks the twin only for a kind whose every write does (zones).
    await this.write(context, this.kind.locksTwin({}), async (tx) => {
      const current = await this.find(context, id, tx);
      if (!current) throw new ApiError('NotFound', this.kind.notFound);
      const extra = alsoInTx ? await alsoInTx(tx, current, now) : undefined;
      const { draft } = context;
      if (draft) {
        const existing = await this.store.changeOf(draft.id, this.objectType, id, tx);
        await this.saveChange(tx, draft.id, current, existing, foldDelete(existing), now);
      } else {
        await this.store.deleteObject(tx, id);
      }
      await this.audit(tx, principal, context, 'deleted', id, { name: current.fields.name, ...extra }, now);
    });
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** One write transaction; through a draft, its row is locked and checked open first, then the twin's if lockTwin. */
  private write<T>(context: TwinContext, lockTwin: boolean, change: (tx: Tx) => Promise<T>): Promise<T> {
    return this.store.transaction(async (tx) => {
      if (context.draft) await this.drafts.lockOpen(tx, context.draft.id);
      if (lockTwin) await this.store.lockTwin(tx, context.site.id);
      return change(tx);
    });
  }

  /** A new change's ids: its own, the object's, and the library model a model asset places (its changes' column). */
  private changeIds(object: TwinObject<K>) {
    const { fields } = object;
    const libraryModelId = 'libraryModelId' in fields && typeof fields.libraryModelId === 'string' ? fields.libraryModelId : null;
    return { id: randomUUID(), objectId: object.id, objectType: this.objectType, libraryModelId };
  }

  private async saveChange(
    tx: Tx,
    draftId: string,
    object: TwinObject<K>,
    existing: DraftChange<K> | undefined,
    next: FoldedChange<K> | undefined,
    now: string,
  ): Promise<void> {
    if (!next) {
      if (existing) await this.store.deleteChange(tx, existing.id);
    } else if (existing) {
      await this.store.updateChange(tx, existing.id, next, now);
    } else {
      await this.store.insertChange(tx, draftId, { ...this.changeIds(object), ...next }, now);
    }
  }

  /** The write's audit event, and its webhook event when it changed the live twin (a draft's tell at its publish). */
  private async audit(tx: Tx, principal: Principal, context: TwinContext, what: string, id: string, details: object, at: string) {
    const full = { ...details, siteId: context.site.id, draftId: context.draft?.id ?? null };
    await this.drafts.audit(tx, principal, `${this.kind.auditName}.${what}`, id, full, at);
    if (context.draft) return;
    const type = what === 'metadata-updated' ? 'metadata.changed' : `${this.objectType}.${what}`;
    if (!isWebhookEventType(type)) return;
    const ids = { siteId: context.site.id, objectType: this.objectType, objectId: id };
    await this.drafts.recordEvent(tx, context.site.org_id, type, ids);
  }
}

/** Each kind's object service, by its type. */
export type TwinObjectServices = { [K in TwinObjectType]: TwinObjectService<K> };

/** An object service for every kind of TWIN_OBJECT_KINDS, over one store: the kinds' services and the object metadata share them. */
export function twinObjectServices(options: Omit<TwinObjectServiceOptions<TwinObjectType>, 'kind'>): TwinObjectServices {
  const services = Object.values(TWIN_OBJECT_KINDS).map((kind) => [kind.objectType, new TwinObjectService({ ...options, kind })]);
  return Object.fromEntries(services) as TwinObjectServices;
}
