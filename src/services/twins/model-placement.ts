import type { Transaction } from 'kysely';
import type { LibraryModelRepository } from '../../adapters/db/repositories/library-model-repository.js';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { MODEL_ASSET, withNormalizedRotation } from '../../domain/twins/kinds/model-asset.js';
import type { Patch, TwinObject } from '../../domain/twins/twin-objects.js';
import { checkMetadataTypeApplies, retypedMetadata } from './metadata-type-check.js';
import type { ObjectMetadataService } from './object-metadata-service.js';

type Tx = Transaction<RegionalSchema>;

/**
 * A model asset's PATCH: its fields, `metadata` a JSON Merge Patch of the sections (as the object
 * metadata route's), dropUnfitting as every kind's PATCH takes it (docs/twins.md, "Free metadata").
 */
export type ModelAssetChanges = Omit<Patch<'modelAsset'>, 'metadata'> & {
  metadata?: Record<string, unknown>;
  dropUnfitting?: boolean;
};

export interface ModelPlacementRulesOptions {
  metadataTypes: Pick<MetadataTypeRepository, 'find' | 'hold'>;
  libraryModels: Pick<LibraryModelRepository, 'findForPlacement'>;
  objectMetadata: Pick<ObjectMetadataService, 'patchedSections'>;
}

/**
 * The rules of placing a library model, wherever it is placed (a twin, a draft, a planning
 * layout), that read the stores: the schema checks the body's shape and bounds and the kind
 * (src/domain/twins/kinds/model-asset.ts) fills the defaults and normalises the rotation; here the
 * metadata type applies to model assets, and the library model is the organization's (404) and
 * ready (409 LibraryModelNotReady).
 */
export class ModelPlacementRules {
  private readonly metadataTypes: ModelPlacementRulesOptions['metadataTypes'];
  private readonly libraryModels: ModelPlacementRulesOptions['libraryModels'];
  private readonly objectMetadata: ModelPlacementRulesOptions['objectMetadata'];

  constructor(options: ModelPlacementRulesOptions) {
    this.metadataTypes = options.metadataTypes;
    this.libraryModels = options.libraryModels;
    this.objectMetadata = options.objectMetadata;
  }

  /** A PATCH's changes with a given rotation normalised. */
  normalizedChanges(changes: ModelAssetChanges): ModelAssetChanges {
    return withNormalizedRotation(changes);
  }

  /** The library model is the organization's (else 404) and ready (else 409); in a transaction (tx), its row is held. */
  async checkModel(orgId: string, modelId: string, tx?: Tx): Promise<void> {
    const model = await this.libraryModels.findForPlacement(orgId, modelId, tx);
    if (!model) throw new ApiError('NotFound', `Library model not found: no model ${modelId} in this organization's library`);
    if (model.status !== 'ready') {
      throw new ApiError('LibraryModelNotReady', `Library model ${modelId} is not ready (its status is ${model.status})`);
    }
  }

  /** In a write's transaction (tx), the type's row is held (checkMetadataTypeApplies). */
  async checkMetadataType(principal: Principal, metadataTypeId: unknown, tx?: Tx): Promise<void> {
    await checkMetadataTypeApplies(this.metadataTypes, principal, metadataTypeId, MODEL_ASSET, tx);
  }

  /**
   * Inside a PATCH's transaction, with the object as it reads it: the fields to patch and the
   * audit details. Any of name, position, rotation, scale, metadataTypeId and metadata (a JSON
   * Merge Patch of the sections, checked as the object metadata route checks it, against the new
   * type if the same PATCH changes it; attachments must be the site's). A new metadataTypeId acts
   * on the stored sections first, as for every kind (retypedMetadata): given to a model asset
   * without a type, the free sections that fit it stay (the others refused, or dropped with
   * dropUnfitting); another type, or none, clears them. The PATCH's metadata then merges into what
   * stays.
   */
  async patched(
    tx: Tx,
    principal: Principal,
    siteId: string,
    current: TwinObject<'modelAsset'>,
    input: ModelAssetChanges,
  ): Promise<{ changes: Patch<'modelAsset'>; details: Record<string, unknown> }> {
    const { metadata: metadataPatch, dropUnfitting = false, ...changes } = input;
    const before = current.fields.metadataTypeId ?? null;
    const typeId = changes.metadataTypeId !== undefined ? changes.metadataTypeId : before;
    const retyped = await retypedMetadata(
      this.metadataTypes,
      tx,
      principal,
      MODEL_ASSET,
      current.fields,
      changes.metadataTypeId,
      dropUnfitting,
    );
    let patch: Patch<'modelAsset'> = retyped.metadata ? { ...changes, metadata: retyped.metadata } : changes;
    if (metadataPatch !== undefined) {
      const base = retyped.metadata ?? current.fields.metadata;
      const sections = await this.objectMetadata.patchedSections(
        tx,
        principal,
        siteId,
        typeId,
        base,
        metadataPatch,
        'body.metadata',
      );
      patch = { ...changes, metadataTypeId: typeId, metadata: sections };
    }
    return {
      changes: patch,
      details: {
        name: current.fields.name,
        changed: Object.keys(input).filter((field) => field !== 'dropUnfitting'),
        ...retyped.details,
      },
    };
  }
}
