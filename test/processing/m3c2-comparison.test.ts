import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareClouds } from '../../src/processing/comparisons/compare-clouds.js';
import { m3c2 } from '../../src/processing/comparisons/m3c2.js';
import { medianSpacing } from '../../src/processing/comparisons/m3c2-scales.js';
import { PointKdTree } from '../../src/processing/comparisons/point-kd-tree.js';
import { type PointSource, type SamplePoint, writeLas } from '../support/point-cloud-samples.js';

/** A ground of 12 x 12 m sampled every 10 cm, with millimetres of deterministic roughness. */
const SIDE = 121;
const GROUND = SIDE * SIDE;
/** Points of the compared scan 50 m up: no reference within any cylinder. */
const FAR = 25;

function roughness(i: number, seed: number): number {
  const t = Math.sin(i * 12.9898 + seed * 78.233) * 43758.5453;
  return (t - Math.floor(t) - 0.5) * 0.004;
}

/** The reference ground, or the compared one: below x = 8 raised by 10 cm, and FAR points 50 m up. */
function ground(compared: boolean): PointSource {
  return {
    origin: { x: 0, y: 0, z: 0 },
    pointAt: (i: number): SamplePoint => {
      if (i >= GROUND) return { x: (i - GROUND) * 0.5, y: 3, z: 50, r: 0, g: 0, b: 0, intensity: 0 };
      const x = (i % SIDE) * 0.1;
      const y = Math.floor(i / SIDE) * 0.1;
      const z = 0.02 * y + roughness(i, compared ? 2 : 1) + (compared && x < 8 ? 0.1 : 0);
      return { x, y, z, r: 100, g: 120, b: 140, intensity: 0 };
    },
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-m3c2-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('M3C2 comparisons', () => {
  it('measures signed changes along the normals cell by cell, as on the whole scans at once, with their level of detection', async () => {
    const reference = path.join(dir, 'reference.las');
    const compared = path.join(dir, 'compared.las');
    await writeLas(reference, GROUND, '1.2', { source: ground(false) });
    await writeLas(compared, GROUND + FAR, '1.2', { source: ground(true) });
    // Cells of at most 3,000 points of both scans: dozens of cells, each gathering its neighbours' points.
    const result = await compareClouds({ reference, compared, method: 'm3c2', maxDistance: 1, tolerance: 0.02 }, dir, {
      cellPoints: 3_000,
    });
    const [header, ...lines] = (await readFile(path.join(dir, result.csvPath), 'utf8')).trim().split('\n');
    expect(header).toBe('x,y,z,distance,lod95,significant');
    expect(lines.length).toBe(GROUND + FAR);
    const rows = lines.map((line) => line.split(','));

    // The same computation over both whole scans, the compared points as core points.
    const positions = (values: string[][]) => Float64Array.from(values.flatMap((row) => row.slice(0, 3).map(Number)));
    const referenceLines = Array.from({ length: GROUND }, (_, i) => {
      const p = ground(false).pointAt(i, GROUND);
      // LAS keeps millimetres: the reference as stored.
      return [p.x, p.y, p.z].map((v) => (Math.round(v * 1000) / 1000).toString());
    });
    const referenceTree = new PointKdTree(positions(referenceLines));
    const spacing = medianSpacing(referenceTree);
    expect(spacing).toBeCloseTo(0.1, 3);
    const whole = m3c2(referenceTree, positions(rows), positions(rows), {
      maxDepth: 1,
      projectionScale: spacing * 8,
      normalScale: spacing * 16,
    });

    // Checked point by point, mismatches collected (one expect per point would cost seconds).
    const mismatches: string[] = [];
    const check = (ok: boolean, what: string) => {
      if (!ok && mismatches.length < 10) mismatches.push(what);
    };
    let raised = 0;
    let unchanged = 0;
    let none = 0;
    rows.forEach(([x, , z, distance, lod95, significant], i) => {
      const expected = whole.distance[i]!;
      if (distance === '') {
        check(
          Number.isNaN(expected) && lod95 === '' && significant === '',
          `point ${i}: no distance where the whole gives ${expected}`,
        );
        none += 1;
        return;
      }
      const d = Number(distance);
      check(Math.abs(d - expected) < 1e-9, `point ${i}: ${d} where the whole gives ${expected}`);
      check(
        Math.abs(Number(lod95) - whole.lod95[i]!) < 1e-9,
        `point ${i}: LoD95 ${lod95} where the whole gives ${whole.lod95[i]}`,
      );
      check(Number(significant) === whole.significant[i], `point ${i}: significant ${significant}`);
      // Away from the step's edge (a cylinder there holds both levels): +10 cm and significant, or no change.
      if (Number(x) < 7.3) {
        check(Math.abs(d - 0.1) < 0.005 && significant === '1', `raised point ${i}: ${d}, significant ${significant}`);
        raised += 1;
      } else if (Number(x) > 8.7 && Number(z) < 5) {
        check(Math.abs(d) < 0.005 && Math.abs(d) < Number(lod95) + 0.005, `unchanged point ${i}: ${d} (LoD95 ${lod95})`);
        unchanged += 1;
      }
    });
    expect(mismatches).toEqual([]);
    expect(none).toBe(FAR);
    expect(raised).toBeGreaterThan(8_000);
    expect(unchanged).toBeGreaterThan(3_500);

    // The figures take the magnitudes; the points without a distance are counted apart.
    expect(result.stats.comparedPoints).toBe(GROUND + FAR);
    expect(result.stats.beyondMaxDistance).toBe(FAR);
    expect(result.stats.max).toBeGreaterThan(0.095);
    expect(result.stats.max).toBeLessThan(0.11);

    // The tiler's PLY: signed distances, NaN where there is none (-1 would be a real distance).
    const ply = await readFile(path.join(dir, result.plyPath));
    const start = ply.indexOf('end_header\n') + 'end_header\n'.length;
    const record = 8 * 3 + 3 + 4;
    let nan = 0;
    for (let i = 0; i < GROUND + FAR; i += 1) {
      const d = ply.readFloatLE(start + i * record + 27);
      if (Number.isNaN(d)) nan += 1;
      else expect(Math.abs(d - Number(rows[i]![3]))).toBeLessThan(1e-6);
    }
    expect(nan).toBe(FAR);
  });
});
