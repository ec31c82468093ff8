import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processPointCloud } from '../../src/processing/point-cloud-processor.js';
import { openPointCloud } from '../../src/processing/point-clouds/open-point-cloud.js';
import {
  ecefOfLocal,
  MUNICH_UTM_32N,
  placeOfTransform,
  UTM_32N_EGM96_WKT,
  UTM_32N_WKT,
  utmPlace,
  VIENNA_UTM_33N,
} from '../support/georeferencing.js';
import { writeLaz } from '../support/laz-writer.js';
import {
  LAS_WKT_BIT,
  lasGeoKeysRecord,
  lasRecord,
  lasWktRecord,
  shiftedSource,
  writeE57,
  writeLas,
  writePly,
} from '../support/point-cloud-samples.js';
import { checkTileset } from '../support/tileset-checker.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-geo-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function declaredCrs(name: string, write: (file: string) => Promise<void>) {
  const file = path.join(dir, name);
  await write(file);
  return (await openPointCloud(file)).header.crs;
}

/** A glb's node translation and its BIN chunk (the point floats). */
function glbParts(bytes: Buffer): { translation: number[]; bin: Buffer } {
  const jsonLength = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.toString('utf8', 20, 20 + jsonLength));
  return { translation: json.nodes[0].translation, bin: bytes.subarray(20 + jsonLength + 8) };
}

const munich = shiftedSource(MUNICH_UTM_32N);

describe('the coordinate system a point cloud declares', () => {
  it('reads LAS WKT (global encoding bit 4), GeoTIFF keys, 1.4 extended records, LAZ and E57; PLY declares none', async () => {
    expect(
      await declaredCrs('wkt.las', (f) =>
        writeLas(f, 100, '1.4', { vlrs: [lasWktRecord(UTM_32N_EGM96_WKT)], globalEncoding: LAS_WKT_BIT }),
      ),
    ).toEqual({ source: 'lasWkt', epsg: 32632, definition: UTM_32N_WKT, vertical: 'EPSG:5773' });
    expect(
      await declaredCrs('keys.las', (f) =>
        writeLas(f, 100, '1.2', {
          vlrs: [
            lasRecord('other', 7, Buffer.from('not a projection')),
            lasGeoKeysRecord([
              [1024, 1],
              [3072, 32633],
            ]),
          ],
        }),
      ),
    ).toEqual({ source: 'lasGeoTiff', epsg: 32633 });
    // Both records: the bit says which one counts.
    const both = [lasWktRecord(UTM_32N_WKT), lasGeoKeysRecord([[3072, 32633]])];
    expect(await declaredCrs('both-keys.las', (f) => writeLas(f, 100, '1.2', { vlrs: both }))).toMatchObject({ epsg: 32633 });
    expect(
      await declaredCrs('both-wkt.las', (f) => writeLas(f, 100, '1.4', { vlrs: both, globalEncoding: LAS_WKT_BIT })),
    ).toMatchObject({ epsg: 32632 });
    expect(
      await declaredCrs('evlr.las', (f) =>
        writeLas(f, 100, '1.4', { evlrs: [lasWktRecord(UTM_32N_WKT, true)], globalEncoding: LAS_WKT_BIT }),
      ),
    ).toMatchObject({ source: 'lasWkt', epsg: 32632 });
    expect(await declaredCrs('wkt.laz', (f) => writeLaz(f, 1000, 400, munich, [lasWktRecord(UTM_32N_WKT)]))).toMatchObject({
      source: 'lasWkt',
      epsg: 32632,
    });
    expect(await declaredCrs('crs.e57', (f) => writeE57(f, 100, { coordinateMetadata: 'EPSG:25832' }))).toEqual({
      source: 'e57',
      epsg: 25832,
    });
    expect(await declaredCrs('none.e57', (f) => writeE57(f, 100))).toBeUndefined();
    expect(await declaredCrs('none.las', (f) => writeLas(f, 100))).toBeUndefined();
    expect(await declaredCrs('none.ply', (f) => writePly(f, 100, 'ascii'))).toBeUndefined();
  });
});

