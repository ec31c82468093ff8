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

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

const IDENTITY: Quaternion = { x: 0, y: 0, z: 0, w: 1 };
const UNIT_SCALE = { x: 1, y: 1, z: 1 };

/**
 * The rules of placing a library model, wherever it is placed (a twin, a draft, a planning
 * layout): the schema checks the body's shape and bounds; here what it cannot say. The rotation
 * is a rotation (stored normalised), the metadata type applies to model assets, and the library
 * model is the organization's (404) and ready (409 LibraryModelNotReady).
 */
export class ModelPlacementRules {
  constructor(
    private readonly metadataTypes: MetadataTypeRepository,
    private readonly libraryModels: LibraryModelRepository,
    private readonly objectMetadata: ObjectMetadataService,
  ) {}

  /** A create's fields with the defaults filled in (identity rotation, unit scale, no type) and the rotation normalised. */
  createFields(input: ObjectFields): ObjectFields {
    return {
      libraryModelId: input.libraryModelId,
      name: input.name,
      position: input.position,
      rotation: normalizedRotation((input.rotation ?? IDENTITY) as Quaternion, 'body.rotation'),
      scale: input.scale ?? UNIT_SCALE,
      metadataTypeId: input.metadataTypeId ?? null,
      metadata: {},
    };
  }

  /** A PATCH's changes with a given rotation normalised. */
  normalizedChanges(changes: ObjectFields): ObjectFields {
    if (changes.rotation === undefined) return changes;
    return { ...changes, rotation: normalizedRotation(changes.rotation as Quaternion, 'body.rotation') };
  }

  /** The library model is the organization's (else 404) and ready (else 409); in a transaction, its row is held. */
  async checkModel(orgId: string, modelId: string, db: Db): Promise<void> {
    const model = await this.libraryModels.findForPlacement(orgId, modelId, db);
    if (!model) throw new ApiError('NotFound', `Library model not found: no model ${modelId} in this organization's library`);
    if (model.status !== 'ready') {
      throw new ApiError('LibraryModelNotReady', `Library model ${modelId} is not ready (its status is ${model.status})`);
    }
  }

  async checkMetadataType(principal: Principal, metadataTypeId: unknown): Promise<void> {
    if (typeof metadataTypeId !== 'string') return;
    const type = await this.metadataTypes.find(principal.orgId, metadataTypeId);
    if (!type) throw validationError(`body.metadataTypeId: no metadata type ${metadataTypeId} in this organization`);
    const kinds = JSON.parse(type.applies_to) as ObjectKind[];
    if (!kinds.includes('modelAsset')) {
      throw validationError(`body.metadataTypeId: metadata type ${metadataTypeId} does not apply to model assets`);
    }
  }

  /**
   * Inside a PATCH's transaction, with the object as it reads it: the fields to patch and the
   * audit details. Any of name, position, rotation, scale, metadataTypeId and metadata (a JSON
   * Merge Patch of the sections, checked as the object metadata route checks it, against the new
   * type if the same PATCH changes it; attachments must be the site's). Another metadataTypeId
   * (or null) clears the stored sections first, as for every kind.
   */
  async patched(
    tx: Transaction<RegionalSchema>,
    principal: Principal,
    siteId: string,
    current: TwinObject,
    input: ObjectFields,
  ): Promise<{ changes: ObjectFields; details: Record<string, unknown> }> {
    const { metadata: metadataPatch, ...changes } = input;
    const before = (current.fields.metadataTypeId ?? null) as string | null;
    const typeId = changes.metadataTypeId !== undefined ? changes.metadataTypeId : before;
    const retyped = typeId !== before;
    const hadValues = Object.keys((current.fields.metadata ?? {}) as object).length > 0;
    let patch = retyped ? { ...changes, metadata: {} } : changes;
    if (metadataPatch !== undefined) {
      const base = retyped ? {} : current.fields.metadata;
      const sections = await this.objectMetadata.patchedSections(
        tx,
        principal,
        siteId,
        typeId,
        base,
        metadataPatch as Record<string, unknown>,
        'body.metadata',
      );
      patch = { ...changes, metadataTypeId: typeId, metadata: sections };
    }
    return {
      changes: patch,
      details: {
        name: current.fields.name,
        changed: Object.keys(input),
        ...(retyped && hadValues ? { metadataCleared: true } : {}),
      },
    };
  }
}
