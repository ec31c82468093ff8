import type { Layer } from './api-types.js';
import type { ClipBox, Vector3 } from './protocol.js';

/** Boxes and points in the twin's frame: the viewer's framing and checks (no three.js). */
export type Bounds = { min: Vector3; max: Vector3 };

/** The scene's origin: the first layer's centre (its box, else its frame's origin), so its coordinates stay small. */
export function sceneOrigin(layers: Layer[]): Vector3 {
  const first = layers[0];
  if (!first) return { x: 0, y: 0, z: 0 };
  const box = first.boundingBox;
  if (!box) return first.frame.origin;
  return { x: (box.min.x + box.max.x) / 2, y: (box.min.y + box.max.y) / 2, z: (box.min.z + box.max.z) / 2 };
}

export function union(boxes: Bounds[]): Bounds {
  const min = { x: Infinity, y: Infinity, z: Infinity };
  const max = { x: -Infinity, y: -Infinity, z: -Infinity };
  for (const box of boxes) {
    for (const axis of ['x', 'y', 'z'] as const) {
      min[axis] = Math.min(min[axis], box.min[axis]);
      max[axis] = Math.max(max[axis], box.max[axis]);
    }
  }
  return { min, max };
}

/** A clip box the shader can use: finite numbers, a size above zero on each axis, a rotation of length 1. */
export function checkBox(box: ClipBox): void {
  const numbers = (value: unknown, keys: string[]) =>
    typeof value === 'object' && value !== null && keys.every((key) => Number.isFinite((value as Record<string, unknown>)[key]));
  const xyz = ['x', 'y', 'z'];
  if (!numbers(box?.center, xyz) || !numbers(box?.size, xyz) || !numbers(box?.rotation, [...xyz, 'w'])) {
    throw new Error('setClipBox takes {center: {x, y, z}, size: {x, y, z}, rotation: {x, y, z, w}} of finite numbers, or null');
  }
  if (box.size.x <= 0 || box.size.y <= 0 || box.size.z <= 0) throw new Error('setClipBox: size must be above 0 on each axis');
  const { x, y, z, w } = box.rotation;
  if (Math.abs(Math.hypot(x, y, z, w) - 1) > 1e-3) throw new Error('setClipBox: rotation must be a unit quaternion');
}

/** A box at least 1 m on each axis: a single point or a flat set of points still frames a space around it. */
export function withMargin(bounds: Bounds): Bounds {
  const min = { ...bounds.min };
  const max = { ...bounds.max };
  for (const axis of ['x', 'y', 'z'] as const) {
    const short = Math.max(0, 1 - (max[axis] - min[axis])) / 2;
    min[axis] -= short;
    max[axis] += short;
  }
  return { min, max };
}

export function offset(point: Vector3, by: number): Vector3 {
  return { x: point.x + by, y: point.y + by, z: point.z + by };
}
