import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareClouds } from '../../src/processing/comparisons/compare-clouds.js';
import { type PointSource, type SamplePoint, writeLas } from '../support/point-cloud-samples.js';

/** A 1 m grid over 40 x 30 m, its points below x = 10 raised by `raise` and a few beyond `far`. */
function gridSource(raise: number, far = false): PointSource {
  return {
    origin: { x: 0, y: 0, z: 0 },
    pointAt: (i: number): SamplePoint => {
      const x = (i % 41) * 1 + (far && i % 97 === 0 ? 500 : 0);
      const y = Math.floor(i / 41) * 1;
      const z = 0.05 * x + (x < 10 ? raise : 0);
      return { x, y, z, r: 10, g: 20, b: 30, intensity: 0 };
    },
  };
}

const COUNT = 41 * 31;

function bruteForce(reference: number[][], [x, y, z]: number[]): number {
  let best = Infinity;
  for (const [rx, ry, rz] of reference) best = Math.min(best, Math.hypot(rx! - x!, ry! - y!, rz! - z!));
  return best;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-compare-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cloud-to-cloud distances', () => {
  it('gives every compared point its exact nearest-neighbour distance, the far ones counted apart', async () => {
    const reference = path.join(dir, 'reference.las');
    const compared = path.join(dir, 'compared.las');
    await writeLas(reference, COUNT, '1.2', { source: gridSource(0) });
    await writeLas(compared, COUNT, '1.2', { source: gridSource(0.1, true) });
    const result = await compareClouds({ reference, compared, method: 'c2c', maxDistance: 1, tolerance: 0.05 }, dir);
    const lines = (await readFile(path.join(dir, result.csvPath), 'utf8')).trim().split('\n');
    expect(lines[0]).toBe('x,y,z,distance');
    expect(lines.length - 1).toBe(COUNT);
    const referencePoints = Array.from({ length: COUNT }, (_, i) => {
      const p = gridSource(0).pointAt(i, COUNT);
      return [p.x, p.y, p.z];
    });
    let beyond = 0;
    for (const line of lines.slice(1)) {
      const [x, y, z, distance] = line.split(',');
      const exact = bruteForce(referencePoints, [Number(x), Number(y), Number(z)]);
      if (distance === '') {
        expect(exact).toBeGreaterThan(1);
        beyond += 1;
      } else {
        // LAS stores millimetres: the brute force reads the same stored coordinates from the CSV.
        expect(Math.abs(Number(distance) - exact)).toBeLessThan(1e-4);
      }
    }
    expect(result.stats.comparedPoints).toBe(COUNT);
    expect(result.stats.beyondMaxDistance).toBe(beyond);
    expect(beyond).toBeGreaterThan(5);
    expect(result.stats.max).toBeCloseTo(0.1, 3);
    expect(result.histogram.bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(COUNT - beyond);
  });
});
