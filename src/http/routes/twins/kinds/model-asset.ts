import { type Static, Type } from '@sinclair/typebox';
import type { TwinObject } from '../../../../domain/twins/twin-objects.js';
import { MetadataPatchBody } from '../object-metadata-schemas.js';
import type { TwinObjectRoutes } from '../twin-object-routes.js';
import {
  DropUnfitting,
  Nullable,
  ObjectId,
  ObjectName,
  ObjectTrailFields,
  objectTrail,
  Quaternion,
  RETYPE_TEXT,
  Vector3,
} from '../twin-value-schemas.js';

/** How far a model may be scaled along each of its axes (docs/design/twin-objects.md#model-assets). */
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
    dropUnfitting: Type.Optional(DropUnfitting),
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

type ModelAssetBody = Static<typeof ModelAssetSchema>;

export function toModelAssetBody(object: TwinObject<'modelAsset'>, withMetadata: boolean): ModelAssetBody {
  const f = object.fields;
  return {
    id: object.id,
    libraryModelId: f.libraryModelId,
    name: f.name,
    position: f.position,
    rotation: f.rotation,
    scale: f.scale,
    metadataTypeId: f.metadataTypeId,
    ...objectTrail(f, withMetadata),
  };
}

const CONTEXT =
  "contextId is a site id (the live twin), a draft id (the draft's view: writes change only the draft), or a planning layout id (the model assets placed in that layout, kept apart from the twin's; access is the project node's: read, edit).";
const RULES =
  '400 ValidationError naming the field: a rotation whose norm is not within 1 ± 0.001 (body.rotation; one within is stored normalised), or metadataTypeId (no such type in the organization, or one that does not apply to model assets). 409 DraftNotOpen: the draft is published or discarded.';
const WRITE = `${CONTEXT} Needs edit on the site (or the layout's project). ${RULES}`;

/** Model assets: library models placed in a twin or a planning layout (docs/twins.md, docs/planning.md). */
export const MODEL_ASSET_ROUTES: TwinObjectRoutes<
  TwinObject<'modelAsset'>,
  'modelAssetId',
  typeof ModelAssetSchema,
  typeof CreateModelAssetBody,
  typeof UpdateModelAssetBody
> = {
  segment: 'model-assets',
  idParam: 'modelAssetId',
  names: { singular: 'ModelAsset', plural: 'ModelAssets' },
  tag: 'Model assets',
  schemas: { answer: ModelAssetSchema, create: CreateModelAssetBody, update: UpdateModelAssetBody },
  text: {
    list: {
      summary: 'List the model assets of a twin',
      description: `${CONTEXT} Ordered by createdAt, then id. Needs read on the site (or the layout's project).`,
    },
    get: { summary: 'Get a model asset', description: `${CONTEXT} Needs read on the site (or the layout's project).` },
    create: {
      summary: 'Place a library model in a twin',
      description: `rotation defaults to the identity, scale to 1 on each axis. 404: the library model is not the organization's (or does not exist). 409 LibraryModelNotReady: its status is pendingUpload, processing or failed. ${WRITE}`,
    },
    update: {
      summary: 'Move, turn, scale, rename or retype a model asset',
      description: `Any non-empty subset of the fields; each replaces the stored one whole, null clears metadataTypeId. The library model cannot be changed: place another. metadata is a JSON Merge Patch of the sections, checked as PATCH .../object/{objectId}/metadata checks body.sections (400 naming body.metadata.<section>.<property>), against the new type when the same PATCH gives metadataTypeId, merged into what the new type keeps; as free metadata when the object has no type. ${RETYPE_TEXT} ${WRITE}`,
    },
    delete: {
      summary: 'Remove a model asset',
      description: `${CONTEXT} Needs edit on the site (or the layout's project). 409 DraftNotOpen.`,
    },
  },
  service: (services) => services.modelAssets,
  toBody: toModelAssetBody,
};
