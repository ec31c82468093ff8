import type { Transaction } from 'kysely';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { validationError } from '../../domain/errors.js';
import type { ObjectKind } from '../../domain/metadata/metadata-types.js';
import type { ObjectFields, TwinObject } from '../../domain/twins/twin-objects.js';
import { normalizedVolume } from '../../domain/twins/volume-rules.js';
import { checkZonePlacement, type ZoneParents } from '../../domain/twins/zone-rules.js';
import { TwinObjectService } from './twin-object-service.js';
import type { TwinContext, TwinService } from './twin-service.js';

type Tx = Transaction<RegionalSchema>;

/** A zone as answered: its fields and the ids of the zones directly under it, in list order. */
export interface ZoneView extends TwinObject {
  childZoneIds: string[];
}

export interface ZoneTree extends ZoneView {
  children: ZoneTree[];
}

/** The optional fields of a zone: absent on create means null. */
const OPTIONAL = ['parentZoneId', 'color', 'metadataTypeId'] as const;

/**
 * Zones through a twin context (DESIGN.md section 11, docs/twins.md). The schema checks the
 * body's shape and bounds; here the rest: rotations normalised (norm within 1 ± 1e-3), the
 * parent a zone the context shows, no cycle, at most 8 levels, and the metadata type one of the
 * organization for zones. A delete re-attaches the zone's children to its parent and takes its
 * points of interest out of it, in the delete's transaction.
 */
export class ZoneService {
  private readonly zones: TwinObjectService;
  private readonly pointsOfInterest: TwinObjectService;

  constructor(
    private readonly twins: TwinService,
    private readonly metadataTypes: MetadataTypeRepository,
  ) {
    this.zones = new TwinObjectService(twins, 'zone', 'zone', 'Zone not found', true);
    this.pointsOfInterest = new TwinObjectService(twins, 'pointOfInterest', 'point-of-interest', 'Point of interest not found');
  }

  async list(principal: Principal, contextId: string, limit: number, offset: number): Promise<ZoneView[]> {
    const all = views(await this.zones.all(await this.twins.context(principal, contextId, 'read')));
    return all.slice(offset, offset + limit);
  }

  /** A page of the top-level zones, each with its whole subtree; every level in list order. */
  async tree(principal: Principal, contextId: string, limit: number, offset: number): Promise<ZoneTree[]> {
    const all = views(await this.zones.all(await this.twins.context(principal, contextId, 'read')));
    const byId = new Map(all.map((zone) => [zone.id, zone]));
    const grow = (zone: ZoneView): ZoneTree => ({
      ...zone,
      children: zone.childZoneIds.map((id) => grow(byId.get(id) as ZoneView)),
    });
    return all
      .filter((zone) => zone.fields.parentZoneId === null)
      .slice(offset, offset + limit)
      .map(grow);
  }

  async get(principal: Principal, contextId: string, id: string): Promise<ZoneView> {
    const context = await this.twins.context(principal, contextId, 'read');
    await this.zones.get(context, id);
    return this.view(context, id);
  }

  async create(principal: Principal, contextId: string, input: ObjectFields): Promise<ZoneView> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const fields: ObjectFields = { description: '', ...input, metadata: {} };
    for (const field of OPTIONAL) fields[field] = input[field] ?? null;
    fields.volume = normalizedVolume(input.volume as never, 'body.volume');
    await this.checkMetadataType(principal, fields);
    // Checked first outside the write too, so a refused zone does not make the twin.
    await this.checkParent(context, undefined, fields);
    await this.twins.ensureTwin(context.site);
    const created = await this.zones.create(principal, context, fields, (tx) => this.checkParent(context, undefined, fields, tx));
    return { ...created, childZoneIds: [] };
  }

  async update(principal: Principal, contextId: string, id: string, changes: ObjectFields): Promise<ZoneView> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const patch = { ...changes };
    if (changes.volume !== undefined) patch.volume = normalizedVolume(changes.volume as never, 'body.volume');
    await this.zones.get(context, id);
    await this.checkMetadataType(principal, patch);
    await this.checkParent(context, id, patch);
    await this.twins.ensureTwin(context.site);
    await this.zones.update(principal, context, id, patch, (tx) => this.checkParent(context, id, patch, tx));
    return this.view(context, id);
  }

  async delete(principal: Principal, contextId: string, id: string): Promise<void> {
    const context = await this.twins.context(principal, contextId, 'edit');
    await this.zones.get(context, id);
    await this.twins.ensureTwin(context.site);
    await this.zones.delete(principal, context, id, async (tx, zone, now) => {
      const parentZoneId = (zone.fields.parentZoneId ?? null) as string | null;
      const children = (await this.zones.all(context, tx)).filter((child) => child.fields.parentZoneId === id);
      const points = (await this.pointsOfInterest.all(context, tx)).filter((point) => point.fields.zoneId === id);
      if (context.draft) {
        // As the draft's changes, folded like any other PATCH through it.
        for (const child of children) await this.zones.patchIn(tx, principal, context, child, { parentZoneId }, now);
        for (const point of points) await this.pointsOfInterest.patchIn(tx, principal, context, point, { zoneId: null }, now);
      } else {
        // Two columns set in place, so a concurrent change to the rows' other fields is kept.
        await this.twins.twins.detachZone(tx, context.site.id, id, parentZoneId, principal.userId, now);
      }
      return { reattachedZoneIds: children.map((child) => child.id), clearedPointOfInterestIds: points.map((p) => p.id) };
    });
  }

  private async view(context: TwinContext, id: string): Promise<ZoneView> {
    const found = views(await this.zones.all(context)).find((zone) => zone.id === id);
    return found ?? { ...(await this.zones.get(context, id)), childZoneIds: [] };
  }

  /**
   * In the write's transaction, the twin's row held: the parent is a zone the context shows
   * (400 naming parentZoneId), not the zone or under it (409 CircularityFound), and the zone's
   * whole subtree stays within 8 levels (409 MaxDepthExceeded).
   */
  private async checkParent(context: TwinContext, id: string | undefined, fields: ObjectFields, tx?: Tx): Promise<void> {
    const { parentZoneId } = fields;
    if (typeof parentZoneId !== 'string') return;
    const all = await this.zones.all(context, tx);
    const parents: ZoneParents = new Map(all.map((zone) => [zone.id, (zone.fields.parentZoneId ?? null) as string | null]));
    if (!parents.has(parentZoneId)) throw validationError(`body.parentZoneId: no zone ${parentZoneId} in this context`);
    checkZonePlacement(parents, id ?? '', parentZoneId);
  }

  /** The metadata type, if one is named: the organization's, for zones (400 naming metadataTypeId). */
  private async checkMetadataType(principal: Principal, fields: ObjectFields): Promise<void> {
    const { metadataTypeId } = fields;
    if (typeof metadataTypeId === 'string') {
      const type = await this.metadataTypes.find(principal.orgId, metadataTypeId);
      if (!type) throw validationError(`body.metadataTypeId: no metadata type ${metadataTypeId} in this organization`);
      const kinds = JSON.parse(type.applies_to) as ObjectKind[];
      if (!kinds.includes('zone')) {
        throw validationError(`body.metadataTypeId: metadata type ${metadataTypeId} does not apply to zones`);
      }
    }
  }
}

/** The zones with their children's ids, from one context's whole set. */
function views(all: TwinObject[]): ZoneView[] {
  const children = new Map<string, string[]>();
  for (const zone of all) {
    const parent = zone.fields.parentZoneId as string | null;
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), zone.id]);
  }
  return all.map((zone) => ({ ...zone, childZoneIds: children.get(zone.id) ?? [] }));
}
