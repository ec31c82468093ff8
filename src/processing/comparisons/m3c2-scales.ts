import type { PointKdTree } from './point-kd-tree.js';

/**
 * The default M3C2 scales (docs/comparisons-m3c2.md, "Scales"), from the reference's point
 * spacing s: the projection scale (cylinder diameter) d = 8 s, which on a surface sampled every
 * s in a grid holds about 50 points (π 4² s² / s²), about 11 when sampled at random; the normal
 * scale D = 2 d, a neighbourhood wide enough for a plane to smooth the roughness out.
 */
export const PROJECTION_SCALE_PER_SPACING = 8;
export const NORMAL_SCALE_PER_PROJECTION_SCALE = 2;
const SAMPLE = 1000;

/**
 * The median, over a sample of up to 1000 points taken at an even stride, of the distance from
 * a point to its nearest other distinct point (coincident duplicates left out); NaN when no
 * sampled point has one.
 */
export function medianSpacing(tree: PointKdTree, sampleSize = SAMPLE): number {
  const p = tree.positions;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < tree.count; i += 1) {
    for (let axis = 0; axis < 3; axis += 1) {
      const value = p[i * 3 + axis]!;
      if (value < min[axis]!) min[axis] = value;
      if (value > max[axis]!) max[axis] = value;
    }
  }
  const diagonal = Math.hypot(max[0]! - min[0]!, max[1]! - min[1]!, max[2]! - min[2]!);
  if (!(diagonal > 0)) return Number.NaN;
  const stride = Math.max(1, Math.floor(tree.count / sampleSize));
  const spacings: number[] = [];
  // A first radius about the spacing of points spread over a square of the diagonal's side.
  const start = diagonal / Math.sqrt(tree.count);
  const best = new Float64Array(1);
  const keepNearest = (_index: number, squaredDistance: number): void => {
    if (squaredDistance > 0 && squaredDistance < best[0]!) best[0] = squaredDistance;
  };
  for (let i = 0; i < tree.count && spacings.length < sampleSize; i += stride) {
    best[0] = Infinity;
    for (let radius = start; ; radius *= 2) {
      tree.forEachWithin(p[i * 3]!, p[i * 3 + 1]!, p[i * 3 + 2]!, radius, keepNearest);
      if (best[0]! < Infinity || radius > diagonal) break;
    }
    if (best[0]! < Infinity) spacings.push(Math.sqrt(best[0]!));
  }
  if (spacings.length === 0) return Number.NaN;
  spacings.sort((x, y) => x - y);
  return spacings[Math.floor((spacings.length - 1) / 2)]!;
}
