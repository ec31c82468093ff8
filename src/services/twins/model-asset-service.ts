import type { LibraryModelRepository } from '../../adapters/db/repositories/library-model-repository.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import type { LibraryModelRow } from '../../domain/records/regional.js';
import type { CreateOf, TwinObject } from '../../domain/twins/twin-objects.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { LayoutModelAssetService } from '../planning/layout-model-asset-service.js';
import type { PlanningService } from '../planning/planning-service.js';
import type { ModelAssetChanges, ModelPlacementRules } from './model-placement.js';
import type { TwinObjectService } from './twin-object-service.js';
import type { TwinService } from './twin-service.js';

export interface ModelAssetServiceOptions {
  objects: TwinObjectService<'modelAsset'>;
  twins: Pick<TwinService, 'context'>;
  rules: ModelPlacementRules;
  planning: Pick<PlanningService, 'layoutContext'>;
  layouts: LayoutModelAssetService;
  /** Where a placed model's preview is found: its library model's row, and the preview's blob. */
  libraryModels: Pick<LibraryModelRepository, 'find'>;
  blobs: Pick<BlobStore, 'head'>;
}

/** A placed model's preview GLB as stored: its blob's key, size and bare ETag. */
export interface ModelPreviewBlob {
  key: string;
  size: number;
  etag: string;
}

/**
 * Model assets, library models placed in a twin (docs/design/twin-objects.md#model-assets,
 * docs/twins.md "Model assets"), through a twin context like the other kinds, or in a planning
 * layout (a layout id as {ctx}, docs/planning.md), stored apart from the twin's objects. The rules
 * are the placement's (ModelPlacementRules); the library model is checked again in the write's
 * transaction with the model's row held, so a deletion of the model takes turns with the placement.
 * A publish checks the models its added placements name the same way (TwinService.publish).
 */
export class ModelAssetService {
  private readonly objects: TwinObjectService<'modelAsset'>;
  private readonly twins: ModelAssetServiceOptions['twins'];
  private readonly rules: ModelPlacementRules;
  private readonly planning: ModelAssetServiceOptions['planning'];
  private readonly layouts: LayoutModelAssetService;
  private readonly libraryModels: ModelAssetServiceOptions['libraryModels'];
  private readonly blobs: ModelAssetServiceOptions['blobs'];

  constructor(options: ModelAssetServiceOptions) {
    this.objects = options.objects;
    this.twins = options.twins;
    this.rules = options.rules;
    this.planning = options.planning;
    this.layouts = options.layouts;
    this.libraryModels = options.libraryModels;
    this.blobs = options.blobs;
  }

  async list(principal: Principal, contextId: string, limit: number, offset: number): Promise<TwinObject<'modelAsset'>[]> {
    const layout = await this.planning.layoutContext(principal, contextId, 'read');
    if (layout) return this.layouts.list(layout, limit, offset);
    return this.objects.list(await this.twins.context(principal, contextId, 'read'), limit, offset);
  }

  async get(principal: Principal, contextId: string, id: string): Promise<TwinObject<'modelAsset'>> {
    const layout = await this.planning.layoutContext(principal, contextId, 'read');
    if (layout) return this.layouts.get(layout, id);
    return this.objects.get(await this.twins.context(principal, contextId, 'read'), id);
  }

  /**
   * The preview GLB of the library model a model asset places, to whoever may read the model
   * asset (docs/design/meshes.md#model-previews): the twin's read is the permission, no library
   * scope is needed, so an embed session's token shows placed models as themselves. 404 naming
   * why when the model has no preview.
   */
  async preview(principal: Principal, contextId: string, id: string): Promise<ModelPreviewBlob> {
    const { libraryModelId } = (await this.get(principal, contextId, id)).fields;
    const model = await this.libraryModels.find(principal.orgId, libraryModelId);
    if (!model) throw new ApiError('NotFound', `Library model ${libraryModelId} is no longer in this organization's library`);
    if (model.status !== 'ready' || !model.preview_blob_key) throw new ApiError('NotFound', noPreview(model));
    const info = await this.blobs.head(model.preview_blob_key);
    if (!info) throw new ApiError('NotFound', `The preview of library model ${model.id} is no longer stored`);
    return { key: model.preview_blob_key, size: info.size, etag: info.etag };
  }

  async create(principal: Principal, contextId: string, input: CreateOf<'modelAsset'>): Promise<TwinObject<'modelAsset'>> {
    const layout = await this.planning.layoutContext(principal, contextId, 'edit');
    if (layout) return this.layouts.create(principal, layout, input);
    const context = await this.twins.context(principal, contextId, 'edit');
    const fields = this.objects.kind.newFields(input);
    await this.rules.checkMetadataType(principal, fields.metadataTypeId);
    const modelId = fields.libraryModelId;
    // Checked first outside the write too, so the usual refusal costs no lock.
    await this.rules.checkModel(principal.orgId, modelId);
    return this.objects.create(principal, context, fields, (tx) => this.rules.checkModel(principal.orgId, modelId, tx));
  }

  /** Any of name, position, rotation, scale, metadataTypeId and metadata (ModelPlacementRules.patched). */
  async update(principal: Principal, contextId: string, id: string, input: ModelAssetChanges): Promise<TwinObject<'modelAsset'>> {
    const layout = await this.planning.layoutContext(principal, contextId, 'edit');
    if (layout) return this.layouts.update(principal, layout, id, input);
    const context = await this.twins.context(principal, contextId, 'edit');
    const changes = this.rules.normalizedChanges(input);
    await this.rules.checkMetadataType(principal, changes.metadataTypeId);
    return this.objects.updateWith(principal, context, id, 'updated', false, (current, tx) =>
      this.rules.patched(tx, principal, context.site.id, current, changes),
    );
  }

  async delete(principal: Principal, contextId: string, id: string): Promise<void> {
    const layout = await this.planning.layoutContext(principal, contextId, 'edit');
    if (layout) return this.layouts.delete(principal, layout, id);
    await this.objects.delete(principal, await this.twins.context(principal, contextId, 'edit'), id);
  }
}

/** Why a library model has no preview, for the 404's message (docs/asset-library.md, "Previews"). */
function noPreview(model: LibraryModelRow): string {
  const subject = `Library model ${model.id} has no preview`;
  if (model.status === 'processing') return `${subject} yet: it is being made (status processing)`;
  if (model.status === 'failed')
    return `${subject}: making it failed (status failed${model.failure_reason ? `: ${model.failure_reason}` : ''})`;
  if (model.status === 'pendingUpload') return `${subject}: its upload is not finalized (status pendingUpload)`;
  const reason = model.preview_unavailable_reason ?? 'none was made';
  return `${subject}: it is ready without one (${reason})`;
}
