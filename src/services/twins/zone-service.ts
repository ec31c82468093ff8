import type { Transaction } from 'kysely';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { TwinRepository } from '../../adapters/db/repositories/twin-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { validationError } from '../../domain/errors.js';
import type { CreateOf, Patch, TwinObject } from '../../domain/twins/twin-objects.js';
import { checkZonePlacement, type ZoneParents } from '../../domain/twins/zone-rules.js';
import { checkMetadataTypeApplies } from './metadata-type-check.js';
import type { TwinObjectService } from './twin-object-service.js';
import type { TwinContext, TwinService } from './twin-service.js';

type Tx = Transaction<RegionalSchema>;

/** A zone as answered: its fields and the ids of the zones directly under it, in list order. */
export interface ZoneView extends TwinObject<'zone'> {
  childZoneIds: string[];
}

export interface ZoneTree extends ZoneView {
  children: ZoneTree[];
}

export interface ZoneServiceOptions {
  zones: TwinObjectService<'zone'>;
  /** A zone's delete takes its points of interest out of it. */
  pointsOfInterest: TwinObjectService<'pointOfInterest'>;
  twins: Pick<TwinService, 'context' | 'ensureTwin'>;
  /** A live zone's delete: its children and points of interest changed in place. */
  store: Pick<TwinRepository, 'detachZone'>;
  metadataTypes: Pick<MetadataTypeRepository, 'find' | 'hold'>;
}

/**
 * Zones through a twin context (docs/design/twin-objects.md#zones, docs/twins.md). The schema
 * checks the body's shape and bounds; here the rest: rotations normalised (norm within 1 ± 1e-3),
 * the parent a zone the context shows, no cycle, at most 8 levels, and the metadata type one of the
 * organization for zones. A delete re-attaches the zone's children to its parent and takes its
 * points of interest out of it, in the delete's transaction.
 */
export class ZoneService {
  private readonly zones: TwinObjectService<'zone'>;
  private readonly pointsOfInterest: TwinObjectService<'pointOfInterest'>;
  private readonly twins: ZoneServiceOptions['twins'];
  private readonly store: ZoneServiceOptions['store'];
  private readonly metadataTypes: ZoneServiceOptions['metadataTypes'];

  constructor(options: ZoneServiceOptions) {
    this.zones = options.zones;
    this.pointsOfInterest = options.pointsOfInterest;
    this.twins = options.twins;
    this.store = options.store;
    this.metadataTypes = options.metadataTypes;
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

  async create(principal: Principal, contextId: string, input: CreateOf<'zone'>): Promise<ZoneView> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const fields = this.zones.kind.newFields(input);
    await checkMetadataTypeApplies(this.metadataTypes, principal, fields.metadataTypeId, this.zones.kind);
    // Checked first outside the write too, so a refused zone does not make the twin.
    await this.checkParent(context, undefined, fields);
    await this.twins.ensureTwin(context.site);
    const created = await this.zones.create(principal, context, fields, (tx) => this.checkParent(context, undefined, fields, tx));
    return { ...created, childZoneIds: [] };
  }

  async update(
    principal: Principal,
    contextId: string,
    id: string,
    input: Patch<'zone'> & { dropUnfitting?: boolean },
  ): Promise<ZoneView> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const { dropUnfitting, ...changes } = input;
    const patch = this.zones.kind.changes(changes);
    await this.zones.get(context, id);
    await checkMetadataTypeApplies(this.metadataTypes, principal, patch.metadataTypeId, this.zones.kind);
    await this.checkParent(context, id, patch);
    await this.twins.ensureTwin(context.site);
    await this.zones.update(principal, context, id, patch, {
      checkInTx: (tx) => this.checkParent(context, id, patch, tx),
      dropUnfitting,
    });
    return this.view(context, id);
  }

  async delete(principal: Principal, contextId: string, id: string): Promise<void> {
    const context = await this.twins.context(principal, contextId, 'edit');
    await this.zones.get(context, id);
    await this.twins.ensureTwin(context.site);
    await this.zones.delete(principal, context, id, async (tx, zone, now) => {
      const parentZoneId = zone.fields.parentZoneId ?? null;
      const children = (await this.zones.all(context, tx)).filter((child) => child.fields.parentZoneId === id);
      const points = (await this.pointsOfInterest.all(context, tx)).filter((point) => point.fields.zoneId === id);
      if (context.draft) {
        // As the draft's changes, folded like any other PATCH through it.
        for (const child of children) await this.zones.patchIn(tx, principal, context, child, { parentZoneId }, now);
        for (const point of points) await this.pointsOfInterest.patchIn(tx, principal, context, point, { zoneId: null }, now);
      } else {
        // Two columns set in place, so a concurrent change to the rows' other fields is kept.
        await this.store.detachZone(tx, context.site.id, id, parentZoneId, principal.userId, now);
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
  private async checkParent(context: TwinContext, id: string | undefined, fields: Patch<'zone'>, tx?: Tx): Promise<void> {
    const { parentZoneId } = fields;
    if (typeof parentZoneId !== 'string') return;
    const all = await this.zones.all(context, tx);
    const parents: ZoneParents = new Map(all.map((zone) => [zone.id, zone.fields.parentZoneId ?? null]));
    if (!parents.has(parentZoneId)) throw validationError(`body.parentZoneId: no zone ${parentZoneId} in this context`);
    checkZonePlacement(parents, id ?? '', parentZoneId);
  }
}

/** The zones with their children's ids, from one context's whole set. */
function views(all: TwinObject<'zone'>[]): ZoneView[] {
  const children = new Map<string, string[]>();
  for (const zone of all) {
    const parent = zone.fields.parentZoneId;
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), zone.id]);
  }
  return all.map((zone) => ({ ...zone, childZoneIds: children.get(zone.id) ?? [] }));
}
