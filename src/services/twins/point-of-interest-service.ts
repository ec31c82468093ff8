import type { Transaction } from 'kysely';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { validationError } from '../../domain/errors.js';
import type { ObjectKind } from '../../domain/metadata/metadata-types.js';
import type { ObjectFields, TwinObject } from '../../domain/twins/twin-objects.js';
import { TwinObjectService } from './twin-object-service.js';
import type { TwinContext, TwinService } from './twin-service.js';

type Tx = Transaction<RegionalSchema>;

/** The optional fields of a point of interest: absent on create means null. */
const OPTIONAL = ['normal', 'viewpoint', 'color', 'icon', 'zoneId', 'metadataTypeId'] as const;

/** A create or PATCH naming a zone holds the twin's row, as zone writes do (docs/twins.md, "Locks"). */
const namesZone = (fields: ObjectFields) => typeof fields.zoneId === 'string';

/**
 * Points of interest through a twin context (DESIGN.md section 11). The schema checks the body's
 * shape and bounds; here the references: zoneId must name a zone the context shows and
 * metadataTypeId a metadata type of the organization for points of interest (400 naming the field).
 * The zone is checked again in the write's transaction, the twin's row held: a zone deleted
 * meanwhile is then 400 rather than an id left naming no zone.
 */
export class PointOfInterestService {
  private readonly objects: TwinObjectService;
  private readonly zones: TwinObjectService;

  constructor(
    private readonly twins: TwinService,
    private readonly metadataTypes: MetadataTypeRepository,
  ) {
    this.objects = new TwinObjectService(twins, 'pointOfInterest', 'point-of-interest', 'Point of interest not found', namesZone);
    this.zones = new TwinObjectService(twins, 'zone', 'zone', 'Zone not found');
  }

  async list(principal: Principal, contextId: string, limit: number, offset: number): Promise<TwinObject[]> {
    return this.objects.list(await this.twins.context(principal, contextId, 'read'), limit, offset);
  }

  async get(principal: Principal, contextId: string, id: string): Promise<TwinObject> {
    return this.objects.get(await this.twins.context(principal, contextId, 'read'), id);
  }

  async create(principal: Principal, contextId: string, input: ObjectFields): Promise<TwinObject> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const fields: ObjectFields = { description: '', ...input, metadata: {} };
    for (const field of OPTIONAL) fields[field] = input[field] ?? null;
    await this.checkReferences(principal, context, fields);
    return this.objects.create(principal, context, fields, (tx) => this.checkZone(context, fields, tx));
  }

  async update(principal: Principal, contextId: string, id: string, changes: ObjectFields): Promise<TwinObject> {
    const context = await this.twins.context(principal, contextId, 'edit');
    await this.checkReferences(principal, context, changes);
    return this.objects.update(principal, context, id, changes, (tx) => this.checkZone(context, changes, tx));
  }

  async delete(principal: Principal, contextId: string, id: string): Promise<void> {
    await this.objects.delete(principal, await this.twins.context(principal, contextId, 'edit'), id);
  }

  /** The zone named, if any, is one the context shows; in a write's transaction (tx), the twin's row is held. */
  private async checkZone(context: TwinContext, fields: ObjectFields, tx?: Tx): Promise<void> {
    const { zoneId } = fields;
    if (typeof zoneId === 'string' && !(await this.zones.find(context, zoneId, tx))) {
      throw validationError(`body.zoneId: no zone ${zoneId} in this context`);
    }
  }

  /** Checked first outside the write too, so the usual refusal costs no lock. */
  private async checkReferences(principal: Principal, context: TwinContext, fields: ObjectFields): Promise<void> {
    await this.checkZone(context, fields);
    const { metadataTypeId } = fields;
    if (typeof metadataTypeId === 'string') {
      const type = await this.metadataTypes.find(principal.orgId, metadataTypeId);
      if (!type) throw validationError(`body.metadataTypeId: no metadata type ${metadataTypeId} in this organization`);
      const kinds = JSON.parse(type.applies_to) as ObjectKind[];
      if (!kinds.includes('pointOfInterest')) {
        throw validationError(`body.metadataTypeId: metadata type ${metadataTypeId} does not apply to points of interest`);
      }
    }
  }
}
