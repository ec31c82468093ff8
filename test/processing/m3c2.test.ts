import { describe, expect, it } from 'vitest';
import { m3c2 } from '../../src/processing/comparisons/m3c2.js';
import { PointKdTree } from '../../src/processing/comparisons/point-kd-tree.js';

/** A deterministic value in [-1, 1) for point i of cloud `seed`. */
function noise(i: number, seed: number): number {
  const s = Math.sin(i * 12.9898 + seed * 78.233) * 43758.5453;
  return 2 * (s - Math.floor(s)) - 1;
}

/** Random-looking points in a 10 m cube, from a small linear congruential generator. */
function scatter(count: number, seed: number): Float64Array {
  let state = seed;
  const next = (): number => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
  return Float64Array.from({ length: count * 3 }, () => next() * 10);
}

const SPACING = 0.02;
const SIDE = 101;

/**
 * A 2 x 2 m grid every 2 cm (shifted by `shift` along both grid axes), mapped to 3D by `place`
 * with `noise` mm of uniform noise along the third axis.
 */
function surface(
  place: (u: number, v: number, w: number) => [number, number, number],
  seed: number,
  { shift = 0, noiseMm = 1 } = {},
): Float64Array {
  const out = new Float64Array(SIDE * SIDE * 3);
  for (let i = 0; i < SIDE * SIDE; i += 1) {
    const u = (i % SIDE) * SPACING + shift;
    const v = Math.floor(i / SIDE) * SPACING + shift;
    out.set(place(u, v, (noise(i, seed) * noiseMm) / 1000), i * 3);
  }
  return out;
}

/** The points of a cloud whose (a, b) coordinates lie in [0.4, 1.6]², every `stride`-th. */
function inner(cloud: Float64Array, stride: number, a = 0, b = 1): Float64Array {
  const kept: number[] = [];
  for (let i = 0; i < cloud.length / 3; i += stride) {
    const [pa, pb] = [cloud[i * 3 + a]!, cloud[i * 3 + b]!];
    if (pa >= 0.4 && pa <= 1.6 && pb >= 0.4 && pb <= 1.6) kept.push(cloud[i * 3]!, cloud[i * 3 + 1]!, cloud[i * 3 + 2]!);
  }
  return Float64Array.from(kept);
}

function finite(values: Float64Array): number[] {
  return [...values].filter(Number.isFinite);
}

