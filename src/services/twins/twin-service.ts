import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { LibraryModelRepository } from '../../adapters/db/repositories/library-model-repository.js';
import type { TwinRepository } from '../../adapters/db/repositories/twin-repository.js';
import type { AuditEventRow, NodeRow, RegionalSchema, TwinDraftRow, TwinRow } from '../../adapters/db/schema.js';
import type { Permission } from '../../domain/access/permissions.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { type AnyDraftChange, applyPatch, type TwinObject } from '../../domain/twins/twin-objects.js';
import { checkChangeDependencies, checkZoneForest, withoutMissingZones } from '../../domain/twins/zone-rules.js';
import type { WebhookEventType } from '../../domain/webhooks/events.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeService } from '../node-service.js';
import type { EventIds, WebhookOutbox } from '../webhooks/webhook-outbox.js';

type Tx = Transaction<RegionalSchema>;

/** What a twin route acts on: a site's live twin, or one of its drafts (draft set). */
export interface TwinContext {
  site: NodeRow;
  draft: TwinDraftRow | undefined;
}

export interface DraftView extends TwinDraftRow {
  changes: { added: number; modified: number; removed: number };
  skipped?: string[];
}

const NO_TWIN = 'No twin with this context id';

export interface TwinServiceOptions {
  clock: Clock;
  twins: TwinRepository;
  /** A publish checks the library models its added placements name. */
  libraryModels: Pick<LibraryModelRepository, 'findForPlacement'>;
  nodes: Pick<NodeService, 'authorize'>;
  audit: Pick<AuditRepository, 'record'>;
  outbox: Pick<WebhookOutbox, 'record'>;
}

/**
 * A site's live twin and its drafts (docs/twins.md). Reading needs read on the site, writing
 * edit; a draft is reached through its site, so its access is the site's.
 */
export class TwinService {
  private readonly clock: Clock;
  private readonly twins: TwinRepository;
  private readonly libraryModels: TwinServiceOptions['libraryModels'];
  private readonly nodes: TwinServiceOptions['nodes'];
  private readonly auditTrail: TwinServiceOptions['audit'];
  private readonly outbox: TwinServiceOptions['outbox'];

  constructor(options: TwinServiceOptions) {
    this.clock = options.clock;
    this.twins = options.twins;
    this.libraryModels = options.libraryModels;
    this.nodes = options.nodes;
    this.auditTrail = options.audit;
    this.outbox = options.outbox;
  }

