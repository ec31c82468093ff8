import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { Principal } from '../../domain/access/principal.js';
import { validationError } from '../../domain/errors.js';
import type { ObjectKind } from '../../domain/metadata/metadata-types.js';
import type { ObjectFields, TwinObject } from '../../domain/twins/twin-objects.js';
import { normalizedVolume, type Quaternion } from '../../domain/twins/volume-rules.js';
import { TwinObjectService } from './twin-object-service.js';
import type { TwinService } from './twin-service.js';

type Volume = { boxes: { rotation: Quaternion }[] };

/**
 * Assets, named volumes drawn on the scan, through a twin context (DESIGN.md section 11). The
 * schema checks the body's shape and bounds; here the rules it cannot say: each box's rotation
 * is a rotation (stored normalised) and metadataTypeId names a metadata type of the organization
 * for assets (400 naming the field).
 */
export class AssetService {
  private readonly objects: TwinObjectService;

  constructor(
    private readonly twins: TwinService,
    private readonly metadataTypes: MetadataTypeRepository,
  ) {
    this.objects = new TwinObjectService(twins, 'asset', 'asset', 'Asset not found');
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
      description: '',
      ...this.checked(input),
      metadataTypeId: input.metadataTypeId ?? null,
      metadata: {},
    };
    await this.checkMetadataType(principal, fields.metadataTypeId);
    return this.objects.create(principal, context, fields);
  }

  async update(principal: Principal, contextId: string, id: string, changes: ObjectFields): Promise<TwinObject> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const checked = this.checked(changes);
    await this.checkMetadataType(principal, checked.metadataTypeId);
    return this.objects.update(principal, context, id, checked);
  }

  async delete(principal: Principal, contextId: string, id: string): Promise<void> {
    await this.objects.delete(principal, await this.twins.context(principal, contextId, 'edit'), id);
  }

  /** The fields with the volume's rotations normalised (or the first that is no rotation refused). */
  private checked(fields: ObjectFields): ObjectFields {
    if (fields.volume === undefined) return fields;
    return { ...fields, volume: normalizedVolume(fields.volume as Volume, 'body.volume') };
  }

  private async checkMetadataType(principal: Principal, metadataTypeId: unknown): Promise<void> {
    if (typeof metadataTypeId !== 'string') return;
    const type = await this.metadataTypes.find(principal.orgId, metadataTypeId);
    if (!type) throw validationError(`body.metadataTypeId: no metadata type ${metadataTypeId} in this organization`);
    const kinds = JSON.parse(type.applies_to) as ObjectKind[];
    if (!kinds.includes('asset')) {
      throw validationError(`body.metadataTypeId: metadata type ${metadataTypeId} does not apply to assets`);
    }
  }
}
