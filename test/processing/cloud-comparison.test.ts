import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparisonFigures, DistanceSummary } from '../../src/domain/comparisons/comparison-figures.js';
import { splitIntoCells } from '../../src/processing/comparisons/cloud-cells.js';
import { compareClouds } from '../../src/processing/comparisons/compare-clouds.js';
import { distanceFigures } from '../../src/processing/comparisons/distance-figures.js';
import { spillScan, splitSide } from '../../src/processing/comparisons/side-split.js';
import { openPointCloud } from '../../src/processing/point-clouds/open-point-cloud.js';
import { loadSpill, RECORD_DOUBLES } from '../../src/processing/tiles/spill-file.js';
import { type PointSource, type SamplePoint, writeLas } from '../support/point-cloud-samples.js';
import { seededRandom } from '../support/seeded-random.js';

type Point = [number, number, number];

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

/** The nearest distance by trying every reference point, computed as the k-d tree computes it. */
function bruteForce(reference: readonly Point[], point: Point): { distance: number; index: number } {
  let flat = flattened.get(reference);
  if (!flat) {
    flat = Float64Array.from(reference.flat());
    flattened.set(reference, flat);
  }
  const [x, y, z] = point;
  let best = Infinity;
  let index = -1;
  for (let i = 0; i < flat.length; i += 3) {
    const dx = flat[i]! - x;
    const dy = flat[i + 1]! - y;
    const dz = flat[i + 2]! - z;
    const d = dx * dx + dy * dy + dz * dz;
    if (d < best) {
      best = d;
      index = i / 3;
    }
  }
  return { distance: Math.sqrt(best), index };
}
const flattened = new WeakMap<readonly Point[], Float64Array>();

const key = ([x, y, z]: Point): string => `${x},${y},${z}`;

/** On a 1/256 m lattice: exact as float32, so CloudCompare (which holds floats) reads the very points. */
const snap = (value: number): number => Math.round(value * 256) / 256;

/**
 * A site: ground over 30 x 20 m (gently sloped) and a wall 5 m high across it at x = 20. The
 * compared scan has the ground below x = 8 raised by 10 cm, the wall moved by 30 cm and some
 * points 50 m up, far beyond any maxDistance; each scan samples the surfaces on its own.
 * Distinct points (the lattice could merge two), so that a point is known by its coordinates.
 */
function site(count: number, seed: number, compared: boolean): Point[] {
  const next = seededRandom(seed);
  const points = new Map<string, Point>();
  const add = (point: Point) => points.set(key(point), point);
  for (let i = 0; points.size < count; i += 1) {
    if (i % 5 === 4) {
      const y = next() * 20;
      const z = next() * 5;
      add([snap(20 + (compared ? 0.3 : 0) + (next() - 0.5) * 0.004), snap(y), snap(z)]);
    } else {
      const x = next() * 30;
      const y = next() * 20;
      const far = compared && i % 211 === 0 ? 50 : 0;
      const raised = compared && x < 8 ? 0.1 : 0;
      add([snap(x), snap(y), snap(0.02 * x + raised + far + (next() - 0.5) * 0.004)]);
    }
  }
  return [...points.values()];
}