describe('k-d tree range queries', () => {
  const points = scatter(5000, 7);
  const tree = new PointKdTree(points);
  const key = (p: Float64Array, i: number): string => `${p[i * 3]},${p[i * 3 + 1]},${p[i * 3 + 2]}`;

  it('visits exactly the points within a radius, as a linear scan finds them', () => {
    const queries = scatter(20, 11);
    for (let q = 0; q < 20; q += 1) {
      const [x, y, z] = [queries[q * 3]!, queries[q * 3 + 1]!, queries[q * 3 + 2]!];
      for (const radius of [0, 0.3, 1, 2.5, 20]) {
        const found: string[] = [];
        let worst = 0;
        tree.forEachWithin(x, y, z, radius, (i, squared) => {
          const [dx, dy, dz] = [tree.positions[i * 3]! - x, tree.positions[i * 3 + 1]! - y, tree.positions[i * 3 + 2]! - z];
          worst = Math.max(worst, Math.abs(squared - (dx * dx + dy * dy + dz * dz)));
          found.push(key(tree.positions, i));
        });
        expect(worst).toBeLessThan(1e-12);
        const expected: string[] = [];
        for (let i = 0; i < 5000; i += 1) {
          if (Math.hypot(points[i * 3]! - x, points[i * 3 + 1]! - y, points[i * 3 + 2]! - z) <= radius)
            expected.push(key(points, i));
        }
        expect(found.sort()).toEqual(expected.sort());
      }
    }
    // A point exactly at the radius is found.
    const hits: number[] = [];
    tree.forEachWithin(points[0]! + 0.5, points[1]!, points[2]!, 0.5, (i) => hits.push(i));
    expect(hits.map((i) => key(tree.positions, i))).toContain(key(points, 0));
  });

  it('visits exactly the points in a cylinder, with their coordinate along its axis', () => {
    const queries = scatter(60, 13);
    for (let q = 0; q < 30; q += 1) {
      const [x, y, z] = [queries[q * 3]!, queries[q * 3 + 1]!, queries[q * 3 + 2]!];
      // Axes along the coordinate axes and oblique ones.
      const other = (q + 30) * 3;
      const direction =
        q < 3
          ? [q === 0 ? 1 : 0, q === 1 ? 1 : 0, q === 2 ? -1 : 0]
          : [queries[other]! - 5, queries[other + 1]! - 5, queries[other + 2]! - 5];
      const norm = Math.hypot(...direction);
      const [nx, ny, nz] = direction.map((c) => c / norm) as [number, number, number];
      for (const [radius, halfLength] of [
        [0.5, 2],
        [1.5, 0.2],
        [0.05, 8],
      ] as const) {
        const found: string[] = [];
        let worst = 0;
        tree.forEachInCylinder(x, y, z, direction[0]!, direction[1]!, direction[2]!, radius, halfLength, (i, along) => {
          const [dx, dy, dz] = [tree.positions[i * 3]! - x, tree.positions[i * 3 + 1]! - y, tree.positions[i * 3 + 2]! - z];
          worst = Math.max(worst, Math.abs(along - (dx * nx + dy * ny + dz * nz)));
          found.push(key(tree.positions, i));
        });
        expect(worst).toBeLessThan(1e-12);
        const expected: string[] = [];
        for (let i = 0; i < 5000; i += 1) {
          const [dx, dy, dz] = [points[i * 3]! - x, points[i * 3 + 1]! - y, points[i * 3 + 2]! - z];
          const along = dx * nx + dy * ny + dz * nz;
          const across = Math.sqrt(Math.max(0, dx * dx + dy * dy + dz * dz - along * along));
          if (Math.abs(along) <= halfLength && across <= radius) expected.push(key(points, i));
        }
        expect(found.sort()).toEqual(expected.sort());
      }
    }
  });

  it('refuses a query started inside another on the same tree', () => {
    expect(() => tree.forEachWithin(5, 5, 5, 1, () => tree.forEachWithin(5, 5, 5, 1, () => {}))).toThrow(/inside another/);
  });
});

