import type { SamplePoint } from './point-cloud-samples.js';

/**
 * A terrestrial laser scan as a scanner records it, for benches and tests that need a realistic
 * cloud rather than a regular grid: one station 1.6 m above uneven ground, columns swept around
 * the vertical axis, each column a fan of rays from 60° below to 40° above the horizon, points
 * in that scan order. A ray hits the ground, or the buildings and a hedge standing around the
 * station, or far terrain beyond them, so the density falls with the square of the range: dense
 * near the station, sparse far away, as a real scan is. Deterministic in (index, count).
 */
export const SCAN_STATION = { x: 512_340.25, y: 5_403_870.5, z: 212.4 };
const STATION_HEIGHT = 1.6;
const FAR_RANGE = 180;

/** Distance from the station to the nearest wall at an azimuth, or Infinity where none stands. */
function wallDistance(azimuth: number): { distance: number; height: number } {
  // Four buildings at different distances, each covering part of the horizon, and gaps between.
  const sector = Math.floor(((azimuth + Math.PI) / (2 * Math.PI)) * 9) % 9;
  const walls = [
    { distance: 14, height: 9 },
    { distance: 14, height: 9 },
    { distance: Infinity, height: 0 },
    { distance: 38, height: 22 },
    { distance: 38, height: 22 },
    { distance: 6, height: 1.4 }, // a hedge close by
    { distance: Infinity, height: 0 },
    { distance: 72, height: 30 },
    { distance: 72, height: 30 },
  ];
  return walls[sector]!;
}

/** A small deterministic jitter in [-0.5, 0.5): the range noise of a real instrument. */
function noise(i: number, salt: number): number {
  let t = (Math.imul(i, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca77)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
}

function groundHeight(x: number, y: number): number {
  return 0.8 * Math.sin(x / 23) + 0.5 * Math.cos(y / 17) + 0.02 * x;
}

export function scanPoint(i: number, count: number): SamplePoint {
  const columns = Math.ceil(Math.sqrt(count * 2));
  const rows = Math.ceil(count / columns);
  const column = Math.floor(i / rows);
  const row = i % rows;
  const azimuth = (column / columns) * 2 * Math.PI - Math.PI;
  const elevation = ((-60 + (100 * (row + 0.5)) / rows) * Math.PI) / 180;
  const dx = Math.cos(azimuth) * Math.cos(elevation);
  const dy = Math.sin(azimuth) * Math.cos(elevation);
  const dz = Math.sin(elevation);
  const wall = wallDistance(azimuth);
  let range = FAR_RANGE;
  if (dz < 0) range = Math.min(range, STATION_HEIGHT / -dz);
  const horizontal = Math.cos(elevation);
  const toWall = wall.distance / horizontal;
  if (toWall < range && STATION_HEIGHT + dz * toWall <= wall.height) range = toWall;
  range *= 1 + 0.002 * noise(i, 1);
  const x = dx * range;
  const y = dy * range;
  let z = STATION_HEIGHT + dz * range;
  // The ground is not flat: a ray that reaches it lands on the terrain's height there.
  if (range < toWall && dz < 0) z = groundHeight(x, y) * Math.min(1, range / 40);
  const shade = Math.max(0, Math.min(255, Math.round(255 - range * 1.2)));
  return {
    x: SCAN_STATION.x + x,
    y: SCAN_STATION.y + y,
    z: SCAN_STATION.z + z,
    r: shade,
    g: Math.round(shade * 0.9) & 255,
    b: (column * 7) & 255,
    intensity: Math.round(4000 / (1 + range / 10)),
  };
}

export const SCAN_SOURCE = { pointAt: scanPoint, origin: SCAN_STATION };
