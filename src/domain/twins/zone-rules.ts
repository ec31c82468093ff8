import { ApiError } from '../errors.js';

/** Zones nest at most this deep; a top-level zone is level 1 (docs/design/twin-objects.md#zones). */
export const MAX_ZONE_DEPTH = 8;

/** Each zone of a context and its parent (null: top level). */
export type ZoneParents = ReadonlyMap<string, string | null>;

/** The level of a zone: 1 at the top, its parent's plus one below. */
function level(parents: ZoneParents, id: string): number {
  let depth = 0;
  for (let at: string | null | undefined = id; at != null && depth <= parents.size; at = parents.get(at)) depth += 1;
  return depth;
}

/** How many levels the subtree under (and including) a zone spans: 1 for a zone without children. */
function height(children: ReadonlyMap<string, string[]>, id: string): number {
  let tallest = 0;
  for (const child of children.get(id) ?? []) tallest = Math.max(tallest, height(children, child));
  return tallest + 1;
}

export function childrenOf(parents: ZoneParents): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const [id, parent] of parents) {
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(id);
    children.set(parent, list);
  }
  return children;
}

/**
 * Checks putting a zone (a new one when zoneId is not in parents) under parentId: 409
 * CircularityFound when parentId is the zone or inside its subtree, 409 MaxDepthExceeded when
 * the zone's whole subtree would reach below level 8.
 */
export function checkZonePlacement(parents: ZoneParents, zoneId: string, parentId: string | null): void {
  if (parentId === null) {
    if (parents.has(zoneId) && height(childrenOf(parents), zoneId) > MAX_ZONE_DEPTH) throw depthError();
    return;
  }
  for (let at: string | null | undefined = parentId; at != null; at = parents.get(at)) {
    if (at === zoneId) {
      throw new ApiError(
        'CircularityFound',
        `The zone ${parentId} is the zone itself or inside its subtree: it cannot be its parent`,
      );
    }
  }
  const subtree = parents.has(zoneId) ? height(childrenOf(parents), zoneId) : 1;
  if (level(parents, parentId) + subtree > MAX_ZONE_DEPTH) throw depthError();
}

/** A whole context's zones checked at once (after a publish): the first problem found, thrown. */
export function checkZoneForest(parents: ZoneParents): void {
  for (const id of parents.keys()) {
    const seen = new Set<string>();
    for (let at: string | null | undefined = id; at != null; at = parents.get(at)) {
      if (seen.has(at)) throw new ApiError('CircularityFound', `The zones would form a cycle through ${at}`);
      seen.add(at);
    }
    if (seen.size > MAX_ZONE_DEPTH) throw depthError();
  }
}

function depthError(): ApiError {
  return new ApiError('MaxDepthExceeded', `Zones nest at most ${MAX_ZONE_DEPTH} levels deep (a top-level zone is level 1)`);
}

/** A draft's change as publishing sees it: its fields (the whole object, or the changed ones), null for a removal. */
export interface PublishedChange {
  id: string;
  objectId: string;
  kind: string;
  fields: object | null;
}

/** The fields that name a zone: a point of interest's zone, a zone's parent. */
const ZONE_REFERENCES = ['zoneId', 'parentZoneId'] as const;

/** The zone a field of the fields names, if any. */
function zoneNamed(fields: object, field: (typeof ZONE_REFERENCES)[number]): string | undefined {
  const value: unknown = (fields as Partial<Record<typeof field, unknown>>)[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A partial publish may not leave a live object naming a zone the draft adds in a change left
 * out: 409 DraftChangeDependsOn naming the change chosen and the one it needs.
 */
export function checkChangeDependencies(all: PublishedChange[], chosen: PublishedChange[]): void {
  const chosenIds = new Set(chosen.map((change) => change.id));
  const addedLeftOut = new Map(
    all.filter((change) => change.kind === 'added' && !chosenIds.has(change.id)).map((change) => [change.objectId, change.id]),
  );
  for (const change of chosen) {
    if (change.fields === null) continue;
    for (const field of ['parentZoneId', 'zoneId'] as const) {
      const zoneId = zoneNamed(change.fields, field);
      const needed = zoneId === undefined ? undefined : addedLeftOut.get(zoneId);
      if (needed !== undefined) {
        throw new ApiError(
          'DraftChangeDependsOn',
          `The change ${change.id} names in ${field} the zone the draft adds in change ${needed}: publish both`,
        );
      }
    }
  }
}

/**
 * A published change's fields with each zone reference that names no zone of the live twin after
 * the publish (one the live twin deleted after the draft named it) set to null, as a live zone
 * delete clears them; and the fields so cleared. The deleted zone's own parent is gone with its
 * row, so a child goes to the top level rather than to it.
 */
export function withoutMissingZones<F extends object>(fields: F, zoneIds: ReadonlySet<string>): { fields: F; cleared: string[] } {
  const cleared = ZONE_REFERENCES.filter((field) => {
    const zoneId = zoneNamed(fields, field);
    return zoneId !== undefined && !zoneIds.has(zoneId);
  });
  if (cleared.length === 0) return { fields, cleared };
  return { fields: { ...fields, ...Object.fromEntries(cleared.map((field) => [field, null])) }, cleared };
}
