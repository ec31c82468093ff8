import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Georeference } from '../../src/domain/georeferencing/georeference.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { MUNICH_UTM_32N, placeOfTransform, UTM_32N_EGM96_WKT, utmPlace, VIENNA_UTM_33N } from '../support/georeferencing.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import {
  LAS_WKT_BIT,
  lasGeoKeysRecord,
  lasWktRecord,
  shiftedSource,
  writeE57,
  writeLas,
  writePly,
} from '../support/point-cloud-samples.js';
import { bundleWithInput, sampleBytes } from '../support/uploads.js';

/**
 * Georeferencing through the real job path: a bundle's point cloud is uploaded and processed by
 * the worker, and the derivative says where it sits, in its tileset.json (root transform and
 * asset.extras) and in the processing's record that the twin reads.
 */
describe('georeferenced point-cloud derivatives', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t, { storageQuota: 20 * 1024 * 1024 });
    ({ siteId } = await createTree(org));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Uploads and processes one input; the derivative's tileset.json and stored georeference. */
  async function processed(name: string, bytes: Buffer) {
    const { bundleId, finalized } = await bundleWithInput(org.admin, siteId, name, { name, bytes });
    expect(finalized.status).toBe(200);
    const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
    expect((await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost })).status).toBe(202);
    let bundle: any;
    for (const started = Date.now(); Date.now() - started < 60_000; ) {
      bundle = (await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`)).body;
      if (bundle.state !== 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(bundle.state).toBe('ready');
    const derivativeId = bundle.processings[0].derivativeId as string;
    const chunks: Buffer[] = [];
    for await (const chunk of await t.platform.blobs.read(`orgs/${org.orgId}/nodes/${derivativeId}/tileset.json`))
      chunks.push(chunk as Buffer);
    const tileset = JSON.parse(Buffer.concat(chunks).toString());
    const row = await t.platform.region(org.region).bundles.processingOfDerivative(derivativeId);
    expect(row?.id).toBe(bundle.processings[0].id);
    const stored = JSON.parse(row?.georeference ?? 'null') as Georeference;
    return { tileset, stored };
  }

  it('places a LAS with a WKT record (EPSG:32632) at its centre on the globe, and records it', async () => {
    const source = shiftedSource(MUNICH_UTM_32N);
    const bytes = await sampleBytes((file) =>
      writeLas(file, 3000, '1.4', { source, vlrs: [lasWktRecord(UTM_32N_EGM96_WKT)], globalEncoding: LAS_WKT_BIT }),
    );
    const { tileset, stored } = await processed('munich.las', bytes);
    if (!stored.georeferenced) throw new Error(`not placed: ${stored.reason}`);
    expect(stored).toMatchObject({ crs: 'EPSG:32632', verticalCrs: 'EPSG:5773', transform: tileset.root.transform });
    expect(tileset.asset.extras.georeference).toMatchObject({ georeferenced: true, crs: 'EPSG:32632', origin: stored.origin });
    const expected = utmPlace(32, stored.origin).place;
    const where = placeOfTransform(tileset.root.transform);
    expect(Math.abs(where.longitude - expected.longitude)).toBeLessThan(1e-6);
    expect(Math.abs(where.latitude - expected.latitude)).toBeLessThan(1e-6);
    expect(Math.abs(where.height - stored.origin[2])).toBeLessThan(0.01);
    // The origin is the centre of the cloud, which lies around the place it was written at.
    expect(Math.abs(stored.origin[0] - (MUNICH_UTM_32N.x + 50))).toBeLessThan(1);
  });

  it('places a LAS with GeoTIFF keys (ProjectedCSTypeGeoKey 32633)', async () => {
    const bytes = await sampleBytes((file) =>
      writeLas(file, 3000, '1.2', {
        source: shiftedSource(VIENNA_UTM_33N),
        vlrs: [
          lasGeoKeysRecord([
            [1024, 1],
            [3072, 32633],
          ]),
        ],
      }),
    );
    const { tileset, stored } = await processed('vienna.las', bytes);
    if (!stored.georeferenced) throw new Error(`not placed: ${stored.reason}`);
    expect(stored.crs).toBe('EPSG:32633');
    const expected = utmPlace(33, stored.origin).place;
    const where = placeOfTransform(tileset.root.transform);
    expect(Math.abs(where.longitude - expected.longitude)).toBeLessThan(1e-6);
    expect(Math.abs(where.latitude - expected.latitude)).toBeLessThan(1e-6);
    expect(Math.abs(where.height - stored.origin[2])).toBeLessThan(0.01);
  });

  it('keeps a PLY and an E57 without a coordinate system in their local frame, and says so', async () => {
    for (const [name, write] of [
      ['local.ply', (file: string) => writePly(file, 2000, 'binary_little_endian')],
      ['local.e57', (file: string) => writeE57(file, 2000)],
    ] as const) {
      const { tileset, stored } = await processed(name, await sampleBytes(write));
      expect(stored).toEqual({ georeferenced: false, reason: 'noCoordinateSystem' });
      expect(tileset.root.transform).toBeUndefined();
      expect(tileset.asset.extras).toEqual({ georeference: stored });
    }
  });

  it('keeps a LAS whose EPSG code is unknown in its local frame, with the reason, and still succeeds', async () => {
    const bytes = await sampleBytes((file) => writeLas(file, 3000, '1.2', { vlrs: [lasGeoKeysRecord([[3072, 31_999]])] }));
    const { tileset, stored } = await processed('unknown.las', bytes);
    expect(stored).toEqual({
      georeferenced: false,
      reason: 'unknownCoordinateSystem',
      crs: 'EPSG:31999',
      detail: 'EPSG:31999 is not among the coordinate systems we know',
    });
    expect(tileset.root.transform).toBeUndefined();
    expect(tileset.asset.extras.georeference).toEqual(stored);
  });
});
