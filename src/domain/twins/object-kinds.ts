import { ASSET } from './kinds/asset.js';
import { MEASUREMENT } from './kinds/measurement.js';
import { MODEL_ASSET } from './kinds/model-asset.js';
import { POINT_OF_INTEREST } from './kinds/point-of-interest.js';
import { ZONE } from './kinds/zone.js';
import type { TwinObjectKind } from './object-fields.js';
import type { CreateOf, FieldsOf, TwinObjectType } from './twin-objects.js';

/** One kind's rules, by its type. */
export type KindOf<K extends TwinObjectType> = TwinObjectKind<K, FieldsOf<K>, CreateOf<K>>;

/** Every kind of twin object, by its type: the table the object services are built from. */
export const TWIN_OBJECT_KINDS: { [K in TwinObjectType]: KindOf<K> } = {
  asset: ASSET,
  pointOfInterest: POINT_OF_INTEREST,
  zone: ZONE,
  modelAsset: MODEL_ASSET,
  measurement: MEASUREMENT,
};
