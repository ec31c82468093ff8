import { ok, type Schema } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';

export type Twin = Schema<'Twin'>;
export type PointOfInterest = Schema<'PointOfInterest'>;
export type Zone = Schema<'Zone'>;
export type TwinDraft = Schema<'TwinDraft'>;
export type Measurement = Schema<'Measurement'>;
export type MetadataType = Schema<'MetadataType'>;
export type MetadataProperty = MetadataType['properties'][number];
export type ObjectMetadata = Schema<'ObjectMetadata'>;
export type Vector3 = { x: number; y: number; z: number };
export type ObjectKind = 'pointOfInterest' | 'zone' | 'measurement';

/** The object the panels are about: chosen in a list or in the 3D view. */
export interface Selection {
  kind: ObjectKind;
  id: string;
}

/**
 * Every twin route takes a context (`{contextId}`): the site's id reads and writes the live twin,
 * a draft's id its view (the live twin overlaid by the draft's changes).
 */
export interface TwinContext {
  siteId: string;
  /** The id the twin routes take: the draft's when working in one, else the site's. */
  ctx: string;
  draft: TwinDraft | undefined;
  /** The person may write here: edit on the site, write:hierarchy, and the draft (if any) still open. */
  canWrite: boolean;
}

/**
 * A twin holds few zones (docs/design/twin-objects.md#zones: at most 8 levels, read whole by the
 * platform): one page of this many is all of them.
 */
export const ZONE_LIMIT = 1000;

export function listZones(session: ConsoleSession, ctx: string): Promise<Zone[]> {
  return ok(
    session.api.GET('/v1/twin/{contextId}/zones', { params: { path: { contextId: ctx }, query: { limit: ZONE_LIMIT } } }),
  ) as Promise<Zone[]>;
}

export async function listMetadataTypes(session: ConsoleSession): Promise<MetadataType[]> {
  return ok(session.api.GET('/v1/metadata-types', { params: { query: { limit: 1000 } } }));
}

/** The console address of a site's twin, in one of its drafts when `draftId` is given. */
export function twinHref(siteId: string, draftId?: string): string {
  return `/twins/${siteId}${draftId ? `?draft=${encodeURIComponent(draftId)}` : ''}`;
}

/** The identity rotation: the console draws zones as boxes along the twin's axes. */
export const NO_ROTATION = { x: 0, y: 0, z: 0, w: 1 };

/** The middle of the twin's first layer (where a new object starts), else the frame's origin. */
export function twinCentre(twin: Twin | undefined): Vector3 {
  const box = twin?.layers.find((layer) => layer.boundingBox)?.boundingBox;
  if (!box) return { x: 0, y: 0, z: 0 };
  const mid = (a: number, b: number) => Math.round(((a + b) / 2) * 100) / 100;
  return { x: mid(box.min.x, box.max.x), y: mid(box.min.y, box.max.y), z: mid(box.min.z, box.max.z) };
}

/** The fields whose value differs from the object's: a PATCH sends only those (a draft then records only them). */
export function changedFields<T extends Record<string, unknown>>(before: Record<string, unknown>, after: T): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(after) as (keyof T & string)[]) {
    if (JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null)) changed[key] = after[key];
  }
  return changed;
}
