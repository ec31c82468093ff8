import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processPointCloud } from '../../src/processing/point-cloud-processor.js';
import { writeLaz } from '../support/laz-writer.js';
import { SAMPLE_ORIGIN, samplePoint, writeE57, writeLas, writePly, writePts, writeXyz } from '../support/point-cloud-samples.js';
import { readTileAttributes, type TilePoint } from '../support/tile-attributes.js';
import { checkTileset } from '../support/tileset-checker.js';

/**
 * Intensity and classification kept in every tile (docs/design/measurements.md, "Tile
 * attributes"; docs/processing.md, "Intensity and classification"): each tile's points read back
 * from the GLB bytes and matched to the sample points they came from.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-tile-attributes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The sample index of a tile point: the samples lie on a grid of `side` by `side` (point-cloud-samples.ts). */
function sampleIndex(point: TilePoint, count: number): number {
  const side = Math.ceil(Math.sqrt(count));
  const column = Math.round(((point.x - SAMPLE_ORIGIN.x) / 100) * side);
  const row = Math.round(((point.y - SAMPLE_ORIGIN.y) / 60) * side);
  return row * side + column;
}

async function tile(name: string, write: (file: string) => Promise<void>, count: number) {
  const input = path.join(dir, name);
  await write(input);
  const out = path.join(dir, `${name}-tiles`);
  // Small tiles and memory: many tiles, streamed and in-memory boxes alike.
  const result = await processPointCloud(input, out, { tilePoints: 1500, memoryPoints: 6000, threads: 0 });
  const report = await checkTileset(out);
  expect(report.issues).toEqual([]);
  expect(report.gltfWarnings).toBe(0);
  expect(report.points).toBe(count);
  const tiles = await readTileAttributes(out);
  expect(tiles.points).toHaveLength(count);
  const seen = new Set(tiles.points.map((p) => sampleIndex(p, count)));
  expect(seen.size).toBe(count);
  return { result, tiles };
}

const HALF_STEP = 0.5 / 0xffff + 1e-12;

function expectValues(
  points: TilePoint[],
  count: number,
  intensity: (i: number) => number,
  classification: (i: number) => number,
): void {
  for (const point of points) {
    const i = sampleIndex(point, count);
    // A normalized unsigned short: within half of a 1/65535 step (exact for LAS's own 16-bit values).
    expect(Math.abs(point.intensity! - intensity(i))).toBeLessThanOrEqual(HALF_STEP);
    expect(point.classification).toBe(classification(i));
  }
}

const BOTH = ['COLOR_0', 'POSITION', '_CLASSIFICATION', '_INTENSITY'];

