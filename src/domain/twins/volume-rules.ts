import { validationError } from '../errors.js';

/** How far a rotation's norm may be from 1 before it is refused rather than normalised (docs/design/twins.md#value-types). */
export const QUATERNION_NORM_TOLERANCE = 1e-3;

export interface Quaternion {
  x: number;
  y: number;
  z: number;
  w: number;
}

interface Box {
  rotation: Quaternion;
  [field: string]: unknown;
}

/**
 * The rotation as stored: divided by its norm, so clients' rounding (a quaternion written with
 * a few digits) does not drift. A norm farther than the tolerance from 1 is not a rotation: the
 * schema cannot say so, this rule answers 400 naming the field (`field` is its path, e.g.
 * body.volume.boxes.2.rotation).
 */
export function normalizedRotation(rotation: Quaternion, field: string): Quaternion {
  const { x, y, z, w } = rotation;
  const norm = Math.hypot(x, y, z, w);
  if (!Number.isFinite(norm) || Math.abs(norm - 1) > QUATERNION_NORM_TOLERANCE) {
    throw validationError(`${field}: the norm of a rotation must be within 1 ± ${QUATERNION_NORM_TOLERANCE} (it is ${norm})`);
  }
  // A rotation already of unit norm but for the last bits of rounding comes back as given: a
  // client's own unit quaternion round-trips exactly instead of drifting by an ulp.
  if (Math.abs(norm - 1) <= 4 * Number.EPSILON) return { x, y, z, w };
  return { x: x / norm, y: y / norm, z: z / norm, w: w / norm };
}

/** A volume with every box's rotation normalised; the first box whose rotation is no rotation is refused. */
export function normalizedVolume<V extends { boxes: Box[] }>(volume: V, field: string): V {
  return {
    ...volume,
    boxes: volume.boxes.map((box, index) => ({
      ...box,
      rotation: normalizedRotation(box.rotation, `${field}.boxes.${index}.rotation`),
    })),
  };
}
