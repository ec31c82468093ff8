import type { SharedFields, TwinObjectKind, Vector3 } from '../object-fields.js';
import { normalizedRotation, type Quaternion } from '../volume-rules.js';

/** A model asset: a model of the organization's library placed in a twin or a planning layout (docs/twins.md). */
export type ModelAssetFields = SharedFields & {
  libraryModelId: string;
  position: Vector3;
  rotation: Quaternion;
  scale: Vector3;
};

export type NewModelAsset = Pick<ModelAssetFields, 'libraryModelId' | 'name' | 'position'> &
  Partial<Pick<ModelAssetFields, 'rotation' | 'scale' | 'metadataTypeId'>>;

const IDENTITY: Quaternion = { x: 0, y: 0, z: 0, w: 1 };
const UNIT_SCALE = { x: 1, y: 1, z: 1 };

/** The fields with a rotation given normalised (or refused, 400 naming body.rotation). */
export function withNormalizedRotation<F extends { rotation?: Quaternion }>(fields: F): F {
  if (fields.rotation === undefined) return fields;
  return { ...fields, rotation: normalizedRotation(fields.rotation, 'body.rotation') };
}

export const MODEL_ASSET: TwinObjectKind<'modelAsset', ModelAssetFields, NewModelAsset> = {
  objectType: 'modelAsset',
  auditName: 'model-asset',
  notFound: 'Model asset not found',
  plural: 'model assets',
  // The defaults: identity rotation, unit scale, no type; the rotation normalised.
  newFields: (input) => ({
    libraryModelId: input.libraryModelId,
    name: input.name,
    position: input.position,
    rotation: normalizedRotation(input.rotation ?? IDENTITY, 'body.rotation'),
    scale: input.scale ?? UNIT_SCALE,
    metadataTypeId: input.metadataTypeId ?? null,
    metadata: {},
  }),
  changes: withNormalizedRotation,
  locksTwin: () => false,
};
