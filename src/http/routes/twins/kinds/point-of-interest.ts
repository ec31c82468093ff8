import { type Static, Type } from '@sinclair/typebox';
import type { TwinObject } from '../../../../domain/twins/twin-objects.js';
import type { TwinObjectRoutes } from '../twin-object-routes.js';
import {
  Color,
  Description,
  DropUnfitting,
  Icon,
  Nullable,
  ObjectId,
  ObjectName,
  ObjectTrailFields,
  objectTrail,
  RETYPE_TEXT,
  Vector3,
  Viewpoint,
} from '../twin-value-schemas.js';

const ZoneId = ObjectId;

const fields = {
  name: ObjectName,
  description: Description,
  position: Vector3,
  normal: Nullable(Vector3),
  viewpoint: Nullable(Viewpoint),
  color: Nullable(Color),
  icon: Nullable(Icon),
  zoneId: Nullable(ZoneId),
  metadataTypeId: Nullable(ObjectId),
};

export const CreatePointOfInterestBody = Type.Object(
  {
    name: fields.name,
    description: Type.Optional(fields.description),
    position: fields.position,
    normal: Type.Optional(fields.normal),
    viewpoint: Type.Optional(fields.viewpoint),
    color: Type.Optional(fields.color),
    icon: Type.Optional(fields.icon),
    zoneId: Type.Optional(fields.zoneId),
    metadataTypeId: Type.Optional(fields.metadataTypeId),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Pump P-101', description: 'Cooling water pump', position: { x: 14, y: 3.5, z: 1.2 }, color: '#e5484d' }],
  },
);

export const UpdatePointOfInterestBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: Type.Optional(fields.description),
    position: Type.Optional(fields.position),
    normal: Type.Optional(fields.normal),
    viewpoint: Type.Optional(fields.viewpoint),
    color: Type.Optional(fields.color),
    icon: Type.Optional(fields.icon),
    zoneId: Type.Optional(fields.zoneId),
    metadataTypeId: Type.Optional(fields.metadataTypeId),
    dropUnfitting: Type.Optional(DropUnfitting),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const PointOfInterestSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    position: Vector3,
    normal: Nullable(Vector3),
    viewpoint: Nullable(Viewpoint),
    color: Nullable(Type.String()),
    icon: Nullable(Type.String()),
    zoneId: Nullable(Type.String()),
    metadataTypeId: Nullable(Type.String()),
    ...ObjectTrailFields,
  },
  { $id: 'PointOfInterest', title: 'PointOfInterest' },
);

type PointOfInterestBody = Static<typeof PointOfInterestSchema>;

export function toPointOfInterestBody(object: TwinObject<'pointOfInterest'>, withMetadata: boolean): PointOfInterestBody {
  const f = object.fields;
  return {
    id: object.id,
    name: f.name,
    description: f.description,
    position: f.position,
    normal: f.normal,
    viewpoint: f.viewpoint,
    color: f.color,
    icon: f.icon,
    zoneId: f.zoneId,
    metadataTypeId: f.metadataTypeId,
    ...objectTrail(f, withMetadata),
  };
}

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const WRITE = `${CONTEXT} Needs edit on the site. 400 ValidationError naming zoneId (no such zone in the context, also one deleted while the write waited for it) or metadataTypeId (no such type in the organization, or one that does not apply to points of interest). 409 DraftNotOpen: the draft is published or discarded.`;

/** Points of interest: named points of a twin (docs/twins.md). */
export const POINT_OF_INTEREST_ROUTES: TwinObjectRoutes<
  TwinObject<'pointOfInterest'>,
  'pointOfInterestId',
  typeof PointOfInterestSchema,
  typeof CreatePointOfInterestBody,
  typeof UpdatePointOfInterestBody
> = {
  segment: 'points-of-interest',
  idParam: 'pointOfInterestId',
  names: { singular: 'PointOfInterest', plural: 'PointsOfInterest' },
  tag: 'Points of interest',
  schemas: { answer: PointOfInterestSchema, create: CreatePointOfInterestBody, update: UpdatePointOfInterestBody },
  text: {
    list: {
      summary: 'List the points of interest of a twin',
      description: `${CONTEXT} Ordered by createdAt, then id. Needs read on the site.`,
    },
    get: { summary: 'Get a point of interest', description: `${CONTEXT} Needs read on the site.` },
    create: { summary: 'Place a point of interest', description: WRITE },
    update: {
      summary: 'Change a point of interest',
      description: `Any non-empty subset of the fields; each replaces the stored one whole, null clears an optional one. ${RETYPE_TEXT} ${WRITE}`,
    },
    delete: { summary: 'Delete a point of interest', description: `${CONTEXT} Needs edit on the site. 409 DraftNotOpen.` },
  },
  service: (services) => services.pointsOfInterest,
  toBody: toPointOfInterestBody,
};
