import type { Bounds } from '../point-clouds/point-cloud.js';

/** An axis-aligned box by center and half extents: the shape of a 3D Tiles `box` volume. */
export interface Box {
  center: [number, number, number];
  half: [number, number, number];
}

/** Smallest half extent we give a box, so flat or single-point clouds still have a volume. */
const MIN_HALF = 0.001;

export function boxOfBounds(bounds: Bounds): Box {
  const center = [0, 1, 2].map((a) => (bounds.min[a]! + bounds.max[a]!) / 2) as [number, number, number];
  // A hair of padding: float rounding of the content positions must stay inside.
  const half = [0, 1, 2].map((a) => Math.max(MIN_HALF, ((bounds.max[a]! - bounds.min[a]!) / 2) * 1.000001)) as [
    number,
    number,
    number,
  ];
  return { center, half };
}

export function childBox(box: Box, octant: number): Box {
  const half = box.half.map((h) => h / 2) as [number, number, number];
  const center = box.center.map((c, axis) => c + ((octant >> axis) & 1 ? half[axis]! : -half[axis]!)) as [number, number, number];
  return { center, half };
}

export function diagonal(box: Box): number {
  return 2 * Math.hypot(...box.half);
}

/** 3D Tiles box: center then the three half-axis vectors. */
export function tilesBox(box: Box): number[] {
  const [x, y, z] = box.center;
  const [hx, hy, hz] = box.half;
  return [x, y, z, hx, 0, 0, 0, hy, 0, 0, 0, hz];
}

/**
 * Geometric error of a tile that has children: about the spacing of its subsample, which
 * halves with each level as the box does. A leaf holds every remaining point: error 0.
 */
export function geometricErrorOf(box: Box, tilePoints: number): number {
  return diagonal(box) / Math.cbrt(tilePoints);
}

/** Keeps `keep` of `total` points, evenly spread over the input order, decided point by point. */
export function isSampled(index: number, keep: number, total: number): boolean {
  return Math.floor(((index + 1) * keep) / total) > Math.floor((index * keep) / total);
}

/**
 * The index isSampled keeps after its first `kept`: ceil((kept + 1) * total / keep) - 1, Infinity
 * once all are kept. A stream compares each index with it, one division a kept point rather than
 * two a point. The same indices: isSampled's floor steps by one where (index + 1) * keep / total
 * reaches the next whole number, and both quotients are exact in doubles (their integers stay far
 * below 2^53, and a quotient that is not whole is at least 1 / keep from one).
 */
export function nextSampled(kept: number, keep: number, total: number): number {
  const share = Math.min(keep, total);
  return kept < share ? Math.ceil(((kept + 1) * total) / share) - 1 : Number.POSITIVE_INFINITY;
}
