import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { RegionalSchema, TwinDraftChangeRow, TwinObjectRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import {
  applyPatch,
  byCreation,
  type FoldedChange,
  foldDelete,
  foldUpdate,
  type ObjectFields,
  objectOfRow,
  overlay,
  rowOfObject,
  type TwinObject,
  type TwinObjectType,
} from '../../domain/twins/twin-objects.js';
import { isWebhookEventType } from '../../domain/webhooks/events.js';
import type { TwinContext, TwinService } from './twin-service.js';

type Tx = Transaction<RegionalSchema>;

/** A draft list's first read of live rows goes this far past the page, for the draft's removals. */
const DRAFT_PAGE_SLACK = 20;

/** The library model a model asset places (the column of its rows and changes); null for the other kinds. */
function modelOf(fields: ObjectFields): string | null {
  return typeof fields.libraryModelId === 'string' ? fields.libraryModelId : null;
}

function folded(change: TwinDraftChangeRow | undefined): FoldedChange | undefined {
  return change && { kind: change.kind, fields: change.fields === null ? null : (JSON.parse(change.fields) as ObjectFields) };
}

/**
 * Reads and writes of one kind of twin object through a context (docs/twins.md): through a site
 * they change the live twin; through a draft they record or fold the draft's change for the
 * object, and the live twin is untouched. Each write is one transaction with its audit event
 * (`<auditName>.created`, `.updated`, `.deleted`; details name the draft, or null).
 */
export class TwinObjectService {
  constructor(
    private readonly twins: TwinService,
    readonly objectType: TwinObjectType,
    private readonly auditName: string,
    private readonly notFound: string,
    /**
     * Which writes hold the twin's row first (after the draft's), so checks that read the zones
     * take turns with zone writes and publishes: zones' every write; points of interest's creates
     * and PATCHes naming a zone (docs/twins.md, "Locks"). Taken before any object row, as zone
     * writes do, so the two never wait on each other in opposite orders.
     */
    private readonly locksTwin: boolean | ((fields: ObjectFields) => boolean) = false,
  ) {}

  private locks(fields: ObjectFields): boolean {
    return typeof this.locksTwin === 'function' ? this.locksTwin(fields) : this.locksTwin;
  }

  private get store() {
    return this.twins.twins;
  }

  /** A page in createdAt, then id, order, as the context shows it. */
  async list(context: TwinContext, limit: number, offset: number): Promise<TwinObject[]> {
    const { site, draft } = context;
    if (!draft) return (await this.store.listObjects(site.id, this.objectType, limit, offset)).map(objectOfRow);
    // The view's first offset + limit objects are added ones and live ones among the first
    // offset + limit + (removed) live rows: a change never moves an object in the order (createdAt
    // and id are not patched), so only that prefix of the live rows is read, not the whole twin.
    // Read side by side (two connections on PostgreSQL), as the two reads of the whole view were
    // never one snapshot either: the first page of live rows is usually enough; more only when the
    // draft removes many.
    const [changes, first] = await Promise.all([
      this.store.changes(draft.id, this.objectType),
      this.store.listObjects(site.id, this.objectType, offset + limit + DRAFT_PAGE_SLACK, 0),
    ]);
    const removed = changes.filter((change) => change.kind === 'removed').length;
    const live =
      removed <= DRAFT_PAGE_SLACK ? first : await this.store.listObjects(site.id, this.objectType, offset + limit + removed, 0);
    return this.overlaid(live, changes).slice(offset, offset + limit);
  }

  /** Every object of the kind as the context shows it (a draft's: the live rows overlaid by its changes), in list order. */
  async all(context: TwinContext, tx?: Tx): Promise<TwinObject[]> {
    const { site, draft } = context;
    const changes = draft ? await this.store.changes(draft.id, this.objectType, tx) : [];
    return this.overlaid(await this.store.allObjects(site.id, this.objectType, tx), changes);
  }

  /** Live rows (in list order) overlaid by a draft's changes, with the objects it adds, in list order. */
  private overlaid(liveRows: TwinObjectRow[], changeRows: TwinDraftChangeRow[]): TwinObject[] {
    const changes = new Map(changeRows.map((row) => [row.object_id, row]));
    const view: TwinObject[] = [];
    for (const row of liveRows) {
      const fields = overlay(objectOfRow(row).fields, folded(changes.get(row.id)));
      if (fields) view.push({ id: row.id, objectType: this.objectType, fields });
    }
    for (const change of changes.values()) {
      if (change.kind === 'added')
        view.push({ id: change.object_id, objectType: this.objectType, fields: JSON.parse(change.fields as string) });
    }
    return view.sort(byCreation);
  }

  /** The object as the context shows it, or undefined. */
  async find(context: TwinContext, id: string, tx?: Tx): Promise<TwinObject | undefined> {
    const row = await this.store.findObject(context.site.id, this.objectType, id, tx, tx !== undefined);
    const live = row && objectOfRow(row).fields;
    if (!context.draft) return live && { id, objectType: this.objectType, fields: live };
    const change = await this.store.change(context.draft.id, id, tx);
    if (change && change.object_type !== this.objectType) return undefined;
    const fields = overlay(live, folded(change));
    return fields && { id, objectType: this.objectType, fields };
  }

  async get(context: TwinContext, id: string): Promise<TwinObject> {
    const found = await this.find(context, id);
    if (!found) throw new ApiError('NotFound', this.notFound);
    return found;
  }

  /** checkInTx (a kind's rules that read the context, e.g. zones' nesting) runs first in the write's transaction. */
  async create(
    principal: Principal,
    context: TwinContext,
    input: ObjectFields,
    checkInTx?: (tx: Tx) => Promise<void>,
  ): Promise<TwinObject> {
    const now = this.twins.now();
    const object: TwinObject = {
      id: randomUUID(),
      objectType: this.objectType,
      fields: { ...input, createdBy: principal.userId, updatedBy: principal.userId, createdAt: now, updatedAt: now },
    };
    await this.write(context, this.locks(input), async (tx) => {
      if (checkInTx) await checkInTx(tx);
      const { site, draft } = context;
      if (draft) {
        await this.store.insertChange(tx, {
          id: randomUUID(),
          draft_id: draft.id,
          object_id: object.id,
          object_type: this.objectType,
          kind: 'added',
          fields: JSON.stringify(object.fields),
          library_model_id: modelOf(object.fields),
          created_at: now,
          updated_at: now,
        });
      } else {
        await this.store.insertObject(tx, rowOfObject(object, site.org_id, site.id));
      }
      await this.audit(tx, principal, context, 'created', object.id, { name: object.fields.name }, now);
    });
    return object;
  }

  async update(
    principal: Principal,
    context: TwinContext,
    id: string,
    changes: ObjectFields,
    checkInTx?: (tx: Tx) => Promise<void>,
  ): Promise<TwinObject> {
    return this.updateWith(principal, context, id, 'updated', this.locks(changes), async (current, tx) => {
      if (checkInTx) await checkInTx(tx);
      // Metadata values were checked against the object's type: another type (or none) starts
      // with no values (docs/twins.md), in the same patch, so a draft carries both together.
      const retyped = changes.metadataTypeId !== undefined && changes.metadataTypeId !== (current.fields.metadataTypeId ?? null);
      const hadValues = Object.keys((current.fields.metadata ?? {}) as object).length > 0;
      return {
        changes: retyped ? { ...changes, metadata: {} } : changes,
        details: {
          name: current.fields.name,
          changed: Object.keys(changes),
          ...(retyped && hadValues ? { metadataCleared: true } : {}),
        },
      };
    });
  }

  /**
   * A PATCH whose changes depend on the object as the transaction reads it (held on PostgreSQL
   * through the live twin; through a draft, the draft's row is held): `change` answers the
   * fields to patch and the audit details; the event is `<auditName>.<what>`. lockTwin: the
   * twin's row is held first (see locksTwin).
   */
  async updateWith(
    principal: Principal,
    context: TwinContext,
    id: string,
    what: string,
    lockTwin: boolean,
    change: (current: TwinObject, tx: Tx) => Promise<{ changes: ObjectFields; details: object }>,
  ): Promise<TwinObject> {
    const now = this.twins.now();
    return this.write(context, lockTwin, async (tx) => {
      const current = await this.find(context, id, tx);
      if (!current) throw new ApiError('NotFound', this.notFound);
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
    current: TwinObject,
    changes: ObjectFields,
    now: string,
  ): Promise<TwinObject> {
    const patch = { ...changes, updatedBy: principal.userId, updatedAt: now };
    const { site, draft } = context;
    if (draft) {
      const existing = await this.store.change(draft.id, current.id, tx);
      const next = foldUpdate(folded(existing), patch);
      await this.saveChange(tx, draft.id, current, existing, next, now);
    } else {
      await this.store.replaceObject(
        tx,
        rowOfObject({ ...current, fields: applyPatch(current.fields, patch) }, site.org_id, site.id),
      );
    }
    return { ...current, fields: applyPatch(current.fields, patch) };
  }

  /** alsoInTx runs in the delete's transaction first, with the object as the context shows it. */
  async delete(
    principal: Principal,
    context: TwinContext,
    id: string,
    alsoInTx?: (tx: Tx, current: TwinObject, now: string) => Promise<Record<string, unknown> | undefined>,
  ): Promise<void> {
    const now = this.twins.now();
    // A delete names no zone: it locks the twin only for a kind whose every write does (zones).
    await this.write(context, this.locks({}), async (tx) => {
      const current = await this.find(context, id, tx);
      if (!current) throw new ApiError('NotFound', this.notFound);
      const extra = alsoInTx ? await alsoInTx(tx, current, now) : undefined;
      const { draft } = context;
      if (draft) {
        const existing = await this.store.change(draft.id, id, tx);
        await this.saveChange(tx, draft.id, current, existing, foldDelete(folded(existing)), now);
      } else {
        await this.store.deleteObject(tx, id);
      }
      await this.audit(tx, principal, context, 'deleted', id, { name: current.fields.name, ...extra }, now);
    });
  }

  /** One write transaction; through a draft, its row is locked and checked open first, then the twin's if lockTwin. */
  private write<T>(context: TwinContext, lockTwin: boolean, change: (tx: Tx) => Promise<T>): Promise<T> {
    return this.store.db.transaction().execute(async (tx) => {
      if (context.draft) await this.twins.lockOpen(tx, context.draft.id);
      if (lockTwin) await this.store.lockTwin(tx, context.site.id);
      return change(tx);
    });
  }

  private async saveChange(
    tx: Tx,
    draftId: string,
    object: TwinObject,
    existing: TwinDraftChangeRow | undefined,
    next: FoldedChange | undefined,
    now: string,
  ): Promise<void> {
    const fields = next?.fields == null ? null : JSON.stringify(next.fields);
    if (!next) {
      if (existing) await this.store.deleteChange(tx, existing.id);
    } else if (existing) {
      await this.store.updateChange(tx, existing.id, { kind: next.kind, fields, updated_at: now });
    } else {
      await this.store.insertChange(tx, {
        id: randomUUID(),
        draft_id: draftId,
        object_id: object.id,
        object_type: this.objectType,
        kind: next.kind,
        fields,
        library_model_id: modelOf(object.fields),
        created_at: now,
        updated_at: now,
      });
    }
  }

  /** The write's audit event, and its webhook event when it changed the live twin (a draft's tell at its publish). */
  private async audit(tx: Tx, principal: Principal, context: TwinContext, what: string, id: string, details: object, at: string) {
    const full = { ...details, siteId: context.site.id, draftId: context.draft?.id ?? null };
    await this.twins.audit(tx, principal, `${this.auditName}.${what}`, id, full, at);
    if (context.draft) return;
    const type = what === 'metadata-updated' ? 'metadata.changed' : `${this.objectType}.${what}`;
    if (!isWebhookEventType(type)) return;
    const ids = { siteId: context.site.id, objectType: this.objectType, objectId: id };
    await this.twins.recordEvent(tx, context.site.org_id, type, ids);
  }
}
