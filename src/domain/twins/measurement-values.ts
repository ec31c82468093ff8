import { validationError } from '../errors.js';
import type { Vector3 } from './object-fields.js';

/** The kinds of measurement and what each measures (docs/design/measurements.md#values). */
export const MEASUREMENT_KINDS = ['distance', 'height', 'polyline', 'area', 'angle'] as const;
export type MeasurementKind = (typeof MEASUREMENT_KINDS)[number];
export type MeasurementUnit = 'm' | 'm2' | 'deg';

/** The most points a measurement takes (a polyline's, an area's). */
export const MAX_MEASUREMENT_POINTS = 1000;

/** How many points each kind takes, and the unit of its value. */
export const MEASUREMENT_RULES: Record<MeasurementKind, { min: number; max: number; unit: MeasurementUnit }> = {
  distance: { min: 2, max: 2, unit: 'm' },
  height: { min: 2, max: 2, unit: 'm' },
  polyline: { min: 2, max: MAX_MEASUREMENT_POINTS, unit: 'm' },
  area: { min: 3, max: MAX_MEASUREMENT_POINTS, unit: 'm2' },
  angle: { min: 3, max: 3, unit: 'deg' },
};

type Point2 = { u: number; v: number };

const sub = (a: Vector3, b: Vector3): Vector3 => ({ x: a.x - b.x, y: a.y - b.y, z: a.z - b.z });
const dot = (a: Vector3, b: Vector3) => a.x * b.x + a.y * b.y + a.z * b.z;
const cross = (a: Vector3, b: Vector3): Vector3 => ({
  x: a.y * b.z - a.z * b.y,
  y: a.z * b.x - a.x * b.z,
  z: a.x * b.y - a.y * b.x,
});
const length = (a: Vector3) => Math.hypot(a.x, a.y, a.z);

/**
 * A measurement's value and unit from its kind and points (twin frame, metres), or 400 naming the
 * field: an unknown kind (`kindField`), a wrong number of points, a coordinate that is not finite,
 * a self-intersecting area polygon or an angle with an arm of no length (`pointsField`).
 */
export function measuredValue(
  kind: string,
  points: Vector3[],
  pointsField = 'body.points',
  kindField = 'body.kind',
): { value: number; unit: MeasurementUnit } {
  if (!(MEASUREMENT_KINDS as readonly string[]).includes(kind)) {
    throw validationError(`${kindField}: must be one of ${MEASUREMENT_KINDS.join(', ')}`);
  }
  const rules = MEASUREMENT_RULES[kind as MeasurementKind];
  if (points.length < rules.min || points.length > rules.max) {
    const wanted = rules.min === rules.max ? `${rules.min}` : `${rules.min} to ${rules.max}`;
    const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
    throw validationError(`${pointsField}: ${article} ${kind} measurement takes ${wanted} points (it has ${points.length})`);
  }
  points.forEach((point, index) => {
    for (const axis of ['x', 'y', 'z'] as const) {
      if (!Number.isFinite(point[axis])) throw validationError(`${pointsField}.${index}.${axis}: must be a finite number`);
    }
  });
  const [p0, p1, p2] = points as [Vector3, Vector3, Vector3];
  switch (kind as MeasurementKind) {
    case 'distance':
      return { value: length(sub(p1, p0)), unit: 'm' };
    case 'height':
      return { value: Math.abs(p1.z - p0.z), unit: 'm' };
    case 'polyline':
      return { value: polylineLength(points), unit: 'm' };
    case 'area':
      return { value: planarArea(points, pointsField), unit: 'm2' };
    case 'angle':
      return { value: angleAt(p0, p1, p2, pointsField), unit: 'deg' };
  }
}

export function polylineLength(points: Vector3[]): number {
  let total = 0;
  for (let i = 1; i < points.length; i++) total += length(sub(points[i] as Vector3, points[i - 1] as Vector3));
  return total;
}

/** The angle at p1 between p1→p0 and p1→p2, in degrees (atan2 keeps it exact near 0 and 180). */
export function angleAt(p0: Vector3, p1: Vector3, p2: Vector3, field = 'body.points'): number {
  const a = sub(p0, p1);
  const b = sub(p2, p1);
  if (length(a) === 0 || length(b) === 0) throw validationError(`${field}: an angle's points 0 and 2 must differ from point 1`);
  return (Math.atan2(length(cross(a, b)), dot(a, b)) * 180) / Math.PI;
}

/**
 * The area of the polygon projected on its least-squares plane (the plane through the centroid
 * whose normal is the covariance's eigenvector of least eigenvalue); a polygon whose projection
 * intersects itself (or folds onto a line: no area) is 400 naming the field.
 */
export function planarArea(points: Vector3[], field = 'body.points'): number {
  const n = points.length;
  const centroid = points.reduce((sum, p) => ({ x: sum.x + p.x / n, y: sum.y + p.y / n, z: sum.z + p.z / n }), {
    x: 0,
    y: 0,
    z: 0,
  });
  const centred = points.map((p) => sub(p, centroid));
  const normal = leastSquaresNormal(centred);
  // Any unit vector across the normal, then the third axis of the plane's frame.
  const seed = Math.abs(normal.x) < 0.9 ? { x: 1, y: 0, z: 0 } : { x: 0, y: 1, z: 0 };
  const uAxis = unit(cross(normal, seed));
  const vAxis = cross(normal, uAxis);
  const flat = centred.map((p) => ({ u: dot(p, uAxis), v: dot(p, vAxis) }));
  const crossing = selfIntersection(flat);
  if (crossing) throw validationError(`${field}: the area's polygon intersects itself (edges ${crossing[0]} and ${crossing[1]})`);
  let twice = 0;
  for (let i = 0; i < n; i++) {
    const a = flat[i] as Point2;
    const b = flat[(i + 1) % n] as Point2;
    twice += a.u * b.v - b.u * a.v;
  }
  return Math.abs(twice) / 2;
}

