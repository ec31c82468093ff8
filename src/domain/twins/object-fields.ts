import type { MetadataSections } from '../metadata/metadata-values.js';
import type { Quaternion } from './volume-rules.js';

/** The value types the kinds of twin object share (their bounds are the schemas', src/http/routes/twins/twin-value-schemas.ts). */
export type Vector3 = { x: number; y: number; z: number };

export type OrientedBox = { center: Vector3; size: Vector3; rotation: Quaternion };

/** The union of 1 to 64 oriented boxes. */
export type Volume = { boxes: OrientedBox[] };

export type Viewpoint = { position: Vector3; target: Vector3; fov?: number };

/** What every kind stores beside its own fields (columns of twin_objects). */
export type SharedFields = {
  name: string;
  metadataTypeId: string | null;
  metadata: MetadataSections;
};

/** Who made and last changed an object, and when: stamped by the object service on every write. */
export type TrailFields = {
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
};

/**
 * What the object services know of one kind of twin object (docs/architecture.md, "Recipe: a twin
 * object kind"): its names, the fields a create stores, and which writes hold the twin's row. The
 * rules that read the twin or other stores are the kind's service's (e.g. a point of interest's zone).
 */
export interface TwinObjectKind<Type extends string, Fields extends SharedFields, Create> {
  objectType: Type;
  /** The audit actions' and target's name: `<auditName>.created`, `.updated`, `.deleted`, `.metadata-updated`. */
  auditName: string;
  /** The 404 message for an id the context does not show. */
  notFound: string;
  /** The kind in words, plural, as messages name it: "does not apply to points of interest". */
  plural: string;
  /** A create's stored fields: the body with its defaults filled in and its values normalised (or 400 naming the field). */
  newFields(input: Create): Fields;
  /** A PATCH's changes with their values normalised (or 400 naming the field). */
  changes(patch: Partial<Fields>): Partial<Fields>;
  /**
   * A PATCH's changes completed from the object they change, as the write's transaction reads it
   * (a measurement's value measured again from its points and kind), or 400 naming the field.
   */
  patched?(current: Fields, changes: Partial<Fields>): Partial<Fields>;
  /**
   * Whether a write with these fields (a create's, a PATCH's; none for a delete) holds the twin's
   * row first, after the draft's (docs/twins.md, "Locks"): checks that read the zones then take
   * turns with zone writes and publishes.
   */
  locksTwin(fields: Partial<Fields>): boolean;
}
