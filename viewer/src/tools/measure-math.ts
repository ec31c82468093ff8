import type { MeasurementKind, MeasurementUnit, Vector3 } from '../protocol.js';

/**
 * A measurement's value from its points, by the formulas of docs/design/measurements.md
 * ("Values"), the ones the platform computes when it saves one. Plain arithmetic, no three.js:
 * the unit tests run it in Node (test/viewer/measure-math.test.ts).
 */

/** How many points each kind takes: finished at `max`, allowed to finish (Enter, double-click) from `min`. */
export const POINT_COUNTS: Record<MeasurementKind, { min: number; max: number }> = {
  distance: { min: 2, max: 2 },
  height: { min: 2, max: 2 },
  polyline: { min: 2, max: 1000 },
  area: { min: 3, max: 1000 },
  angle: { min: 3, max: 3 },
};

export const UNIT_OF: Record<MeasurementKind, MeasurementUnit> = {
  distance: 'm',
  height: 'm',
  polyline: 'm',
  area: 'm2',
  angle: 'deg',
};

export function distanceBetween(a: Vector3, b: Vector3): number {
  return Math.hypot(b.x - a.x, b.y - a.y, b.z - a.z);
}

/** The sum of the segments' lengths. */
export function polylineLength(points: Vector3[]): number {
  let length = 0;
  for (let i = 1; i < points.length; i += 1) length += distanceBetween(points[i - 1]!, points[i]!);
  return length;
}

/** The angle at `vertex` between the rays to `from` and `to`, in degrees (0 when a ray has no length). */
export function angleAt(from: Vector3, vertex: Vector3, to: Vector3): number {
  const u = sub(from, vertex);
  const v = sub(to, vertex);
  const lengths = Math.hypot(u.x, u.y, u.z) * Math.hypot(v.x, v.y, v.z);
  if (lengths === 0) return 0;
  const cosine = Math.min(1, Math.max(-1, (u.x * v.x + u.y * v.y + u.z * v.z) / lengths));
  return (Math.acos(cosine) * 180) / Math.PI;
}

/**
 * The area of the polygon projected on its least-squares plane: the plane through the centroid
 * whose normal is the covariance's eigenvector of the smallest eigenvalue; the points, written in
 * two axes of that plane, give the area by the shoelace formula.
 */
export function planarArea(points: Vector3[]): number {
  if (points.length < 3) return 0;
  const centroid = { x: 0, y: 0, z: 0 };
  for (const p of points) {
    centroid.x += p.x / points.length;
    centroid.y += p.y / points.length;
    centroid.z += p.z / points.length;
  }
  const centred = points.map((p) => sub(p, centroid));
  const covariance = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (const p of centred) {
    const c = [p.x, p.y, p.z];
    for (let i = 0; i < 3; i += 1) for (let j = 0; j < 3; j += 1) covariance[i]![j]! += c[i]! * c[j]!;
  }
  const normal = smallestEigenvector(covariance);
  const axisU = unit(perpendicular(normal));
  const axisV = cross(normal, axisU);
  let twiceArea = 0;
  for (let i = 0; i < centred.length; i += 1) {
    const a = centred[i]!;
    const b = centred[(i + 1) % centred.length]!;
    twiceArea += dot(a, axisU) * dot(b, axisV) - dot(b, axisU) * dot(a, axisV);
  }
  return Math.abs(twiceArea) / 2;
}

/** A measurement's value and unit from its points (the count is the caller's: POINT_COUNTS). */
export function measurementValue(kind: MeasurementKind, points: Vector3[]): { value: number; unit: MeasurementUnit } {
  const unit = UNIT_OF[kind];
  if (kind === 'distance') return { value: distanceBetween(points[0]!, points[1]!), unit };
  if (kind === 'height') return { value: Math.abs(points[1]!.z - points[0]!.z), unit };
  if (kind === 'polyline') return { value: polylineLength(points), unit };
  if (kind === 'area') return { value: planarArea(points), unit };
  return { value: angleAt(points[0]!, points[1]!, points[2]!), unit };
}

/** The value as the viewer shows it, with 2 decimals and its unit. */
export function formatValue(value: number, unit: MeasurementUnit): string {
  if (unit === 'm') return `${value.toFixed(2)} m`;
  if (unit === 'm2') return `${value.toFixed(2)} m²`;
  return `${value.toFixed(2)}°`;
}

/** The eigenvector of a symmetric 3×3 matrix's smallest eigenvalue, by Jacobi rotations. */
function smallestEigenvector(matrix: number[][]): Vector3 {
  const a = matrix.map((row) => [...row]);
  const v = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  for (let sweep = 0; sweep < 50; sweep += 1) {
    const off = a[0]![1]! ** 2 + a[0]![2]! ** 2 + a[1]![2]! ** 2;
    if (off < 1e-30) break;
    for (const [p, q] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ] as const) {
      const apq = a[p]![q]!;
      if (Math.abs(apq) < 1e-300) continue;
      const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k += 1) {
        const akp = a[k]![p]!;
        const akq = a[k]![q]!;
        a[k]![p] = c * akp - s * akq;
        a[k]![q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k += 1) {
        const apk = a[p]![k]!;
        const aqk = a[q]![k]!;
        a[p]![k] = c * apk - s * aqk;
        a[q]![k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k += 1) {
        const vkp = v[k]![p]!;
        const vkq = v[k]![q]!;
        v[k]![p] = c * vkp - s * vkq;
        v[k]![q] = s * vkp + c * vkq;
      }
    }
  }
  let smallest = 0;
  for (let i = 1; i < 3; i += 1) if (a[i]![i]! < a[smallest]![smallest]!) smallest = i;
  return unit({ x: v[0]![smallest]!, y: v[1]![smallest]!, z: v[2]![smallest]! });
}

function sub(a: Vector3, b: Vector3): Vector3 {
  return { x: a.x - b.x, y: a.y - b.y, z: a.z - b.z };
}

function dot(a: Vector3, b: Vector3): number {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

function cross(a: Vector3, b: Vector3): Vector3 {
  return { x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x };
}

function unit(a: Vector3): Vector3 {
  const length = Math.hypot(a.x, a.y, a.z) || 1;
  return { x: a.x / length, y: a.y / length, z: a.z / length };
}

/** Some vector perpendicular to `n`: crossed with the axis it is least along. */
function perpendicular(n: Vector3): Vector3 {
  const ax = Math.abs(n.x);
  const ay = Math.abs(n.y);
  const az = Math.abs(n.z);
  const axis = ax <= ay && ax <= az ? { x: 1, y: 0, z: 0 } : ay <= az ? { x: 0, y: 1, z: 0 } : { x: 0, y: 0, z: 1 };
  return cross(n, axis);
}
