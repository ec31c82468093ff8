import type { Kysely, Transaction } from 'kysely';
import type { LibraryModelRepository } from '../../adapters/db/repositories/library-model-repository.js';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import type { ObjectKind } from '../../domain/metadata/metadata-types.js';
import type { ObjectFields, TwinObject } from '../../domain/twins/twin-objects.js';
import { normalizedRotation, type Quaternion } from '../../domain/twins/volume-rules.js';
import type { ObjectMetadataService } from './object-metadata-service.js';
import { TwinObjectService } from './twin-object-service.js';
import type { TwinService } from './twin-service.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

const IDENTITY: Quaternion = { x: 0, y: 0, z: 0, w: 1 };
const UNIT_SCALE = { x: 1, y: 1, z: 1 };

/**
 * Model assets, library models placed in a twin (DESIGN.md section 11, docs/twins.md "Model
 * assets"), through a twin context like the other kinds. The schema checks the body's shape and
 * bounds; here the rules it cannot say: the rotation is a rotation (stored normalised), the
 * metadata type applies to model assets, and the library model is the organization's (404) and
 * ready (409 LibraryModelNotReady), checked again in the write's transaction with the model's
 * row held, so a deletion of the model takes turns with the placement. A publish checks the
 * models its added placements name the same way (TwinService.publish).
 */
export class ModelAssetService {
  private readonly objects: TwinObjectService;

  constructor(
    private readonly twins: TwinService,
    private readonly metadataTypes: MetadataTypeRepository,
    private readonly libraryModels: LibraryModelRepository,
    private readonly objectMetadata: ObjectMetadataService,
  ) {
    this.objects = new TwinObjectService(twins, 'modelAsset', 'model-asset', 'Model asset not found');
  }

  async list(principal: Principal, contextId: string, limit: number, offset: number): Promise<TwinObject[]> {
    return this.objects.list(await this.twins.context(principal, contextId, 'read'), limit, offset);
  }

  async get(principal: Principal, contextId: string, id: string): Promise<TwinObject> {
    return this.objects.get(await this.twins.context(principal, contextId, 'read'), id);
  }

  async create(principal: Principal, contextId: string, input: ObjectFields): Promise<TwinObject> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const fields: ObjectFields = {
      libraryModelId: input.libraryModelId,
      name: input.name,
      position: input.position,
      rotation: normalizedRotation((input.rotation ?? IDENTITY) as Quaternion, 'body.rotation'),
      scale: input.scale ?? UNIT_SCALE,
      metadataTypeId: input.metadataTypeId ?? null,
      metadata: {},
    };
    await this.checkMetadataType(principal, fields.metadataTypeId);
    const modelId = fields.libraryModelId as string;
    // Checked first outside the write too, so the usual refusal costs no lock.
    await this.checkModel(principal.orgId, modelId, this.twins.twins.db);
    return this.objects.create(principal, context, fields, (tx) => this.checkModel(principal.orgId, modelId, tx));
  }

  /**
   * Any of name, position, rotation, scale, metadataTypeId and metadata (a JSON Merge Patch of the
   * sections, checked as the object metadata route checks it, against the new type if the same
   * PATCH changes it). Another metadataTypeId (or null) clears the stored sections first, as for
   * every kind.
   */
  async update(principal: Principal, contextId: string, id: string, input: ObjectFields): Promise<TwinObject> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const { metadata: metadataPatch, ...changes } = input;
    if (changes.rotation !== undefined) changes.rotation = normalizedRotation(changes.rotation as Quaternion, 'body.rotation');
    await this.checkMetadataType(principal, changes.metadataTypeId);
    if (metadataPatch === undefined) return this.objects.update(principal, context, id, changes);
    return this.objects.updateWith(principal, context, id, 'updated', false, async (current, tx) => {
      const typeId = changes.metadataTypeId !== undefined ? changes.metadataTypeId : (current.fields.metadataTypeId ?? null);
      const retyped = typeId !== (current.fields.metadataTypeId ?? null);
      const hadValues = Object.keys((current.fields.metadata ?? {}) as object).length > 0;
      const base = retyped ? {} : current.fields.metadata;
      const sections = await this.objectMetadata.patchedSections(
        tx,
        principal,
        context,
        typeId,
        base,
        metadataPatch as Record<string, unknown>,
        'body.metadata',
      );
      return {
        changes: { ...changes, metadataTypeId: typeId, metadata: sections },
        details: {
          name: current.fields.name,
          changed: Object.keys(input),
          ...(retyped && hadValues ? { metadataCleared: true } : {}),
        },
      };
    });
  }

  async delete(principal: Principal, contextId: string, id: string): Promise<void> {
    await this.objects.delete(principal, await this.twins.context(principal, contextId, 'edit'), id);
  }

  /** The library model is the organization's (else 404) and ready (else 409); in a transaction, its row is held. */
  private async checkModel(orgId: string, modelId: string, db: Db): Promise<void> {
    const model = await this.libraryModels.findForPlacement(orgId, modelId, db);
    if (!model) throw new ApiError('NotFound', `Library model not found: no model ${modelId} in this organization's library`);
    if (model.status !== 'ready') {
      throw new ApiError('LibraryModelNotReady', `Library model ${modelId} is not ready (its status is ${model.status})`);
    }
  }

  private async checkMetadataType(principal: Principal, metadataTypeId: unknown): Promise<void> {
    if (typeof metadataTypeId !== 'string') return;
    const type = await this.metadataTypes.find(principal.orgId, metadataTypeId);
    if (!type) throw validationError(`body.metadataTypeId: no metadata type ${metadataTypeId} in this organization`);
    const kinds = JSON.parse(type.applies_to) as ObjectKind[];
    if (!kinds.includes('modelAsset')) {
      throw validationError(`body.metadataTypeId: metadata type ${metadataTypeId} does not apply to model assets`);
    }
  }
}
