import { medianSpacing, NORMAL_SCALE_PER_PROJECTION_SCALE, PROJECTION_SCALE_PER_SPACING } from './m3c2-scales.js';
import { smallestEigenvector } from './plane-normal.js';
import { PointKdTree } from './point-kd-tree.js';

/**
 * M3C2, the Multiscale Model to Model Cloud Comparison (Lague, Brodu and Leroux, 2013;
 * docs/comparisons-m3c2.md): at each core point, the signed distance between the reference
 * (cloud 1) and the compared cloud (cloud 2) along the local normal, measured between the
 * average positions of each cloud inside a cylinder along that normal, with its level of
 * detection at 95 % confidence. A pure computation over positions held in memory.
 */

export type Vec3 = readonly [number, number, number];

export type M3c2Statistic = 'mean' | 'median';

export interface M3c2Options {
  /** Metres: how far the cylinder reaches either way along the normal (the comparison's maxDistance). */
  maxDepth: number;
  /** D, metres: the diameter of the neighbourhood a normal is fitted to; by default from the spacing. */
  normalScale?: number;
  /** d, metres: the cylinder's diameter; by default from the spacing. */
  projectionScale?: number;
  /** Metres, added to the level of detection; default 0. */
  registrationError?: number;
  /** Fewest points in each cylinder for a distance (default 5); fewer gives NaN. */
  minPoints?: number;
  /** `mean` (default: mean and standard deviation) or `median` (median and interquartile range / 1.349). */
  statistic?: M3c2Statistic;
  /**
   * Whose points within D/2 of a core point its normal is fitted to: `compared` (default: the
   * core points are the compared scan's, which always has points there, whereas the reference
   * has none within D/2 wherever the change exceeds D/2) or `reference` (the paper's, whose core
   * points are the reference's).
   */
  normalSource?: 'reference' | 'compared';
  /** Given normals, x y z per core point (normalized here, used as they point): no fitting. */
  normals?: Float64Array;
  /**
   * Preferred directions for fitted normals, in order: a normal points to the side of the first
   * direction it is not nearly perpendicular to (|cos| ≥ 0.1), the last one deciding anyway.
   * Default +z, then +x, then +y.
   */
  orientation?: readonly Vec3[];
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface M3c2Scales {
  normalScale: number;
  projectionScale: number;
  maxDepth: number;
  /** The reference's median point spacing the defaults came from; null when both scales were given. */
  spacing: number | null;
}

/** Per core point, in the core points' order. */
export interface M3c2Result {
  count: number;
  /** Metres, cloud 2 minus cloud 1 along the normal; NaN without a normal or with too few points. */
  distance: Float64Array;
  /** Metres: 1.96 √(σ1²/n1 + σ2²/n2) + registrationError; NaN where the distance is. */
  lod95: Float64Array;
  /** 1 where |distance| > lod95, else 0 (NaN distances included). */
  significant: Uint8Array;
  /** Unit normals, x y z per core point; NaN where none could be fitted. */
  normals: Float64Array;
  /** Metres: each cylinder's spread along the normal; NaN for an empty cylinder. */
  sigma1: Float64Array;
  sigma2: Float64Array;
  /** Points of each cloud in the cylinder. */
  n1: Uint32Array;
  n2: Uint32Array;
  scales: M3c2Scales;
}

export const M3C2_DEFAULT_MIN_POINTS = 5;
export const M3C2_DEFAULT_ORIENTATION: readonly Vec3[] = [
  [0, 0, 1],
  [1, 0, 0],
  [0, 1, 0],
];
/** Below this |cos| a preferred direction leaves the sign of a normal to the next one. */
const ORIENTATION_COSINE = 0.1;
/** The interquartile range of a normal distribution, in standard deviations. */
const IQR_PER_SIGMA = 1.349;
const Z95 = 1.96;
const PROGRESS_EVERY = 1024;

/**
 * M3C2 distances at `corePoints` (x y z each) from `reference` (cloud 1) to `compared`
 * (cloud 2), given as positions or as k-d trees already built over them.
 */
export function m3c2(
  reference: Float64Array | PointKdTree,
  compared: Float64Array | PointKdTree,
  corePoints: Float64Array,
  options: M3c2Options,
): M3c2Result {
  checkOptions(corePoints, options);
  const tree1 = reference instanceof PointKdTree ? reference : new PointKdTree(reference);
  const tree2 = compared instanceof PointKdTree ? compared : new PointKdTree(compared);
  const scales = m3c2Scales(tree1, options);
  const count = corePoints.length / 3;
  const result: M3c2Result = {
    count,
    distance: new Float64Array(count).fill(Number.NaN),
    lod95: new Float64Array(count).fill(Number.NaN),
    significant: new Uint8Array(count),
    normals: new Float64Array(count * 3).fill(Number.NaN),
    sigma1: new Float64Array(count).fill(Number.NaN),
    sigma2: new Float64Array(count).fill(Number.NaN),
    n1: new Uint32Array(count),
    n2: new Uint32Array(count),
    scales,
  };
  const minPoints = options.minPoints ?? M3C2_DEFAULT_MIN_POINTS;
  const registrationError = options.registrationError ?? 0;
  const orientation = options.orientation ?? M3C2_DEFAULT_ORIENTATION;
  const normalTree = options.normalSource === 'reference' ? tree1 : tree2;
  const fitNormal = normalFitter(normalTree, scales.normalScale / 2, orientation);
  const measure = cylinderMeasure(options.statistic ?? 'mean', scales.projectionScale / 2, scales.maxDepth);
  const normal = new Float64Array(3);
  const stats1 = { n: 0, center: 0, sigma: 0 };
  const stats2 = { n: 0, center: 0, sigma: 0 };

  for (let i = 0; i < count; i += 1) {
    if (i % PROGRESS_EVERY === 0) {
      options.signal?.throwIfAborted();
      options.onProgress?.(i / count);
    }
    const x = corePoints[i * 3]!;
    const y = corePoints[i * 3 + 1]!;
    const z = corePoints[i * 3 + 2]!;
    const hasNormal = options.normals ? givenNormal(options.normals, i, normal) : fitNormal(x, y, z, normal);
    if (!hasNormal) continue;
    result.normals.set(normal, i * 3);
    measure(tree1, x, y, z, normal, stats1);
    measure(tree2, x, y, z, normal, stats2);
    result.n1[i] = stats1.n;
    result.n2[i] = stats2.n;
    result.sigma1[i] = stats1.sigma;
    result.sigma2[i] = stats2.sigma;
    if (stats1.n < minPoints || stats2.n < minPoints) continue;
    const distance = stats2.center - stats1.center;
    const lod95 =
      Z95 * Math.sqrt((stats1.sigma * stats1.sigma) / stats1.n + (stats2.sigma * stats2.sigma) / stats2.n) + registrationError;
    result.distance[i] = distance;
    result.lod95[i] = lod95;
    result.significant[i] = Math.abs(distance) > lod95 ? 1 : 0;
  }
  options.onProgress?.(1);
  return result;
}

/**
 * The scales M3C2 uses: those given, a missing one from the other (D = 2 d), both missing from
 * the reference's median point spacing s (d = 8 s, D = 16 s).
 */
export function m3c2Scales(
  reference: PointKdTree,
  options: Pick<M3c2Options, 'normalScale' | 'projectionScale' | 'maxDepth'>,
): M3c2Scales {
  const { normalScale, projectionScale, maxDepth } = options;
  if (projectionScale !== undefined && normalScale !== undefined)
    return { normalScale, projectionScale, maxDepth, spacing: null };
  if (projectionScale !== undefined)
    return { normalScale: projectionScale * NORMAL_SCALE_PER_PROJECTION_SCALE, projectionScale, maxDepth, spacing: null };
  if (normalScale !== undefined)
    return { normalScale, projectionScale: normalScale / NORMAL_SCALE_PER_PROJECTION_SCALE, maxDepth, spacing: null };
  const spacing = medianSpacing(reference);
  if (!(spacing > 0))
    throw new RangeError('M3C2 needs its scales: the reference has no two distinct points to measure a spacing from');
  const projection = spacing * PROJECTION_SCALE_PER_SPACING;
  return {
    normalScale: projection * NORMAL_SCALE_PER_PROJECTION_SCALE,
    projectionScale: projection,
    maxDepth,
    spacing,
  };
}

function checkOptions(corePoints: Float64Array, options: M3c2Options): void {
  const positive = (name: string, value: number | undefined): void => {
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      throw new RangeError(`M3C2 ${name} must be a finite number above 0, not ${value}`);
  };
  positive('maxDepth', options.maxDepth);
  positive('normalScale', options.normalScale);
  positive('projectionScale', options.projectionScale);
  const { registrationError, minPoints, normals } = options;
  if (registrationError !== undefined && !(Number.isFinite(registrationError) && registrationError >= 0))
    throw new RangeError(`M3C2 registrationError must be a finite number from 0, not ${registrationError}`);
  if (minPoints !== undefined && !(Number.isInteger(minPoints) && minPoints >= 1))
    throw new RangeError(`M3C2 minPoints must be an integer from 1, not ${minPoints}`);
  if (corePoints.length % 3 !== 0) throw new RangeError('M3C2 core points must be x y z triples');
  if (normals && normals.length !== corePoints.length)
    throw new RangeError('M3C2 normals must be one x y z triple per core point');
}

function givenNormal(normals: Float64Array, i: number, out: Float64Array): boolean {
  const x = normals[i * 3]!;
  const y = normals[i * 3 + 1]!;
  const z = normals[i * 3 + 2]!;
  const norm = Math.hypot(x, y, z);
  if (!(norm > 0 && Number.isFinite(norm))) return false;
  out[0] = x / norm;
  out[1] = y / norm;
  out[2] = z / norm;
  return true;
}

/**
 * Fits the normal at a point to the tree's points within `radius` (at least 3 of them), then
 * orients it; sums are taken relative to the point, which keeps georeferenced coordinates exact.
 */
function normalFitter(
  tree: PointKdTree,
  radius: number,
  orientation: readonly Vec3[],
): (x: number, y: number, z: number, out: Float64Array) => boolean {
  const p = tree.positions;
  // The core point, then the count and sums; a typed array, as numbers captured and changed by a
  // closure would each be boxed anew at every change.
  const sums = new Float64Array(13);
  const add = (index: number): void => {
    const dx = p[index * 3]! - sums[0]!;
    const dy = p[index * 3 + 1]! - sums[1]!;
    const dz = p[index * 3 + 2]! - sums[2]!;
    sums[3] = sums[3]! + 1;
    sums[4] = sums[4]! + dx;
    sums[5] = sums[5]! + dy;
    sums[6] = sums[6]! + dz;
    sums[7] = sums[7]! + dx * dx;
    sums[8] = sums[8]! + dx * dy;
    sums[9] = sums[9]! + dx * dz;
    sums[10] = sums[10]! + dy * dy;
    sums[11] = sums[11]! + dy * dz;
    sums[12] = sums[12]! + dz * dz;
  };
  const directions = orientation.map(([x, y, z]) => {
    const norm = Math.hypot(x, y, z);
    return [x / norm, y / norm, z / norm] as const;
  });
  return (x, y, z, out) => {
    sums.fill(0);
    sums[0] = x;
    sums[1] = y;
    sums[2] = z;
    tree.forEachWithin(x, y, z, radius, add);
    const n = sums[3]!;
    if (n < 3) return false;
    const mx = sums[4]! / n;
    const my = sums[5]! / n;
    const mz = sums[6]! / n;
    const fitted = smallestEigenvector(
      sums[7]! / n - mx * mx,
      sums[8]! / n - mx * my,
      sums[9]! / n - mx * mz,
      sums[10]! / n - my * my,
      sums[11]! / n - my * mz,
      sums[12]! / n - mz * mz,
      out,
    );
    if (!fitted) return false;
    for (let k = 0; k < directions.length; k += 1) {
      const [ox, oy, oz] = directions[k]!;
      const cosine = out[0]! * ox + out[1]! * oy + out[2]! * oz;
      if (Math.abs(cosine) < ORIENTATION_COSINE && k < directions.length - 1) continue;
      if (cosine < 0) {
        out[0] = -out[0]!;
        out[1] = -out[1]!;
        out[2] = -out[2]!;
      }
      break;
    }
    return true;
  };
}

interface CylinderStats {
  n: number;
  /** Mean or median position along the normal, relative to the core point. */
  center: number;
  /** Standard deviation, or interquartile range / 1.349; NaN when empty. */
  sigma: number;
}

/** Measures a cloud's points in the cylinder at a core point (one reusable buffer for medians). */
function cylinderMeasure(
  statistic: M3c2Statistic,
  radius: number,
  halfLength: number,
): (tree: PointKdTree, x: number, y: number, z: number, normal: Float64Array, out: CylinderStats) => void {
  // Count, sum and sum of squares (a typed array: see normalFitter).
  const moments = new Float64Array(3);
  let values = new Float64Array(256);
  const addMoment = (_index: number, along: number): void => {
    moments[0] = moments[0]! + 1;
    moments[1] = moments[1]! + along;
    moments[2] = moments[2]! + along * along;
  };
  const addValue = (_index: number, along: number): void => {
    const n = moments[0]!;
    if (n === values.length) {
      const grown = new Float64Array(values.length * 2);
      grown.set(values);
      values = grown;
    }
    values[n] = along;
    moments[0] = n + 1;
  };
  return (tree, x, y, z, normal, out) => {
    moments.fill(0);
    const visit = statistic === 'mean' ? addMoment : addValue;
    tree.forEachInCylinder(x, y, z, normal[0]!, normal[1]!, normal[2]!, radius, halfLength, visit);
    const n = moments[0]!;
    const sum = moments[1]!;
    const sum2 = moments[2]!;
    out.n = n;
    if (n === 0) {
      out.center = Number.NaN;
      out.sigma = Number.NaN;
    } else if (statistic === 'mean') {
      out.center = sum / n;
      // The population standard deviation, as CloudCompare's M3C2 reports it.
      out.sigma = Math.sqrt(Math.max(0, sum2 / n - out.center * out.center));
    } else {
      const sorted = values.subarray(0, n).sort();
      out.center = median(sorted, 0, n);
      out.sigma = interquartileRange(sorted) / IQR_PER_SIGMA;
    }
  };
}

function median(sorted: Float64Array, start: number, count: number): number {
  const middle = start + (count >> 1);
  return count % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Q3 - Q1, each the median of a half, the middle value shared by both halves for an odd count. */
function interquartileRange(sorted: Float64Array): number {
  const count = sorted.length;
  if (count < 2) return 0;
  const half = (count + 1) >> 1;
  return median(sorted, count >> 1, half) - median(sorted, 0, half);
}