describe('intensity and classification in the tiles', () => {
  it('LAS point formats 1 (class in the low 5 bits) and 7 (a whole byte): _INTENSITY /65535 as a normalized unsigned short, _CLASSIFICATION as the class byte', async () => {
    const count = 10_000;
    for (const [format, version, mask] of [
      [1, '1.2', 0x1f],
      [7, '1.4', 0xff],
    ] as const) {
      const { result, tiles } = await tile(
        `format-${format}.las`,
        (file) => writeLas(file, count, version, { pointFormat: format, classification: true }),
        count,
      );
      const colored = format === 7;
      expect(result.attributes).toEqual(['position', ...(colored ? ['color'] : []), 'intensity', 'classification']);
      expect(tiles.names).toEqual(BOTH.filter((name) => colored || name !== 'COLOR_0'));
      expect(tiles.accessors._INTENSITY).toEqual({ componentType: 5123, type: 'SCALAR', normalized: true });
      expect(tiles.accessors._CLASSIFICATION).toEqual({ componentType: 5121, type: 'SCALAR', normalized: undefined });
      expectValues(
        tiles.points,
        count,
        (i) => samplePoint(i, count).intensity / 65535,
        (i) => samplePoint(i, count).classification! & mask,
      );
    }
  });

  it('LAZ: intensity and the class code of its records', async () => {
    const count = 12_000;
    const { result, tiles } = await tile('classified.laz', (file) => writeLaz(file, count, 5000), count);
    expect(result.attributes).toEqual(['position', 'intensity', 'classification']);
    expect(tiles.names).toEqual(['POSITION', '_CLASSIFICATION', '_INTENSITY']);
    // The LAZ writer gives every point class 1 (unclassified): test/support/laz-writer.ts.
    expectValues(
      tiles.points,
      count,
      (i) => samplePoint(i, count).intensity / 65535,
      () => 1,
    );
  });

  it('PLY scalar_intensity (a float: scaled by its own min..max) and classification, ascii and binary', async () => {
    const count = 5000;
    const maxIntensity = Math.min(count - 1, 4095);
    for (const encoding of ['ascii', 'binary_little_endian'] as const) {
      const { result, tiles } = await tile(
        `classified-${encoding}.ply`,
        (file) => writePly(file, count, encoding, { classification: true }),
        count,
      );
      expect(result.attributes).toEqual(['position', 'intensity', 'classification']);
      expect(tiles.names).toEqual(['POSITION', '_CLASSIFICATION', '_INTENSITY']);
      expectValues(
        tiles.points,
        count,
        (i) => samplePoint(i, count).intensity / maxIntensity,
        (i) => samplePoint(i, count).classification!,
      );
    }
  });

  it('PTS intensity scaled by the file’s own min..max; E57 intensity by its field’s declared range', async () => {
    const count = 5000;
    const pts = await tile('scan.pts', (file) => writePts(file, count), count);
    expect(pts.result.attributes).toEqual(['position', 'color', 'intensity']);
    expect(pts.tiles.names).toEqual(['COLOR_0', 'POSITION', '_INTENSITY']);
    for (const point of pts.tiles.points) {
      expect(Math.abs(point.intensity! - samplePoint(sampleIndex(point, count), count).intensity / 4095)).toBeLessThanOrEqual(
        HALF_STEP,
      );
      expect(point.classification).toBeUndefined();
    }
    const e57 = await tile('scan.e57', (file) => writeE57(file, count), count);
    expect(e57.result.attributes).toEqual(['position', 'color', 'intensity']);
    expect(e57.tiles.names).toEqual(['COLOR_0', 'POSITION', '_INTENSITY']);
    for (const point of e57.tiles.points) {
      // The sample's E57 intensity field is declared 0..4095 (point-cloud-samples.ts).
      expect(Math.abs(point.intensity! - samplePoint(sampleIndex(point, count), count).intensity / 4095)).toBeLessThanOrEqual(
        HALF_STEP,
      );
    }
  });

  it('E57 with a classification field and intensityLimits: intensity scaled from the limits, class codes as stored', async () => {
    const count = 5000;
    const { result, tiles } = await tile(
      'classified.e57',
      (file) => writeE57(file, count, { classification: true, intensityLimits: [0, 2000] }),
      count,
    );
    expect(result.attributes).toEqual(['position', 'color', 'intensity', 'classification']);
    expect(tiles.names).toEqual(BOTH);
    // Limits 0..2000: the sample's intensities above 2000 are clamped to 1.
    expectValues(
      tiles.points,
      count,
      (i) => Math.min(1, samplePoint(i, count).intensity / 2000),
      (i) => samplePoint(i, count).classification!,
    );
  });

  it('a cloud without them has neither: XYZ, and LAS whose classes are all 0 (never classified)', async () => {
    const count = 4000;
    const xyz = await tile('plain.xyz', (file) => writeXyz(file, count), count);
    expect(xyz.result.attributes).toEqual(['position', 'color']);
    expect(xyz.tiles.names).toEqual(['COLOR_0', 'POSITION']);
    const las = await tile('unclassified.las', (file) => writeLas(file, count), count);
    expect(las.result.attributes).toEqual(['position', 'color', 'intensity']);
    expect(las.tiles.names).toEqual(['COLOR_0', 'POSITION', '_INTENSITY']);
  });
});
