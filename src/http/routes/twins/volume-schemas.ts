import { Type } from '@sinclair/typebox';
import { QUATERNION_NORM_TOLERANCE } from '../../../domain/twins/volume-rules.js';
import { Vector3 } from './twin-value-schemas.js';

/** Shared value types for volumes (DESIGN.md section 11); every bound here, so it is in the OpenAPI schema. */
export const SIZE_LIMIT = 1e5;
export const MAX_BOXES = 64;

// A component beyond 1 + tolerance already puts the norm out of bounds; the bound keeps JSON's
// 1e400 (parsed as Infinity) out too. The norm itself is checked by domain/twins/volume-rules.ts.
const QuaternionComponent = Type.Number({ minimum: -1 - QUATERNION_NORM_TOLERANCE, maximum: 1 + QUATERNION_NORM_TOLERANCE });

export const Quaternion = Type.Object(
  { x: QuaternionComponent, y: QuaternionComponent, z: QuaternionComponent, w: QuaternionComponent },
  {
    additionalProperties: false,
    title: 'Quaternion',
    description: `A rotation: norm within 1 ± ${QUATERNION_NORM_TOLERANCE} (else 400 naming the field), stored normalised`,
  },
);

const Extent = Type.Number({ exclusiveMinimum: 0, maximum: SIZE_LIMIT });

export const OrientedBox = Type.Object(
  {
    center: Vector3,
    size: Type.Object(
      { x: Extent, y: Extent, z: Extent },
      { additionalProperties: false, description: `Edge lengths in metres, each > 0 and ≤ ${SIZE_LIMIT}` },
    ),
    rotation: Quaternion,
  },
  { additionalProperties: false, title: 'OrientedBox' },
);

export const Volume = Type.Object(
  { boxes: Type.Array(OrientedBox, { minItems: 1, maxItems: MAX_BOXES }) },
  { additionalProperties: false, title: 'Volume', description: `The union of 1 to ${MAX_BOXES} oriented boxes` },
);