function unit(a: Vector3): Vector3 {
  const l = length(a);
  return { x: a.x / l, y: a.y / l, z: a.z / l };
}

type Matrix3 = number[][];

const at = (m: Matrix3, i: number, j: number) => (m[i] as number[])[j] as number;
const set = (m: Matrix3, i: number, j: number, value: number) => {
  (m[i] as number[])[j] = value;
};
const zero3 = (): Matrix3 => [
  [0, 0, 0],
  [0, 0, 0],
  [0, 0, 0],
];

/** The unit eigenvector of the least eigenvalue of the points' scatter matrix (Jacobi rotations on the 3×3). */
export function leastSquaresNormal(centred: Vector3[]): Vector3 {
  const a = zero3();
  for (const p of centred) {
    const c = [p.x, p.y, p.z];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) set(a, i, j, at(a, i, j) + (c[i] as number) * (c[j] as number));
  }
  const v = zero3();
  for (let i = 0; i < 3; i++) set(v, i, i, 1);
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = at(a, 0, 1) ** 2 + at(a, 0, 2) ** 2 + at(a, 1, 2) ** 2;
    const scale = at(a, 0, 0) ** 2 + at(a, 1, 1) ** 2 + at(a, 2, 2) ** 2;
    if (off <= 1e-30 * scale || off === 0) break;
    for (const [p, q] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ] as const) {
      const apq = at(a, p, q);
      if (apq === 0) continue;
      const theta = (at(a, q, q) - at(a, p, p)) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = at(a, k, p);
        const akq = at(a, k, q);
        set(a, k, p, c * akp - s * akq);
        set(a, k, q, s * akp + c * akq);
      }
      for (let k = 0; k < 3; k++) {
        const apk = at(a, p, k);
        const aqk = at(a, q, k);
        set(a, p, k, c * apk - s * aqk);
        set(a, q, k, s * apk + c * aqk);
      }
      for (let k = 0; k < 3; k++) {
        const vkp = at(v, k, p);
        const vkq = at(v, k, q);
        set(v, k, p, c * vkp - s * vkq);
        set(v, k, q, s * vkp + c * vkq);
      }
    }
  }
  let least = 0;
  for (const i of [1, 2]) if (at(a, i, i) < at(a, least, least)) least = i;
  return unit({ x: at(v, 0, least), y: at(v, 1, least), z: at(v, 2, least) });
}

/** Twice the signed area of (a, b, c), as zero when it is within rounding of the edges' lengths. */
function orientation(a: Point2, b: Point2, c: Point2): number {
  const abu = b.u - a.u;
  const abv = b.v - a.v;
  const acu = c.u - a.u;
  const acv = c.v - a.v;
  const value = abu * acv - abv * acu;
  return Math.abs(value) <= 1e-12 * Math.hypot(abu, abv) * Math.hypot(acu, acv) ? 0 : Math.sign(value);
}

/** Whether c, on the line through a and b, lies within the segment's box. */
function within(a: Point2, b: Point2, c: Point2): boolean {
  return Math.min(a.u, b.u) <= c.u && c.u <= Math.max(a.u, b.u) && Math.min(a.v, b.v) <= c.v && c.v <= Math.max(a.v, b.v);
}

function segmentsMeet(a: Point2, b: Point2, c: Point2, d: Point2): boolean {
  const d1 = orientation(c, d, a);
  const d2 = orientation(c, d, b);
  const d3 = orientation(a, b, c);
  const d4 = orientation(a, b, d);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (
    (d1 === 0 && within(c, d, a)) ||
    (d2 === 0 && within(c, d, b)) ||
    (d3 === 0 && within(a, b, c)) ||
    (d4 === 0 && within(a, b, d))
  );
}

/**
 * The first two edges (edge i runs from point i to point i + 1, the last back to point 0) of a
 * closed polygon that meet other than at the point two neighbours share, or undefined when it is
 * simple. Neighbours meet wrongly when they fold back along one line.
 */
export function selfIntersection(points: Point2[]): [number, number] | undefined {
  const n = points.length;
  const edge = (i: number): [Point2, Point2] => [points[i] as Point2, points[(i + 1) % n] as Point2];
  for (let i = 0; i < n; i++) {
    // The neighbour after: shares edge i's end.
    const [a, b] = edge(i);
    const c = (edge((i + 1) % n) as [Point2, Point2])[1];
    const folds = orientation(a, b, c) === 0 && (b.u - a.u) * (c.u - b.u) + (b.v - a.v) * (c.v - b.v) <= 0;
    if (folds) return [i, (i + 1) % n];
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      const [c0, d0] = edge(j);
      if (segmentsMeet(a, b, c0, d0)) return [i, j];
    }
  }
  return undefined;
}
