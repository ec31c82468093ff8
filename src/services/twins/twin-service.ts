import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { LibraryModelRepository } from '../../adapters/db/repositories/library-model-repository.js';
import type { TwinRepository } from '../../adapters/db/repositories/twin-repository.js';
import type {
  AuditEventRow,
  NodeRow,
  RegionalSchema,
  TwinDraftChangeRow,
  TwinDraftRow,
  TwinRow,
} from '../../adapters/db/schema.js';
import type { Permission } from '../../domain/access/permissions.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { applyPatch, objectOfRow, rowOfObject } from '../../domain/twins/twin-objects.js';
import { checkChangeDependencies, checkZoneForest, withoutMissingZones } from '../../domain/twins/zone-rules.js';
import type { WebhookEventType } from '../../domain/webhooks/events.js';
import type { Platform, RegionContext } from '../../platform.js';
import type { NodeService } from '../node-service.js';
import type { EventIds } from '../webhooks/webhook-outbox.js';

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

/**
 * A site's live twin and its drafts (docs/twins.md). Reading needs read on the site, writing
 * edit; a draft is reached through its site, so its access is the site's.
 */
export class TwinService {
  constructor(
    private readonly platform: Platform,
    private readonly region: RegionContext,
    private readonly nodes: NodeService,
    readonly twins: TwinRepository,
    private readonly libraryModels: LibraryModelRepository,
  ) {}

  /** A webhook event in a twin write's transaction (services/webhooks/webhook-outbox.ts). */
  recordEvent(tx: Tx, orgId: string, type: WebhookEventType, ids: EventIds): Promise<unknown> {
    return this.region.outbox.record(tx, orgId, type, ids);
  }

  now(): string {
    return this.platform.clock.now().toISOString();
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
    await this.region.store.db.transaction().execute(async (tx) => {
      await this.twins.insertDraft(tx, row);
      await this.audit(tx, principal, 'twin-draft.created', row.id, { siteId: site.id, name }, now);
    });
    return (await this.views([row]))[0] as DraftView;
  }

  async changes(principal: Principal, draftId: string) {
    const { draft } = await this.draftContext(principal, draftId, 'read');
    return (await this.twins.changes(draft.id)).map((change) => ({
      id: change.id,
      objectType: change.object_type,
      objectId: change.object_id,
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
    await this.region.store.db.transaction().execute(async (tx) => {
      const locked = await this.lockOpen(tx, draft.id);
      // As a zone write does: the draft, then the twin, then objects (docs/twins.md).
      await this.twins.lockTwin(tx, site.id);
      const all = await this.twins.changes(locked.id, undefined, tx);
      let chosen = all;
      if (changeIds !== undefined) {
        const known = new Set(all.map((change) => change.id));
        const unknown = changeIds.find((id) => !known.has(id));
        if (unknown !== undefined) throw validationError(`body.changeIds: the draft has no change ${unknown}`);
        const wanted = new Set(changeIds);
        chosen = all.filter((change) => wanted.has(change.id));
        const shape = (change: TwinDraftChangeRow) => ({ ...change, objectId: change.object_id });
        checkChangeDependencies(all.map(shape), chosen.map(shape));
      }
      await this.checkPlacedModels(tx, site.org_id, chosen);
      const live = new Map(
        (
          await this.twins.objectsByIds(
            site.id,
            chosen.map((change) => change.object_id),
            tx,
          )
        ).map((row) => [row.id, row]),
      );
      // The zones the live twin holds after the publish: a change naming another (deleted live
      // since the draft named it) has that reference cleared, as the live delete cleared the rest.
      const zoneIds = new Set((await this.twins.allObjects(site.id, 'zone', tx)).map((zone) => zone.id));
      for (const change of chosen) {
        if (change.object_type !== 'zone') continue;
        if (change.kind === 'added') zoneIds.add(change.object_id);
        if (change.kind === 'removed') zoneIds.delete(change.object_id);
      }
      const cleared: { changeId: string; objectId: string; fields: string[] }[] = [];
      for (const change of chosen) {
        const current = live.get(change.object_id);
        const stored = change.fields === null ? {} : (JSON.parse(change.fields) as Record<string, unknown>);
        const { fields, cleared: clearedFields } = withoutMissingZones(stored, zoneIds);
        if (clearedFields.length > 0 && (change.kind === 'added' || current)) {
          cleared.push({ changeId: change.id, objectId: change.object_id, fields: clearedFields });
        }
        const stamp = { updatedBy: principal.userId, updatedAt: now };
        if (change.kind === 'added') {
          const object = { id: change.object_id, objectType: change.object_type as never, fields: { ...fields, ...stamp } };
          await this.twins.insertObject(tx, rowOfObject(object, site.org_id, site.id));
        } else if (!current) {
          skipped.push(change.id);
        } else if (change.kind === 'modified') {
          const object = objectOfRow(current);
          const patched = { ...object, fields: applyPatch(object.fields, { ...fields, ...stamp }) };
          await this.twins.replaceObject(tx, rowOfObject(patched, site.org_id, site.id));
        } else {
          // A zone's removal re-attaches the live children and points of interest it has now.
          if (current.object_type === 'zone') {
            await this.twins.detachZone(tx, site.id, current.id, current.parent_zone_id, principal.userId, now);
          }
          await this.twins.deleteObject(tx, current.id);
        }
      }
      // Zones' nesting rules hold on the live twin after the publish (it may have moved meanwhile).
      if (chosen.some((change) => change.object_type === 'zone')) {
        const zones = await this.twins.allObjects(site.id, 'zone', tx);
        checkZoneForest(new Map(zones.map((zone) => [zone.id, zone.parent_zone_id])));
      }
      await this.twins.updateDraft(tx, locked.id, { status: 'published', updated_at: now, published_at: now });
      const event = { draftId: locked.id, siteId: site.id, published: chosen.length - skipped.length, skipped: skipped.length };
      await this.region.outbox.record(tx, site.org_id, 'draft.published', event);
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
  private async checkPlacedModels(tx: Tx, orgId: string, changes: TwinDraftChangeRow[]): Promise<void> {
    const checked = new Set<string>();
    for (const change of changes) {
      const modelId = change.library_model_id;
      if (change.object_type !== 'modelAsset' || change.kind !== 'added' || modelId === null || checked.has(modelId)) continue;
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
    await this.region.store.db.transaction().execute(async (tx) => {
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
    return this.region.audit.record(tx, {
      orgId: principal.orgId,
      actor: { type: 'principal', id: principal.userId },
      action,
      target: { type, id },
      details,
      at,
    });
  }
}
