import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { PlanningRepository } from '../../adapters/db/repositories/planning-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { layoutRowOfObject, objectOfLayoutRow } from '../../domain/planning/layout-model-assets.js';
import { applyPatch, type ObjectFields, type TwinObject } from '../../domain/twins/twin-objects.js';
import type { ModelPlacementRules } from '../twins/model-placement.js';
import type { TwinService } from '../twins/twin-service.js';
import type { LayoutContext } from './planning-service.js';

type Tx = Transaction<RegionalSchema>;

const NOT_FOUND = 'Model asset not found';

/**
 * Model assets placed in a planning layout (docs/planning.md): the model-asset routes with a
 * layout id as {ctx}. Stored in planning_model_assets, never in the twin's objects; no drafts.
 * The same rules as a twin's placements (ModelPlacementRules); each write is one transaction
 * that holds the layout's row (so its project's removal takes turns with it) and records its
 * audit event (`model-asset.*`, details naming the layout and project).
 */
export class LayoutModelAssetService {
  constructor(
    private readonly planning: PlanningRepository,
    private readonly twins: TwinService,
    private readonly rules: ModelPlacementRules,
  ) {}

  async list(context: LayoutContext, limit: number, offset: number): Promise<TwinObject[]> {
    return (await this.planning.listModelAssets(context.layout.id, limit, offset)).map(objectOfLayoutRow);
  }

  async get(context: LayoutContext, id: string): Promise<TwinObject> {
    const row = await this.planning.findModelAsset(context.layout.id, id);
    if (!row) throw new ApiError('NotFound', NOT_FOUND);
    return objectOfLayoutRow(row);
  }

  async create(principal: Principal, context: LayoutContext, input: ObjectFields): Promise<TwinObject> {
    const fields = this.rules.createFields(input);
    await this.rules.checkMetadataType(principal, fields.metadataTypeId);
    const modelId = fields.libraryModelId as string;
    // Checked first outside the write too, so the usual refusal costs no lock.
    await this.rules.checkModel(principal.orgId, modelId, this.planning.db);
    const now = this.twins.now();
    const object: TwinObject = {
      id: randomUUID(),
      objectType: 'modelAsset',
      fields: { ...fields, createdBy: principal.userId, updatedBy: principal.userId, createdAt: now, updatedAt: now },
    };
    await this.write(context, async (tx) => {
      await this.rules.checkModel(principal.orgId, modelId, tx);
      await this.planning.insertModelAsset(tx, layoutRowOfObject(object, context.layout));
      await this.audit(tx, principal, context, 'created', object.id, { name: object.fields.name }, now);
    });
    return object;
  }

  async update(principal: Principal, context: LayoutContext, id: string, input: ObjectFields): Promise<TwinObject> {
    const normalized = this.rules.normalizedChanges(input);
    await this.rules.checkMetadataType(principal, normalized.metadataTypeId);
    const now = this.twins.now();
    return this.write(context, async (tx) => {
      const row = await this.planning.findModelAsset(context.layout.id, id, tx, true);
      if (!row) throw new ApiError('NotFound', NOT_FOUND);
      const current = objectOfLayoutRow(row);
      const siteId = context.project.site_id as string;
      const { changes, details } = await this.rules.patched(tx, principal, siteId, current, normalized);
      const updated = {
        ...current,
        fields: applyPatch(current.fields, { ...changes, updatedBy: principal.userId, updatedAt: now }),
      };
      await this.planning.replaceModelAsset(tx, layoutRowOfObject(updated, context.layout));
      await this.audit(tx, principal, context, 'updated', id, details, now);
      return updated;
    });
  }

  async delete(principal: Principal, context: LayoutContext, id: string): Promise<void> {
    const now = this.twins.now();
    await this.write(context, async (tx) => {
      const row = await this.planning.findModelAsset(context.layout.id, id, tx, true);
      if (!row) throw new ApiError('NotFound', NOT_FOUND);
      await this.planning.deleteModelAsset(tx, id);
      await this.audit(tx, principal, context, 'deleted', id, { name: row.name }, now);
    });
  }

  /** One write transaction, the layout's row held first; 404 when the layout went meanwhile (its project removed). */
  private write<T>(context: LayoutContext, change: (tx: Tx) => Promise<T>): Promise<T> {
    return this.planning.db.transaction().execute(async (tx) => {
      if (!(await this.planning.holdLayout(tx, context.layout.id))) throw new ApiError('NotFound', 'Layout not found');
      return change(tx);
    });
  }

  private audit(tx: Tx, principal: Principal, context: LayoutContext, what: string, id: string, details: object, at: string) {
    const full = { ...details, layoutId: context.layout.id, projectId: context.project.id };
    return this.twins.audit(tx, principal, `model-asset.${what}`, id, full, at);
  }
}
