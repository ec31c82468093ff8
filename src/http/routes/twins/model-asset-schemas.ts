import { type Static, Type } from '@sinclair/typebox';
import type { TwinObject } from '../../../domain/twins/twin-objects.js';
import { MetadataPatchBody } from './object-metadata-schemas.js';
import { ContextIdParams, Nullable, ObjectId, ObjectName, ObjectTrailFields, Quaternion, Vector3 } from './twin-value-schemas.js';

/** How far a model may be scaled along each of its axes (DESIGN.md section 11). */
export const SCALE_MINIMUM = 1e-4;
export const SCALE_MAXIMUM = 1e4;

const ScaleFactor = Type.Number({ minimum: SCALE_MINIMUM, maximum: SCALE_MAXIMUM });

export const Scale = Type.Object(
  { x: ScaleFactor, y: ScaleFactor, z: ScaleFactor },
  {
    additionalProperties: false,
    title: 'Scale',
    description: `The model's scale along its own axes, each from ${SCALE_MINIMUM} to ${SCALE_MAXIMUM} (1: as modelled)`,
  },
);

const LibraryModelId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "A model of the organization's asset library whose status is ready",
});

export const CreateModelAssetBody = Type.Object(
  {
    libraryModelId: LibraryModelId,
    name: ObjectName,
    position: Vector3,
    rotation: Type.Optional(Quaternion),
    scale: Type.Optional(Scale),
    metadataTypeId: Type.Optional(Nullable(ObjectId)),
  },
  { additionalProperties: false },
);

export const UpdateModelAssetBody = Type.Object(
  {
    name: Type.Optional(ObjectName),
    position: Type.Optional(Vector3),
    rotation: Type.Optional(Quaternion),
    scale: Type.Optional(Scale),
    metadataTypeId: Type.Optional(Nullable(ObjectId)),
    // As the object metadata route's body.sections: a JSON Merge Patch of the sections.
    metadata: Type.Optional(MetadataPatchBody.properties.sections),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ModelAssetSchema = Type.Object(
  {
    id: Type.String(),
    libraryModelId: Type.String(),
    name: Type.String(),
    position: Vector3,
    rotation: Quaternion,
    scale: Scale,
    metadataTypeId: Nullable(Type.String()),
    ...ObjectTrailFields,
  },
  { $id: 'ModelAsset', title: 'ModelAsset' },
);

export const ModelAssetParams = Type.Object({
  ...ContextIdParams.properties,
  modelAssetId: ObjectId,
});

type ModelAssetBody = Static<typeof ModelAssetSchema>;

export function toModelAssetBody(object: TwinObject, withMetadata: boolean): ModelAssetBody {
  const f = object.fields as unknown as Omit<ModelAssetBody, 'id'>;
  return {
    id: object.id,
    libraryModelId: f.libraryModelId,
    name: f.name,
    position: f.position,
    rotation: f.rotation,
    scale: f.scale,
    metadataTypeId: f.metadataTypeId,
    ...(withMetadata ? { metadata: f.metadata ?? {} } : {}),
    createdBy: f.createdBy,
    updatedBy: f.updatedBy,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}
