import path from 'node:path';
import { type PointSource, type SamplePoint, writeLas } from './point-cloud-samples.js';

/**
 * The scene (docs/comparisons.md): a floor of 20 x 10 m on a 0.5 m grid and a wall of 10 x 3 m
 * at x = 20. The compared scan raises the floor below x = 5 by 10 cm, moves the wall by 30 cm
 * and adds a few points 5 m above the floor, beyond the 1 m maxDistance.
 */
export const FLOOR = 41 * 21;
export const WALL = 21 * 7;
export const FAR = 5;
export const ORIGIN = { x: 500, y: 800, z: 10 };

export function scenePoint(i: number, compared: boolean): SamplePoint {
  const colour = { r: 100, g: 110, b: 120, intensity: 0 };
  if (i < FLOOR) {
    const x = (i % 41) * 0.5;
    const y = Math.floor(i / 41) * 0.5;
    return { x: ORIGIN.x + x, y: ORIGIN.y + y, z: ORIGIN.z + (compared && x < 5 ? 0.1 : 0), ...colour };
  }
  if (i < FLOOR + WALL) {
    const j = i - FLOOR;
    return {
      x: ORIGIN.x + 20 + (compared ? 0.3 : 0),
      y: ORIGIN.y + (j % 21) * 0.5,
      z: ORIGIN.z + Math.floor(j / 21) * 0.5,
      ...colour,
    };
  }
  const k = i - FLOOR - WALL;
  return { x: ORIGIN.x + 2 + k * 3, y: ORIGIN.y + 5, z: ORIGIN.z + 5, ...colour };
}

const source = (compared: boolean): PointSource => ({ origin: ORIGIN, pointAt: (i) => scenePoint(i, compared) });
export const REFERENCE_COUNT = FLOOR + WALL;
export const COMPARED_COUNT = FLOOR + WALL + FAR;

/** The points as LAS keeps them: millimetres from the origin. */
export function stored(p: SamplePoint): [number, number, number] {
  const mm = (value: number, origin: number) => origin + Math.round((value - origin) * 1000) / 1000;
  return [mm(p.x, ORIGIN.x), mm(p.y, ORIGIN.y), mm(p.z, ORIGIN.z)];
}

/** Both scans as LAS 1.2 in `dir`: reference.las and compared.las. */
export async function writeScans(dir: string): Promise<{ reference: string; compared: string }> {
  const reference = path.join(dir, 'reference.las');
  const compared = path.join(dir, 'compared.las');
  await writeLas(reference, REFERENCE_COUNT, '1.2', { source: source(false) });
  await writeLas(compared, COMPARED_COUNT, '1.2', { source: source(true) });
  return { reference, compared };
}
