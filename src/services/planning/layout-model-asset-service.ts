import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { PlanningRepository } from '../../adapters/db/repositories/planning-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { MODEL_ASSET } from '../../domain/twins/kinds/model-asset.js';
import { applyPatch, type CreateOf, type TwinObject } from '../../domain/twins/twin-objects.js';
import type { Clock } from '../../ports/clock.js';
import type { ModelAssetChanges, ModelPlacementRules } from '../twins/model-placement.js';
import type { TwinService } from '../twins/twin-service.js';
import type { LayoutContext } from './planning-service.js';

type Tx = Transaction<RegionalSchema>;

export interface LayoutModelAssetServiceOptions {
  clock: Clock;
  planning: PlanningRepository;
  rules: ModelPlacementRules;
  /** The audit trail of twin writes (model-asset.* events). */
  twins: Pick<TwinService, 'audit'>;
}

/**
 * Model assets placed in a planning layout (docs/planning.md): the model-asset routes with a
 * layout id as {ctx}. Stored in planning_model_assets, never in the twin's objects; no drafts.
 * The same rules as a twin's placements (ModelPlacementRules); each write is one transaction
 * that holds the layout's row (so its project's removal takes turns with it) and records its
 * audit event (`model-asset.*`, details naming the layout and project).
 */
export class LayoutModelAssetService {
  private readonly clock: Clock;
  private readonly planning: PlanningRepository;
  private readonly rules: ModelPlacementRules;
  private readonly twins: LayoutModelAssetServiceOptions['twins'];

  constructor(options: LayoutModelAssetServiceOptions) {
    this.clock = options.clock;
    this.planning = options.planning;
    this.rules = options.rules;
    this.twins = options.twins;
  }

  async list(context: LayoutContext, limit: number, offset: number): Promise<TwinObject<'modelAsset'>[]> {
    return this.planning.listModelAssets(context.layout.id, limit, offset);
  }

  async get(context: LayoutContext, id: string): Promise<TwinObject<'modelAsset'>> {
    const found = await this.planning.findModelAsset(context.layout.id, id);
    if (!found) throw new ApiError('NotFound', MODEL_ASSET.notFound);
    return found;
  }

  async create(principal: Principal, context: LayoutContext, input: CreateOf<'modelAsset'>): Promise<TwinObject<'modelAsset'>> {
    const fields = MODEL_ASSET.newFields(input);
    await this.rules.checkMetadataType(principal, fields.metadataTypeId);
    const modelId = fields.libraryModelId;
    // Checked first outside the write too, so the usual refusal costs no lock.
    await this.rules.checkModel(principal.orgId, modelId);
    const now = this.now();
    const object: TwinObject<'modelAsset'> = {
      id: randomUUID(),
      objectType: 'modelAsset',
      fields: { ...fields, createdBy: principal.userId, updatedBy: principal.userId, createdAt: now, updatedAt: now },
    };
    await this.write(context, async (tx) => {
      await this.rules.checkModel(principal.orgId, modelId, tx);
      await this.rules.checkMetadataType(principal, fields.metadataTypeId, tx);
      await this.planning.insertModelAsset(tx, context.layout, object);
      await this.audit(tx, principal, context, 'created', object.id, { name: object.fields.name }, now);
    });
    return object;
  }

  async update(
    principal: Principal,
    context: LayoutContext,
    id: string,
    input: ModelAssetChanges,
  ): Promise<TwinObject<'modelAsset'>> {
    const normalized = this.rules.normalizedChanges(input);
    await this.rules.checkMetadataType(principal, normalized.metadataTypeId);
    const now = this.now();
    return this.write(context, async (tx) => {
      const current = await this.planning.findModelAsset(context.layout.id, id, tx, true);
      if (!current) throw new ApiError('NotFound', MODEL_ASSET.notFound);
      const siteId = context.project.site_id as string;
      const { changes, details } = await this.rules.patched(tx, principal, siteId, current, normalized);
      const updated: TwinObject<'modelAsset'> = {
        ...current,
        fields: applyPatch(current.fields, { ...changes, updatedBy: principal.userId, updatedAt: now }),
      };
      await this.planning.replaceModelAsset(tx, context.layout, updated);
      await this.audit(tx, principal, context, 'updated', id, details, now);
      return updated;
    });
  }

  async delete(principal: Principal, context: LayoutContext, id: string): Promise<void> {
    const now = this.now();
    await this.write(context, async (tx) => {
      const current = await this.planning.findModelAsset(context.layout.id, id, tx, true);
      if (!current) throw new ApiError('NotFound', MODEL_ASSET.notFound);
      await this.planning.deleteModelAsset(tx, id);
      await this.audit(tx, principal, context, 'deleted', id, { name: current.fields.name }, now);
    });
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** One write transaction, the layout's row held first; 404 when the layout went meanwhile (its project removed). */
  private write<T>(context: LayoutContext, change: (tx: Tx) => Promise<T>): Promise<T> {
    return this.planning.transaction(async (tx) => {
      if (!(await this.planning.holdLayout(tx, context.layout.id))) throw new ApiError('NotFound', 'Layout not found');
      return change(tx);
    });
  }

  private audit(tx: Tx, principal: Principal, context: LayoutContext, what: string, id: string, details: object, at: string) {
    const full = { ...details, layoutId: context.layout.id, projectId: context.project.id };
    return this.twins.audit(tx, principal, `model-asset.${what}`, id, full, at);
  }
}