describe('georeferenced tilesets', () => {
  it('puts a UTM 32N LAS on the globe: root transform at the centre, tiles relative to it, the same points as unplaced', async () => {
    const count = 60_000;
    const placedInput = path.join(dir, 'placed.las');
    const localInput = path.join(dir, 'local.las');
    await writeLas(placedInput, count, '1.4', {
      source: munich,
      vlrs: [lasWktRecord(UTM_32N_WKT)],
      globalEncoding: LAS_WKT_BIT,
    });
    await writeLas(localInput, count, '1.4', { source: munich });
    // Small tiles and memory: the root is split while decoding and the rest tiled on worker threads.
    const options = { tilePoints: 4000, memoryPoints: 20_000, threads: 2 };
    const placedOut = path.join(dir, 'placed-out');
    const localOut = path.join(dir, 'local-out');
    const placed = await processPointCloud(placedInput, placedOut, options);
    const local = await processPointCloud(localInput, localOut, options);

    expect(local.georeference).toEqual({ georeferenced: false, reason: 'noCoordinateSystem' });
    const localTileset = JSON.parse(await readFile(path.join(localOut, 'tileset.json'), 'utf8'));
    expect(localTileset.root.transform).toBeUndefined();
    expect(localTileset.asset.extras).toEqual({ georeference: { georeferenced: false, reason: 'noCoordinateSystem' } });

    const { georeference } = placed;
    if (!georeference.georeferenced) throw new Error(`not placed: ${georeference.reason}`);
    const centre = [0, 1, 2].map((a) => (placed.bounds.min[a]! + placed.bounds.max[a]!) / 2) as [number, number, number];
    expect(georeference).toMatchObject({ crs: 'EPSG:32632', origin: centre });
    const tileset = JSON.parse(await readFile(path.join(placedOut, 'tileset.json'), 'utf8'));
    expect(tileset.asset.extras.georeference).toMatchObject({ georeferenced: true, crs: 'EPSG:32632', origin: centre });
    expect(tileset.asset.extras.georeference.transform).toBeUndefined();
    const expected = utmPlace(32, centre);
    const where = placeOfTransform(tileset.root.transform);
    expect(Math.abs(where.longitude - expected.place.longitude)).toBeLessThan(1e-6);
    expect(Math.abs(where.latitude - expected.place.latitude)).toBeLessThan(1e-6);
    expect(Math.abs(where.height - centre[2])).toBeLessThan(0.01);
    // A corner of the cloud, 60 m from the centre, lands where proj4 puts it.
    const corner = placed.bounds.max;
    const local3 = [0, 1, 2].map((a) => corner[a]! - centre[a]!) as [number, number, number];
    const cornerEcef = ecefOfLocal(tileset.root.transform, local3);
    const cornerExpected = utmPlace(32, corner).ecef;
    expect(Math.hypot(...cornerEcef.map((v, i) => v - cornerExpected[i]!))).toBeLessThan(0.005);

    const report = await checkTileset(placedOut);
    expect(report.issues).toEqual([]);
    expect(report.points).toBe(count);
    // Boxes around the origin now: the root box's centre is within the cloud's half extent of 0.
    expect(Math.max(...tileset.root.boundingVolume.box.slice(0, 3).map(Math.abs))).toBeLessThan(100);

    // The same tiles: the same floats in every content, node translations moved by the origin.
    const tiles = (await readdir(path.join(localOut, 'tiles'))).sort();
    expect((await readdir(path.join(placedOut, 'tiles'))).sort()).toEqual(tiles);
    for (const name of tiles) {
      const a = glbParts(await readFile(path.join(localOut, 'tiles', name)));
      const b = glbParts(await readFile(path.join(placedOut, 'tiles', name)));
      expect(b.bin.equals(a.bin)).toBe(true);
      const shifted = [a.translation[0]! - centre[0], a.translation[1]! - centre[2], a.translation[2]! + centre[1]];
      b.translation.forEach((value, i) => {
        expect(value).toBeCloseTo(shifted[i]!, 6);
      });
    }
  });

  it('places GeoTIFF keys (UTM 33N) and E57 coordinateMetadata; stays local with the reason for an unknown code', async () => {
    const keysInput = path.join(dir, 'keys.las');
    await writeLas(keysInput, 3000, '1.2', {
      source: shiftedSource(VIENNA_UTM_33N),
      vlrs: [
        lasGeoKeysRecord([
          [1024, 1],
          [3072, 32633],
          [4096, 5773],
        ]),
      ],
    });
    const keys = await processPointCloud(keysInput, path.join(dir, 'keys-out'));
    if (!keys.georeference.georeferenced) throw new Error(`not placed: ${keys.georeference.reason}`);
    expect(keys.georeference).toMatchObject({ crs: 'EPSG:32633', verticalCrs: 'EPSG:5773' });
    const centre = keys.georeference.origin;
    const where = placeOfTransform(keys.georeference.transform);
    expect(Math.abs(where.longitude - utmPlace(33, centre).place.longitude)).toBeLessThan(1e-6);
    expect(Math.abs(where.latitude - utmPlace(33, centre).place.latitude)).toBeLessThan(1e-6);

    const e57Input = path.join(dir, 'placed.e57');
    await writeE57(e57Input, 2000, { coordinateMetadata: 'EPSG:32632' });
    const e57 = await processPointCloud(e57Input, path.join(dir, 'e57-out'));
    expect(e57.georeference).toMatchObject({ georeferenced: true, crs: 'EPSG:32632' });
    expect((await checkTileset(path.join(dir, 'e57-out'))).issues).toEqual([]);

    const unknownInput = path.join(dir, 'unknown.las');
    await writeLas(unknownInput, 3000, '1.2', {
      vlrs: [
        lasGeoKeysRecord([
          [1024, 1],
          [3072, 31_999],
        ]),
      ],
    });
    const unknown = await processPointCloud(unknownInput, path.join(dir, 'unknown-out'));
    expect(unknown.georeference).toEqual({
      georeferenced: false,
      reason: 'unknownCoordinateSystem',
      crs: 'EPSG:31999',
      detail: 'EPSG:31999 is not among the coordinate systems we know',
    });
    const tileset = JSON.parse(await readFile(path.join(dir, 'unknown-out', 'tileset.json'), 'utf8'));
    expect(tileset.root.transform).toBeUndefined();
    expect(tileset.asset.extras.georeference).toEqual(unknown.georeference);
  });
});
