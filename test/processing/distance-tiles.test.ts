import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processPointCloud } from '../../src/processing/point-cloud-processor.js';
import { DISTANCE_NOT_COMPUTABLE } from '../../src/processing/tiles/point-content.js';
import { type DistancePoint, writeDistancesPly } from '../support/distance-ply.js';
import { writePly } from '../support/point-cloud-samples.js';
import { readTileAttributes } from '../support/tile-attributes.js';
import { checkTileset } from '../support/tileset-checker.js';

/**
 * A comparison's distances PLY tiled with `_DISTANCE` (docs/comparisons-viewer.md): every point of
 * the tiles read back from the GLB bytes and matched by position to the PLY's point it came from.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-distance-tiles-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SIDE = 80;
const ORIGIN = { x: 500_000, y: 4_000_000, z: 100 };

/** A grid of SIDE × SIDE points 0.1 m apart on a gentle slope; every 7th beyond maxDistance (-1), every 11th not computable (NaN). */
function comparedPoints(): DistancePoint[] {
  return Array.from({ length: SIDE * SIDE }, (_, i) => {
    const column = i % SIDE;
    const row = Math.floor(i / SIDE);
    const distance = i % 11 === 0 ? Number.NaN : i % 7 === 0 ? -1 : (i % 997) * 0.001003 + 1e-7 * (i % 13);
    return { x: ORIGIN.x + column * 0.1, y: ORIGIN.y + row * 0.1, z: ORIGIN.z + column * 0.01, r: 200, g: 100, b: 50, distance };
  });
}

const key = (x: number, y: number) => `${Math.round((x - ORIGIN.x) * 10)},${Math.round((y - ORIGIN.y) * 10)}`;

describe('distance tiles', () => {
  it("carries each point's distance as a float _DISTANCE in place of _INTENSITY, -1 kept, NaN as the not-computable sentinel, valid glTF", async () => {
    const points = comparedPoints();
    const input = path.join(dir, 'compared-distances.ply');
    await writeDistancesPly(input, points);
    const byPosition = new Map(points.map((point) => [key(point.x, point.y), point]));
    for (const threads of [0, 2]) {
      const out = path.join(dir, `tiles-${threads}`);
      // Small tiles and memory: many tiles, streamed and in-memory boxes alike, on worker threads too.
      const result = await processPointCloud(input, out, { distance: true, tilePoints: 500, memoryPoints: 2000, threads });
      expect(result.attributes).toEqual(['position', 'color', 'distance']);
      const report = await checkTileset(out);
      expect(report.issues).toEqual([]);
      expect(report.gltfWarnings).toBe(0);
      expect(report.tiles).toBeGreaterThan(4);
      expect(report.points).toBe(points.length);
      const tiles = await readTileAttributes(out);
      expect(tiles.names).toEqual(['COLOR_0', 'POSITION', '_DISTANCE']);
      expect(tiles.accessors._DISTANCE).toEqual({ componentType: 5126, type: 'SCALAR', normalized: undefined });
      const seen = new Set<string>();
      let beyond = 0;
      let notComputable = 0;
      for (const tilePoint of tiles.points) {
        const at = key(tilePoint.x, tilePoint.y);
        const point = byPosition.get(at);
        expect(point, at).toBeDefined();
        seen.add(at);
        if (Number.isNaN(point!.distance)) {
          expect(tilePoint.distance).toBe(Math.fround(DISTANCE_NOT_COMPUTABLE));
          notComputable += 1;
        } else {
          // The float the PLY holds, exactly.
          expect(tilePoint.distance).toBe(Math.fround(point!.distance));
          if (point!.distance === -1) beyond += 1;
        }
      }
      expect(seen.size).toBe(points.length);
      expect(beyond).toBe(points.filter((point) => point.distance === -1).length);
      expect(beyond).toBeGreaterThan(0);
      expect(notComputable).toBe(points.filter((point) => Number.isNaN(point.distance)).length);
    }
  });

  it('tiles a PLY with distances as any cloud without the option, and refuses the option for a cloud without them', async () => {
    const input = path.join(dir, 'plain-distances.ply');
    await writeDistancesPly(input, comparedPoints().slice(0, 1000));
    const out = path.join(dir, 'plain-tiles');
    const result = await processPointCloud(input, out, { threads: 0 });
    expect(result.attributes).toEqual(['position', 'color']);
    expect((await readTileAttributes(out)).names).toEqual(['COLOR_0', 'POSITION']);

    const scan = path.join(dir, 'scan.ply');
    await writePly(scan, 1000, 'binary_little_endian');
    await expect(processPointCloud(scan, path.join(dir, 'scan-tiles'), { distance: true, threads: 0 })).rejects.toThrow(
      /no distance property/,
    );
  });
});