  /** A webhook event in a twin write's transaction (services/webhooks/webhook-outbox.ts). */
  recordEvent(tx: Tx, orgId: string, type: WebhookEventType, ids: EventIds): Promise<unknown> {
    return this.outbox.record(tx, orgId, type, ids);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Whether the id is one of the organization's drafts (the search reads live twins only). */
  async isDraft(orgId: string, id: string): Promise<boolean> {
    return (await this.twins.findDraft(orgId, id)) !== undefined;
  }

  /** The context a {ctx} names: a draft of the caller's organization, else a site; 404 otherwise. */
  async context(principal: Principal, contextId: string, permission: Permission): Promise<TwinContext> {
    const draft = await this.twins.findDraft(principal.orgId, contextId);
    const site = await this.site(principal, draft?.site_id ?? contextId, permission);
    return { site, draft };
  }

  /** The site a {siteId} names (a draft id is 404 here). */
  async site(principal: Principal, siteId: string, permission: Permission): Promise<NodeRow> {
    const node = await this.nodes.authorize(principal, siteId, permission);
    if (node.kind !== 'site') throw new ApiError('NotFound', NO_TWIN);
    return node;
  }

  /** A context that must be a draft (changes, publish, discard). */
  async draftContext(
    principal: Principal,
    draftId: string,
    permission: Permission,
  ): Promise<TwinContext & { draft: TwinDraftRow }> {
    const draft = await this.twins.findDraft(principal.orgId, draftId);
    if (!draft) throw new ApiError('NotFound', 'Draft not found');
    return { site: await this.site(principal, draft.site_id, permission), draft };
  }

  /** The site's live twin, made on first use and named after the site. */
  async ensureTwin(site: NodeRow): Promise<TwinRow> {
    const now = this.now();
    return this.twins.ensureTwin({
      id: randomUUID(),
      org_id: site.org_id,
      site_id: site.id,
      name: site.name,
      published_at: null,
      created_at: now,
      updated_at: now,
    });
  }

  async get(principal: Principal, contextId: string): Promise<{ twin: TwinRow; draftId: string | null }> {
    const { site, draft } = await this.context(principal, contextId, 'read');
    return { twin: await this.ensureTwin(site), draftId: draft?.id ?? null };
  }

  async listDrafts(principal: Principal, siteId: string, limit: number, offset: number): Promise<DraftView[]> {
    const site = await this.site(principal, siteId, 'read');
    return this.views(await this.twins.listDrafts(site.id, limit, offset));
  }

  async createDraft(principal: Principal, siteId: string, name: string): Promise<DraftView> {
    const site = await this.site(principal, siteId, 'edit');
    const twin = await this.ensureTwin(site);
    const now = this.now();
    const row: TwinDraftRow = {
      id: randomUUID(),
      org_id: site.org_id,
      site_id: site.id,
      twin_id: twin.id,
      name,
      status: 'open',
      created_by: principal.userId,
      created_at: now,
      updated_at: now,
      published_at: null,
    };
    await this.twins.transaction(async (tx) => {
      await this.twins.insertDraft(tx, row);
      await this.audit(tx, principal, 'twin-draft.created', row.id, { siteId: site.id, name }, now);
    });
    return (await this.views([row]))[0] as DraftView;
  }

  async changes(principal: Principal, draftId: string) {
    const { draft } = await this.draftContext(principal, draftId, 'read');
    return (await this.twins.changes(draft.id)).map((change) => ({
      id: change.id,
      objectType: change.objectType,
      objectId: change.objectId,
      kind: change.kind,
    }));
  }

  /**
   * Publishes all the draft's changes, or those named, in one transaction (docs/twins.md): added
   * objects inserted, patches applied to the live rows as they are now, removed objects deleted;
   * a change whose live object is gone meanwhile is skipped and named in `skipped`.
   */
  async publish(principal: Principal, draftId: string, changeIds: string[] | undefined): Promise<DraftView> {
    const { site, draft } = await this.draftContext(principal, draftId, 'edit');
    const now = this.now();
    const skipped: string[] = [];
    await this.twins.transaction(async (tx) => {
      const locked = await this.lockOpen(tx, draft.id);
      // As a zone write does: the draft, then the twin, then objects (docs/twins.md).
      await this.twins.lockTwin(tx, site.id);
      const all = await this.twins.changes(locked.id, tx);
      let chosen = all;
      if (changeIds !== undefined) {
        const known = new Set(all.map((change) => change.id));
        const unknown = changeIds.find((id) => !known.has(id));
        if (unknown !== undefined) throw validationError(`body.changeIds: the draft has no change ${unknown}`);
        const wanted = new Set(changeIds);
        chosen = all.filter((change) => wanted.has(change.id));
        checkChangeDependencies(all, chosen);
      }
      await this.checkPlacedModels(tx, site.org_id, chosen);
      const live = new Map(
        (
          await this.twins.objectsByIds(
            site.id,
            chosen.map((change) => change.objectId),
            tx,
          )
        ).map((object) => [object.id, object]),
      );
      // The zones the live twin holds after the publish: a change naming another (deleted live
      // since the draft named it) has that reference cleared, as the live delete cleared the rest.
      const zoneIds = new Set((await this.twins.allObjects(site.id, 'zone', tx)).map((zone) => zone.id));
      for (const change of chosen) {
        if (change.objectType !== 'zone') continue;
        if (change.kind === 'added') zoneIds.add(change.objectId);
        if (change.kind === 'removed') zoneIds.delete(change.objectId);
      }
      const cleared: { changeId: string; objectId: string; fields: string[] }[] = [];
      const stamp = { updatedBy: principal.userId, updatedAt: now };
      for (const change of chosen) {
        const current = live.get(change.objectId);
        if (change.kind === 'added') {
          const { fields, cleared: gone } = withoutMissingZones(change.fields, zoneIds);
          if (gone.length > 0) cleared.push({ changeId: change.id, objectId: change.objectId, fields: gone });
          const object: TwinObject = { id: change.objectId, objectType: change.objectType, fields: { ...fields, ...stamp } };
          await this.twins.insertObject(tx, site, object);
        } else if (!current) {
          skipped.push(change.id);
        } else if (change.kind === 'modified') {
          const { fields, cleared: gone } = withoutMissingZones(change.fields, zoneIds);
          if (gone.length > 0) cleared.push({ changeId: change.id, objectId: change.objectId, fields: gone });
          const patched: TwinObject = { ...current, fields: applyPatch(current.fields, { ...fields, ...stamp }) };
          await this.twins.replaceObject(tx, site, patched);
        } else {
          // A zone's removal re-attaches the live children and points of interest it has now.
          if (current.objectType === 'zone') {
            await this.twins.detachZone(tx, site.id, current.id, current.fields.parentZoneId, principal.userId, now);
          }
          await this.twins.deleteObject(tx, current.id);
        }
      }
      // Zones' nesting rules hold on the live twin after the publish (it may have moved meanwhile).
      if (chosen.some((change) => change.objectType === 'zone')) {
        const zones = await this.twins.allObjects(site.id, 'zone', tx);
        checkZoneForest(new Map(zones.map((zone) => [zone.id, zone.fields.parentZoneId])));
      }
      await this.twins.updateDraft(tx, locked.id, { status: 'published', updated_at: now, published_at: now });
      const event = { draftId: locked.id, siteId: site.id, published: chosen.length - skipped.length, skipped: skipped.length };
      await this.outbox.record(tx, site.org_id, 'draft.published', event);
      await this.twins.touchTwin(tx, site.id, now);
      await this.audit(
        tx,
        principal,
        'twin-draft.published',
        locked.id,
        {
          siteId: site.id,
          published: chosen.length - skipped.length,
          skipped,
          ...(cleared.length > 0 ? { clearedZoneReferences: cleared } : {}),
        },
        now,
      );
    });
    const [view] = await this.views([{ ...draft, status: 'published', updated_at: now, published_at: now }]);
    return { ...(view as DraftView), skipped };
  }

  /**
   * In a publish's transaction: each library model the published changes place anew still exists
   * (409 LibraryModelDeleted) and is ready (409 LibraryModelNotReady), its row held until the
   * commit as a model asset's create holds it; the whole publish is refused otherwise. Modified
   * placements keep their model (a PATCH cannot name another), which their live row already places.
   */
  private async checkPlacedModels(tx: Tx, orgId: string, changes: AnyDraftChange[]): Promise<void> {
    const checked = new Set<string>();
    for (const change of changes) {
      const modelId = change.libraryModelId;
      if (change.objectType !== 'modelAsset' || change.kind !== 'added' || modelId === null || checked.has(modelId)) continue;
      checked.add(modelId);
      const model = await this.libraryModels.findForPlacement(orgId, modelId, tx);
      if (!model) {
        throw new ApiError(
          'LibraryModelDeleted',
          `Change ${change.id} places library model ${modelId}, which no longer exists: delete that model asset from the draft, then publish`,
        );
      }
      if (model.status !== 'ready') {
        throw new ApiError(
          'LibraryModelNotReady',
          `Change ${change.id} places library model ${modelId}, which is not ready (its status is ${model.status})`,
        );
      }
    }
  }

  async discard(principal: Principal, draftId: string): Promise<DraftView> {
    const { site, draft } = await this.draftContext(principal, draftId, 'edit');
    const now = this.now();
    await this.twins.transaction(async (tx) => {
      await this.lockOpen(tx, draft.id);
      await this.twins.updateDraft(tx, draft.id, { status: 'discarded', updated_at: now });
      await this.audit(tx, principal, 'twin-draft.discarded', draft.id, { siteId: site.id }, now);
    });
    return (await this.views([{ ...draft, status: 'discarded', updated_at: now }]))[0] as DraftView;
  }

  /** The draft's row locked for a change; 409 DraftNotOpen unless it is open. */
  async lockOpen(tx: Tx, draftId: string): Promise<TwinDraftRow> {
    const locked = await this.twins.lockDraft(tx, draftId);
    if (!locked) throw new ApiError('NotFound', 'Draft not found');
    if (locked.status !== 'open') throw new ApiError('DraftNotOpen');
    return locked;
  }

  private async views(rows: TwinDraftRow[]): Promise<DraftView[]> {
    const counts = await this.twins.changeCounts(rows.map((row) => row.id));
    return rows.map((row) => {
      const byKind = counts.get(row.id) ?? {};
      return { ...row, changes: { added: byKind.added ?? 0, modified: byKind.modified ?? 0, removed: byKind.removed ?? 0 } };
    });
  }

  audit(tx: Tx, principal: Principal, action: string, id: string, details: Record<string, unknown>, at: string) {
    // Actions are named <target type>.<what happened>: twin-draft.created, point-of-interest.updated.
    const type = action.slice(0, action.indexOf('.')) as AuditEventRow['target_type'];
    return this.auditTrail.record(tx, {
      orgId: principal.orgId,
      actor: { type: 'principal', id: principal.userId },
      action,
      target: { type, id },
      details,
      at,
    });
  }
}