async function writeBinaryPly(file: string, points: readonly Point[]): Promise<void> {
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${points.length}\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n`;
  const body = Buffer.alloc(points.length * 27);
  points.forEach(([x, y, z], i) => {
    body.writeDoubleLE(x, i * 27);
    body.writeDoubleLE(y, i * 27 + 8);
    body.writeDoubleLE(z, i * 27 + 16);
    body[i * 27 + 24] = 200;
  });
  await writeFile(file, Buffer.concat([Buffer.from(header, 'latin1'), body]));
}

async function readCsv(file: string): Promise<{ point: Point; distance: number | undefined }[]> {
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  expect(lines[0]).toBe('x,y,z,distance');
  return lines.slice(1).map((line) => {
    const [x, y, z, distance] = line.split(',');
    return { point: [Number(x), Number(y), Number(z)], distance: distance === '' ? undefined : Number(distance) };
  });
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
    const rows = await readCsv(path.join(dir, result.csvPath));
    expect(rows.length).toBe(COUNT);
    const referencePoints = Array.from({ length: COUNT }, (_, i): Point => {
      const p = gridSource(0).pointAt(i, COUNT);
      return [p.x, p.y, p.z];
    });
    let beyond = 0;
    for (const { point, distance } of rows) {
      const exact = bruteForce(referencePoints, point).distance;
      if (distance === undefined) {
        expect(exact).toBeGreaterThan(1);
        beyond += 1;
      } else {
        // LAS stores millimetres: the brute force reads the same stored coordinates from the CSV.
        expect(Math.abs(distance - exact)).toBeLessThan(1e-4);
      }
    }
    expect(result.stats.comparedPoints).toBe(COUNT);
    expect(result.stats.beyondMaxDistance).toBe(beyond);
    expect(beyond).toBeGreaterThan(5);
    expect(result.stats.max).toBeCloseTo(0.1, 3);
    expect(result.histogram.bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(COUNT - beyond);
  });

  it('is exact across many small cells: nearest neighbours in other cells, a point at exactly maxDistance', async () => {
    const maxDistance = 1;
    const referencePoints = site(6000, 1, false);
    const comparedPoints = site(6000, 2, true);
    // An isolated pair at exactly maxDistance (kept) and one just beyond it (not).
    referencePoints.push([100, 100, 0]);
    comparedPoints.push([100, 100, 1], [100, 100.5, 1.25]);
    const reference = path.join(dir, 'site-reference.ply');
    const compared = path.join(dir, 'site-compared.ply');
    await writeBinaryPly(reference, referencePoints);
    await writeBinaryPly(compared, comparedPoints);
    const exact = new Map(comparedPoints.map((point) => [key(point), bruteForce(referencePoints, point)]));

    // The cells a 150-point limit makes: many compared points have their nearest in another one.
    const cellPoints = 150;
    const cellDir = path.join(dir, 'cells');
    await mkdir(cellDir);
    const cells = await splitIntoCells(
      await spillScan(reference, path.join(cellDir, 'r.bin'), () => {}),
      await spillScan(compared, path.join(cellDir, 'c.bin'), () => {}),
      cellPoints,
      cellDir,
      splitSide,
    );
    expect(cells.length).toBeGreaterThan(50);
    const cellOfReference = new Map<string, number>();
    let elsewhere = 0;
    for (const [index, cell] of cells.entries()) {
      if (!cell.reference) continue;
      const records = await loadSpill([cell.reference], cell.referenceCount);
      for (let i = 0; i < cell.referenceCount; i += 1) {
        const at = i * RECORD_DOUBLES;
        cellOfReference.set(key([records.doubles[at]!, records.doubles[at + 1]!, records.doubles[at + 2]!]), index);
      }
    }
    for (const [index, cell] of cells.entries()) {
      if (!cell.compared) continue;
      const records = await loadSpill([cell.compared], cell.comparedCount);
      for (let i = 0; i < cell.comparedCount; i += 1) {
        const at = i * RECORD_DOUBLES;
        const nearest = exact.get(key([records.doubles[at]!, records.doubles[at + 1]!, records.doubles[at + 2]!]))!;
        if (nearest.distance <= maxDistance && cellOfReference.get(key(referencePoints[nearest.index]!)) !== index) {
          elsewhere += 1;
        }
      }
    }
    expect(elsewhere).toBeGreaterThan(500);

    // Small cells on the comparison threads and in this thread alone, then the default cells.
    for (const [name, options] of [
      ['threads', { cellPoints }],
      ['inline', { cellPoints, threads: 0 }],
      ['default', {}],
    ] as const) {
      const out = path.join(dir, `site-${name}`);
      await mkdir(out);
      const result = await compareClouds({ reference, compared, method: 'c2c', maxDistance, tolerance: 0.05 }, out, options);
      const rows = await readCsv(path.join(out, result.csvPath));
      expect(rows.length).toBe(comparedPoints.length);
      const kept: number[] = [];
      for (const { point, distance } of rows) {
        const truth = exact.get(key(point))!.distance;
        if (truth <= maxDistance) {
          expect(distance).toBe(truth);
          kept.push(truth);
        } else {
          expect(distance).toBeUndefined();
        }
      }
      expect(rows.find(({ point }) => key(point) === '100,100,1')?.distance).toBe(1);
      expect(rows.find(({ point }) => key(point) === '100,100.5,1.25')?.distance).toBeUndefined();
      // The raised ground, the moved wall and the far points all show in the figures.
      const expected = comparisonFigures(Float64Array.from(kept), comparedPoints.length, 0.05);
      expect(result.stats.beyondMaxDistance).toBe(comparedPoints.length - kept.length);
      expect(result.stats.beyondMaxDistance).toBeGreaterThan(20);
      expect(result.stats.comparedPoints).toBe(comparedPoints.length);
      expect(result.stats.p99).toBeGreaterThan(0.25);
      expect(result.stats.max).toBe(1);
      expectSameFigures(result, expected);
      const ply = await openPointCloud(path.join(out, result.plyPath));
      expect(ply.header.pointCount).toBe(comparedPoints.length);
    }
    // Threads change where the work runs, not what it writes.
    for (const file of ['distances.csv', 'compared-distances.ply']) {
      expect(await readFile(path.join(dir, 'site-threads', file))).toEqual(await readFile(path.join(dir, 'site-inline', file)));
    }
  });

  it('fails as aborted on its threads when aborted while the scans are decoded, leaving no work files', async () => {
    const out = path.join(dir, 'aborted');
    await mkdir(out);
    const controller = new AbortController();
    const comparing = compareClouds(
      {
        reference: path.join(dir, 'reference.las'),
        compared: path.join(dir, 'compared.las'),
        method: 'c2c',
        maxDistance: 1,
        tolerance: 0.05,
      },
      out,
      { threads: 2, signal: controller.signal, onProgress: (fraction) => fraction > 0 && controller.abort() },
    );
    await expect(comparing).rejects.toMatchObject({ name: 'AbortError' });
    expect(await readdir(out)).toEqual([]);
  });

  it('takes exact nearest-rank percentiles from distances on disk, narrowing crowded bins', async () => {
    const next = seededRandom(7);
    // Ties, a crowd in one narrow range and a long tail.
    const values = Float64Array.from({ length: 20_000 }, (_, i) =>
      i % 3 === 0 ? 0.25 : i % 3 === 1 ? 0.1 + next() * 1e-9 : next() ** 4 * 0.9,
    );
    const file = path.join(dir, 'kept.bin');
    await writeFile(file, new Uint8Array(values.buffer));
    const summary = new DistanceSummary(0.05);
    for (const value of values) summary.add(value);
    for (const collect of [5, 100, 1 << 20]) {
      expectSameFigures(await distanceFigures(file, summary, 20_500, collect), comparisonFigures(values.slice(), 20_500, 0.05));
    }
  });
});

function expectSameFigures(
  actual: Awaited<ReturnType<typeof distanceFigures>>,
  expected: ReturnType<typeof comparisonFigures>,
): void {
  const { mean, rms, ...rest } = actual.stats;
  const { mean: expectedMean, rms: expectedRms, ...expectedRest } = expected.stats;
  expect(rest).toEqual(expectedRest);
  // Sums taken in another order.
  expect(mean).toBeCloseTo(expectedMean!, 12);
  expect(rms).toBeCloseTo(expectedRms!, 12);
  expect(actual.histogram).toEqual(expected.histogram);
}

const run = promisify(execFile);

async function cloudCompareInstalled(): Promise<boolean> {
  try {
    await run('sh', ['-c', 'command -v CloudCompare']);
    return true;
  } catch {
    return false;
  }
}

const withCloudCompare = await cloudCompareInstalled();
if (!withCloudCompare) {
  console.warn('CloudCompare is not installed (Debian package cloudcompare): the side-by-side C2C test is skipped');
}

describe.skipIf(!withCloudCompare)('cloud-to-cloud distances beside CloudCompare', () => {
  it("equal CloudCompare's C2C distances within 0.1 mm for every point, and so do the figures", async () => {
    const work = path.join(dir, 'cloudcompare');
    await mkdir(work);
    const maxDistance = 0.5;
    const reference = path.join(work, 'reference.ply');
    const compared = path.join(work, 'compared.ply');
    await writeBinaryPly(reference, site(30_000, 11, false));
    await writeBinaryPly(compared, site(20_000, 12, true));
    await run(
      'CloudCompare',
      [
        '-SILENT',
        '-AUTO_SAVE',
        'OFF',
        '-NO_TIMESTAMP',
        '-C_EXPORT_FMT',
        'ASC',
        '-PREC',
        '12',
        '-SEP',
        'SPACE',
        '-ADD_HEADER',
      ].concat(['-O', compared, '-O', reference, '-C2C_DIST', '-SAVE_CLOUDS']),
      { cwd: work, env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, maxBuffer: 1 << 24 },
    );
    const saved = (await readdir(work)).find((name) => name.startsWith('compared_C2C_DIST') && name.endsWith('.asc'));
    expect(saved).toBeDefined();
    const [header, ...lines] = (await readFile(path.join(work, saved!), 'utf8')).trim().split('\n');
    const columns = header!.replace('//', '').split(' ');
    expect(columns.slice(0, 3)).toEqual(['X', 'Y', 'Z']);
    const column = columns.indexOf('C2C_absolute_distances');
    expect(column).toBeGreaterThan(2);
    const theirs = new Map(
      lines.map((line) => {
        const values = line.trim().split(' ').map(Number);
        return [key([values[0]!, values[1]!, values[2]!]), values[column]!];
      }),
    );
    expect(theirs.size).toBe(20_000);

    const out = path.join(work, 'ours');
    await mkdir(out);
    const result = await compareClouds({ reference, compared, method: 'c2c', maxDistance, tolerance: 0.05 }, out, {
      cellPoints: 5000,
    });
    const rows = await readCsv(path.join(out, result.csvPath));
    expect(rows.length).toBe(20_000);
    const kept: number[] = [];
    for (const { point, distance } of rows) {
      const their = theirs.get(key(point));
      expect(their).toBeDefined();
      if (distance === undefined) {
        expect(their!).toBeGreaterThan(maxDistance - 1e-4);
      } else {
        expect(Math.abs(distance - their!)).toBeLessThanOrEqual(1e-4);
        kept.push(their!);
      }
    }
    const expected = comparisonFigures(Float64Array.from(kept), 20_000, 0.05).stats;
    expect(result.stats.comparedPoints).toBe(expected.comparedPoints);
    expect(result.stats.beyondMaxDistance).toBe(expected.beyondMaxDistance);
    expect(result.stats.beyondMaxDistance).toBeGreaterThan(50);
    expect(result.stats.withinTolerance).toBe(expected.withinTolerance);
    for (const figure of ['mean', 'median', 'p95', 'p99', 'max', 'rms'] as const) {
      expect(Math.abs(result.stats[figure]! - expected[figure]!)).toBeLessThanOrEqual(1e-4);
    }
  });
});