describe('M3C2', () => {
  const flat = surface((u, v, w) => [u, v, w], 1);
  const maxDepth = 0.5;

  it('finds a plane raised by 10 cm 0.10 m higher, significantly, with scales from the spacing', () => {
    const raised = surface((u, v, w) => [u, v, 0.1 + w], 2, { shift: SPACING / 2 });
    const core = inner(raised, 7);
    const result = m3c2(flat, raised, core, { maxDepth });
    expect(result.scales.spacing).toBeCloseTo(SPACING, 3);
    expect(result.scales.projectionScale).toBeCloseTo(8 * result.scales.spacing!, 12);
    expect(result.scales.normalScale).toBeCloseTo(16 * result.scales.spacing!, 12);
    expect(result.count).toBe(core.length / 3);
    for (let i = 0; i < result.count; i += 1) {
      expect(Math.abs(result.distance[i]! - 0.1)).toBeLessThan(0.001);
      expect(result.normals[i * 3 + 2]).toBeGreaterThan(0.999);
      expect(result.significant[i]).toBe(1);
      expect(result.lod95[i]).toBeLessThan(0.001);
      expect(result.n1[i]).toBeGreaterThanOrEqual(30);
      expect(result.n2[i]).toBeGreaterThanOrEqual(30);
    }
  });

  it('finds no significant change between two noisy copies of one plane', () => {
    const copy = surface((u, v, w) => [u, v, w], 3);
    const core = inner(copy, 7);
    const result = m3c2(flat, copy, core, { maxDepth });
    const distances = finite(result.distance);
    expect(distances).toHaveLength(result.count);
    for (const d of distances) expect(Math.abs(d)).toBeLessThan(0.001);
    // At 95 % confidence, about one core point in twenty is flagged by chance alone.
    const flagged = result.significant.reduce((sum, s) => sum + s, 0);
    expect(flagged / result.count).toBeLessThan(0.1);
    const meanAbs = distances.reduce((sum, d) => sum + Math.abs(d), 0) / distances.length;
    const meanLod = finite(result.lod95).reduce((sum, l) => sum + l, 0) / result.count;
    expect(meanAbs).toBeLessThan(meanLod);
  });

  it('measures a tilted plane moved 10 cm along its normal, the normal pointing up', () => {
    const [a, b] = [0.3, 0.2];
    const norm = Math.hypot(a, b, 1);
    const n = [-a / norm, -b / norm, 1 / norm];
    const tilted = (offset: number) => (u: number, v: number, w: number) =>
      [u + offset * n[0]!, v + offset * n[1]!, a * u + b * v + w / n[2]! + offset * n[2]!] as [number, number, number];
    const reference = surface(tilted(0), 4);
    const moved = surface(tilted(0.1), 5, { shift: SPACING / 2 });
    const result = m3c2(reference, moved, inner(moved, 7), { maxDepth });
    expect(result.count).toBeGreaterThan(100);
    for (let i = 0; i < result.count; i += 1) {
      expect(Math.abs(result.distance[i]! - 0.1)).toBeLessThan(0.001);
      expect(result.significant[i]).toBe(1);
      const cosine = result.normals[i * 3]! * n[0]! + result.normals[i * 3 + 1]! * n[1]! + result.normals[i * 3 + 2]! * n[2]!;
      expect(cosine).toBeGreaterThan(0.9999);
    }
  });

  it('measures walls moved 30 cm along their normals, oriented to +x, then +y, as +z is across them', () => {
    const wallX = (x: number) => (u: number, v: number, w: number) => [x + w, u, v] as [number, number, number];
    const facingX = m3c2(surface(wallX(1), 6), surface(wallX(1.3), 7), inner(surface(wallX(1.3), 7), 7, 1, 2), {
      maxDepth,
    });
    const wallY = (y: number) => (u: number, v: number, w: number) => [u, y + w, v] as [number, number, number];
    const facingY = m3c2(surface(wallY(1), 8), surface(wallY(0.7), 9), inner(surface(wallY(0.7), 9), 7, 0, 2), {
      maxDepth,
    });
    for (const [result, axis, expected] of [
      [facingX, 0, 0.3],
      [facingY, 1, -0.3],
    ] as const) {
      expect(result.count).toBeGreaterThan(100);
      for (let i = 0; i < result.count; i += 1) {
        expect(Math.abs(result.distance[i]! - expected)).toBeLessThan(0.001);
        expect(result.normals[i * 3 + axis]).toBeGreaterThan(0.999);
        expect(result.significant[i]).toBe(1);
      }
    }
  });

  it('gives NaN where the compared cloud has no points, counting them', () => {
    const holed = surface((u, v, w) => [u, v, 0.1 + w], 2, { shift: SPACING / 2 });
    const kept: number[] = [];
    for (let i = 0; i < holed.length / 3; i += 1) {
      if (Math.hypot(holed[i * 3]! - 1, holed[i * 3 + 1]! - 1) > 0.3) kept.push(...holed.subarray(i * 3, i * 3 + 3));
    }
    const core: number[] = [];
    for (let i = 0; i < flat.length / 3; i += 1) {
      if (Math.hypot(flat[i * 3]! - 1, flat[i * 3 + 1]! - 1) <= 0.1) core.push(...flat.subarray(i * 3, i * 3 + 3));
    }
    core.push(0.5, 0.5, 0);
    // Normals from the reference, which has points there.
    const result = m3c2(flat, Float64Array.from(kept), Float64Array.from(core), { maxDepth, normalSource: 'reference' });
    const last = result.count - 1;
    for (let i = 0; i < last; i += 1) {
      expect(result.distance[i]).toBeNaN();
      expect(result.lod95[i]).toBeNaN();
      expect(result.significant[i]).toBe(0);
      expect(result.n2[i]).toBe(0);
      expect(result.sigma2[i]).toBeNaN();
      expect(result.n1[i]).toBeGreaterThanOrEqual(30);
      expect(result.normals[i * 3 + 2]).toBeGreaterThan(0.999);
    }
    expect(result.distance[last]).toBeCloseTo(0.1, 3);
    // Normals fitted to the compared cloud (the default) have none there.
    const unfitted = m3c2(flat, Float64Array.from(kept), Float64Array.from(core), { maxDepth });
    expect(unfitted.normals[0]).toBeNaN();
    expect([unfitted.distance[0], unfitted.n1[0], unfitted.n2[0]]).toEqual([Number.NaN, 0, 0]);
  });

  // One core point at the origin, its normal +z given, cylinders 10 cm wide reaching 1 m.
  const reference = Float64Array.from(
    [
      [0, 0, 0],
      [0.01, 0, 0.02],
      [0, 0.01, -0.02],
      [-0.01, 0, 0.01],
      [0, -0.03, -0.01],
      [0.2, 0, 0], // beyond the cylinder's radius
      [0, 0, 1.5], // beyond its depth
    ].flat(),
  );
  const compared = Float64Array.from(
    [
      [0, 0, 0.1],
      [0.02, 0.02, 0.13],
      [-0.02, 0.01, 0.07],
      [0.01, -0.04, 0.11],
      [0, 0.01, 0.09],
      [-0.03, 0, 0.12],
      [0.06, 0, 0.1], // beyond the radius
    ].flat(),
  );
  const hand = { maxDepth: 1, projectionScale: 0.1, normalScale: 0.2, normals: Float64Array.from([0, 0, 2]) };

  it('computes the level of detection as by hand', () => {
    const result = m3c2(reference, compared, Float64Array.from([0, 0, 0]), { ...hand, registrationError: 0.005 });
    expect([result.n1[0], result.n2[0]]).toEqual([5, 6]);
    // Cloud 1: z 0, 0.02, -0.02, 0.01, -0.01: mean 0, variance (4 + 4 + 1 + 1) e-4 / 5 = 2e-4.
    // Cloud 2: z 0.10, 0.13, 0.07, 0.11, 0.09, 0.12: mean 0.62 / 6, variance (0.0664 - 0.62² / 6) / 6 = 7 / 18000.
    expect(result.sigma1[0]).toBeCloseTo(Math.sqrt(2e-4), 12);
    expect(result.sigma2[0]).toBeCloseTo(Math.sqrt(7 / 18000), 12);
    expect(result.distance[0]).toBeCloseTo(0.62 / 6, 12);
    // 1.96 √(2e-4 / 5 + 7 / 108000) + 0.005 = 1.96 × 0.0102379 + 0.005
    expect(result.lod95[0]).toBeCloseTo(0.0250663, 6);
    expect(result.significant[0]).toBe(1);
    expect([...result.normals]).toEqual([0, 0, 1]);
  });

  it('uses medians and interquartile ranges when asked, and minPoints', () => {
    const result = m3c2(reference, compared, Float64Array.from([0, 0, 0]), { ...hand, statistic: 'median' });
    // Medians 0 and (0.10 + 0.11) / 2; IQRs 0.01 - (-0.01) and 0.12 - 0.09.
    expect(result.distance[0]).toBeCloseTo(0.105, 12);
    expect(result.sigma1[0]).toBeCloseTo(0.02 / 1.349, 12);
    expect(result.sigma2[0]).toBeCloseTo(0.03 / 1.349, 12);
    const strict = m3c2(reference, compared, Float64Array.from([0, 0, 0]), { ...hand, minPoints: 6 });
    expect(strict.distance[0]).toBeNaN();
    expect([strict.n1[0], strict.n2[0]]).toEqual([5, 6]);
  });

  it('refuses bad options clearly', () => {
    expect(() => m3c2(reference, compared, Float64Array.from([0, 0, 0]), { maxDepth: 0 })).toThrow(/maxDepth/);
    expect(() => m3c2(reference, compared, Float64Array.from([0, 0]), { maxDepth: 1 })).toThrow(/triples/);
    expect(() => m3c2(Float64Array.from([1, 1, 1]), compared, Float64Array.from([0, 0, 0]), { maxDepth: 1 })).toThrow(/scales/);
  });
});
