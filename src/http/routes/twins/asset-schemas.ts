import { type Static, Type } from '@sinclair/typebox';
import type { TwinObject } from '../../../domain/twins/twin-objects.js';
import { ContextIdParams, Description, Nullable, ObjectId, ObjectName, ObjectTrailFields, Volume } from './twin-value-schemas.js';

export const CreateAssetBody = Type.Object(
  {
    name: ObjectName,
    description: Type.Optional(Description),
    metadataTypeId: Type.Optional(Nullable(ObjectId)),
    volume: Volume,
  },
  { additionalProperties: false },
);

export const UpdateAssetBody = Type.Object(
  {
    name: Type.Optional(ObjectName),
    description: Type.Optional(Description),
    metadataTypeId: Type.Optional(Nullable(ObjectId)),
    volume: Type.Optional(Volume),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AssetSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    metadataTypeId: Nullable(Type.String()),
    volume: Volume,
    ...ObjectTrailFields,
  },
  { $id: 'Asset', title: 'Asset' },
);

export const AssetParams = Type.Object({
  ...ContextIdParams.properties,
  assetId: ObjectId,
});

type AssetBody = Static<typeof AssetSchema>;

export function toAssetBody(object: TwinObject, withMetadata: boolean): AssetBody {
  const f = object.fields as unknown as Omit<AssetBody, 'id'>;
  return {
    id: object.id,
    name: f.name,
    description: f.description,
    metadataTypeId: f.metadataTypeId,
    volume: f.volume,
    ...(withMetadata ? { metadata: f.metadata ?? {} } : {}),
    createdBy: f.createdBy,
    updatedBy: f.updatedBy,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}
