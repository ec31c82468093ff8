import type { SharedFields, TwinObjectKind, Vector3, Viewpoint } from '../object-fields.js';

/** A point of interest: a named point of the twin, perhaps in a zone (docs/twins.md). */
export type PointOfInterestFields = SharedFields & {
  description: string;
  position: Vector3;
  normal: Vector3 | null;
  viewpoint: Viewpoint | null;
  color: string | null;
  icon: string | null;
  zoneId: string | null;
};

/** A create's body: name and position, the rest optional (absent means '' for the description, null for the others). */
export type NewPointOfInterest = Pick<PointOfInterestFields, 'name' | 'position'> &
  Partial<Omit<PointOfInterestFields, 'name' | 'position' | 'metadata'>>;

export const POINT_OF_INTEREST: TwinObjectKind<'pointOfInterest', PointOfInterestFields, NewPointOfInterest> = {
  objectType: 'pointOfInterest',
  auditName: 'point-of-interest',
  notFound: 'Point of interest not found',
  plural: 'points of interest',
  newFields: (input) => ({
    description: '',
    ...input,
    metadata: {},
    normal: input.normal ?? null,
    viewpoint: input.viewpoint ?? null,
    color: input.color ?? null,
    icon: input.icon ?? null,
    zoneId: input.zoneId ?? null,
    metadataTypeId: input.metadataTypeId ?? null,
  }),
  changes: (patch) => patch,
  // A create or PATCH naming a zone holds the twin's row, as zone writes do.
  locksTwin: (fields) => typeof fields.zoneId === 'string',
};
