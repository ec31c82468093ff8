import type { TwinChangeKind } from '../records/regional.js';
import type { AssetFields, NewAsset } from './kinds/asset.js';
import type { MeasurementFields, NewMeasurement } from './kinds/measurement.js';
import type { ModelAssetFields, NewModelAsset } from './kinds/model-asset.js';
import type { NewPointOfInterest, PointOfInterestFields } from './kinds/point-of-interest.js';
import type { NewZone, ZoneFields } from './kinds/zone.js';
import type { TrailFields } from './object-fields.js';

/** Each kind of twin object (its rules in ./kinds/): the fields it stores and what a create gives. */
interface KindTypes {
  asset: { fields: AssetFields; create: NewAsset };
  pointOfInterest: { fields: PointOfInterestFields; create: NewPointOfInterest };
  zone: { fields: ZoneFields; create: NewZone };
  modelAsset: { fields: ModelAssetFields; create: NewModelAsset };
  measurement: { fields: MeasurementFields; create: NewMeasurement };
}

/** The kinds of twin object, as stored in twin_objects.object_type and named in metadata types. */
export type TwinObjectType = keyof KindTypes;

/** A kind's own fields and the shared ones, as a create stores them (before the trail). */
export type FieldsOf<K extends TwinObjectType> = KindTypes[K]['fields'];

/** A create's body for the kind, as the schema checked it. */
export type CreateOf<K extends TwinObjectType> = KindTypes[K]['create'];

/** The fields as stored and answered: the kind's (with the shared ones) and the trail. */
export type StoredFields<K extends TwinObjectType> = FieldsOf<K> & TrailFields;

/** A patch of an object: each field given replaces the stored one whole (null clears an optional field). */
export type Patch<K extends TwinObjectType> = Partial<FieldsOf<K>> & Partial<TrailFields>;

/**
 * A twin object as drafts and readers see it: its fields by their API names, flat (a kind's own
 * fields beside the shared ones), so a draft's patch replaces whole top-level fields and a live
 * change to a field the draft did not touch still shows through. How they are stored is the
 * repository's (src/adapters/db/repositories/twin-object-rows.ts).
 */
export interface TwinObject<K extends TwinObjectType = TwinObjectType> {
  id: string;
  objectType: K;
  fields: StoredFields<K>;
}

/** An object of any kind, told apart by its objectType. */
export type AnyTwinObject = { [K in TwinObjectType]: TwinObject<K> }[TwinObjectType];

/** A draft's change to one object: the whole object (added), the changed fields (modified), none (removed). */
export type FoldedChange<K extends TwinObjectType> =
  | { kind: 'added'; fields: StoredFields<K> }
  | { kind: 'modified'; fields: Patch<K> }
  | { kind: 'removed'; fields: null };

/** A draft's change as stored: which object, and what the draft does to it. */
export type DraftChange<K extends TwinObjectType = TwinObjectType> = FoldedChange<K> & {
  id: string;
  objectId: string;
  objectType: K;
  /** A model asset's change: the library model it places; null for the other kinds. */
  libraryModelId: string | null;
};

/** A change to an object of any kind, told apart by its objectType. */
export type AnyDraftChange = { [K in TwinObjectType]: DraftChange<K> }[TwinObjectType];

export type { TwinChangeKind };

/** A patch applied: each field given replaces the stored one whole (null clears an optional field). */
export function applyPatch<K extends TwinObjectType>(fields: StoredFields<K>, patch: Patch<K>): StoredFields<K> {
  return { ...fields, ...patch };
}

/** The object as a draft shows it: the live one overlaid by the draft's change; undefined when none. */
export function overlay<K extends TwinObjectType>(
  live: StoredFields<K> | undefined,
  change: FoldedChange<K> | undefined,
): StoredFields<K> | undefined {
  if (!change) return live;
  if (change.kind === 'added') return change.fields;
  if (change.kind === 'removed' || !live) return undefined;
  return applyPatch(live, change.fields);
}

/** The change after a PATCH through the draft of an object the draft's view shows. */
export function foldUpdate<K extends TwinObjectType>(existing: FoldedChange<K> | undefined, patch: Patch<K>): FoldedChange<K> {
  if (!existing) return { kind: 'modified', fields: patch };
  // A removed object is in no view, so no PATCH reaches it: it stays removed.
  if (existing.kind === 'removed') return existing;
  if (existing.kind === 'added') return { kind: 'added', fields: applyPatch(existing.fields, patch) };
  return { kind: 'modified', fields: { ...existing.fields, ...patch } };
}

/** The change after a delete through the draft of an object the draft's view shows: undefined drops the row. */
export function foldDelete<K extends TwinObjectType>(existing: FoldedChange<K> | undefined): FoldedChange<K> | undefined {
  if (existing?.kind === 'added') return undefined;
  return { kind: 'removed', fields: null };
}

/** Objects in list order: createdAt, then id. */
export function byCreation(a: { id: string; fields: TrailFields }, b: { id: string; fields: TrailFields }): number {
  const left = a.fields.createdAt;
  const right = b.fields.createdAt;
  if (left !== right) return left < right ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
