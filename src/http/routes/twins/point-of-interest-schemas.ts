import { type Static, Type } from '@sinclair/typebox';
import type { TwinObject } from '../../../domain/twins/twin-objects.js';
import {
  Color,
  ContextIdParams,
  Description,
  Icon,
  Nullable,
  ObjectId,
  ObjectName,
  ObjectTrailFields,
  Vector3,
  Viewpoint,
} from './twin-value-schemas.js';

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

export const PointOfInterestParams = Type.Object({
  ...ContextIdParams.properties,
  pointOfInterestId: ObjectId,
});

type PointOfInterestBody = Static<typeof PointOfInterestSchema>;

export function toPointOfInterestBody(object: TwinObject, withMetadata: boolean): PointOfInterestBody {
  const f = object.fields as unknown as Omit<PointOfInterestBody, 'id'>;
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
    ...(withMetadata ? { metadata: f.metadata ?? {} } : {}),
    createdBy: f.createdBy,
    updatedBy: f.updatedBy,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}
