import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { MUNICH_UTM_32N, UTM_32N_WKT } from '../support/georeferencing.js';
import { writeTexturedObj } from '../support/mesh-samples.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { processedMeshSession } from '../support/processed-mesh.js';
import { contentUris } from '../support/processed-point-cloud.js';
import { checkTileset } from '../support/tileset-checker.js';
import { BLOB_BACKENDS, type BlobBackend } from '../support/uploads.js';

/** 200 x 100 cells: 40,000 triangles, more than one leaf of the tiler's default 32,768 (src/processing/meshes/mesh-tiler.ts). */
const COLUMNS = 200;
const ROWS = 100;
const TRIANGLES = COLUMNS * ROWS * 2;

interface TileJson {
  content: { uri: string };
  children?: TileJson[];
}

/** The triangles of a GLB tile: its primitives' indices over three. */
async function glbTriangles(glb: Uint8Array): Promise<number> {
  const document = await new NodeIO().readBinary(glb);
  let triangles = 0;
  for (const mesh of document.getRoot().listMeshes())
    for (const primitive of mesh.listPrimitives()) triangles += (primitive.getIndices()?.getCount() ?? 0) / 3;
  return triangles;
}

function leafUris(tile: TileJson): string[] {
  return tile.children ? tile.children.flatMap(leafUris) : [tile.content.uri];
}

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))(
  'a textured OBJ uploaded as one session, processed into mesh tiles and a twin layer, on $name',
  (backend) => {
    let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
    let t: TestPlatform;
    let org: OrgFixture;
    let siteId: string;
    let dir: string;

    beforeAll(async () => {
      blobStore = await backend.start();
      t = await startPlatform(blobStore.env, { worker: true });
      org = await createOrg(t, { storageQuota: 100 * 1024 * 1024 });
      ({ siteId } = await createTree(org));
      dir = await mkdtemp(path.join(tmpdir(), 'rdp-mesh-upload-'));
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await blobStore?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const processedSession = async (name: string, files: Map<string, string>) => {
      const processed = await processedMeshSession(org, siteId, name, files);
      // One input of the session's files, read as an OBJ (docs/processing.md, "Mesh inputs").
      expect(processed.finalized.components[0]).toMatchObject({ role: 'input', format: 'obj' });
      return processed;
    };

    it('makes a mesh derivative whose tileset and every tile come through the API, valid, with every triangle in a leaf; a twin layer of kind mesh', async () => {
      const input = path.join(dir, 'whole');
      await mkdir(input);
      const files = await writeTexturedObj(input, COLUMNS, ROWS);
      expect([...files.keys()].sort()).toEqual(['ground.png', 'terrain.mtl', 'terrain.obj']);
      const { bundleId, bundle } = await processedSession('Textured terrain', files);
      expect(bundle.state, JSON.stringify(bundle.processings)).toBe('ready');
      const [processing] = bundle.processings;
      expect(processing).toMatchObject({ state: 'succeeded', failureReason: null });
      const derivativeId = processing.derivativeId as string;
      const derivative = await org.admin.get(`/v1/nodes/${derivativeId}`);
      expect(derivative.body).toMatchObject({ type: 'mesh' });
      const apiUrl = t.regionUrl(org.region);
      expect(processing.tilesetUrl).toBe(`${apiUrl}/v1/nodes/${derivativeId}/tiles/tileset.json`);
      expect(bundle.thumbnail?.url).toBe(`${apiUrl}/v1/nodes/${bundleId}/thumbnail`);

      // The tileset and its tiles as a client gets them, written beside each other for the checker.
      const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${org.admin.token}` } });
      const fetched = path.join(dir, 'fetched');
      await mkdir(path.join(fetched, 'tiles'), { recursive: true });
      const tilesetResponse = await get(processing.tilesetUrl);
      expect(tilesetResponse.status).toBe(200);
      const tilesetText = await tilesetResponse.text();
      await writeFile(path.join(fetched, 'tileset.json'), tilesetText);
      const tileset = JSON.parse(tilesetText);
      expect(tileset.root.refine).toBe('REPLACE');
      expect(tileset.root.children?.length).toBeGreaterThan(0);
      const uris = contentUris(tileset);
      const triangles = new Map<string, number>();
      for (const uri of uris) {
        const tile = await get(new URL(uri, processing.tilesetUrl).href);
        expect(tile.status, uri).toBe(200);
        expect(tile.headers.get('content-type')).toBe('model/gltf-binary');
        expect(tile.headers.get('content-encoding')).toBe('gzip');
        const bytes = new Uint8Array(await tile.arrayBuffer());
        expect(Buffer.from(bytes).toString('latin1', 0, 4)).toBe('glTF');
        await mkdir(path.dirname(path.join(fetched, uri)), { recursive: true });
        await writeFile(path.join(fetched, uri), bytes);
        triangles.set(uri, await glbTriangles(bytes));
      }
      const report = await checkTileset(fetched);
      expect(report.issues).toEqual([]);
      expect(report.tiles).toBe(uris.length);
      const leaves = leafUris(tileset.root);
      expect(leaves.length).toBeGreaterThan(1);
      expect(leaves.reduce((sum, uri) => sum + (triangles.get(uri) ?? 0), 0)).toBe(TRIANGLES);

      const layer = await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`);
      expect(layer.status, JSON.stringify(layer.body)).toBe(201);
      expect(layer.body).toMatchObject({ kind: 'mesh' });
      // Without a .prj the mesh is in its own frame, which the layer says.
      expect(layer.body.frame).toMatchObject({ georeferenced: false, reason: 'noCoordinateSystem' });
    });

    it('places an OBJ uploaded with a .prj in its coordinate system: the layer is on the globe', async () => {
      const input = path.join(dir, 'projected');
      await mkdir(input);
      const origin: [number, number, number] = [MUNICH_UTM_32N.x, MUNICH_UTM_32N.y, MUNICH_UTM_32N.z];
      const files = await writeTexturedObj(input, 8, 4, { projected: { origin, prj: UTM_32N_WKT } });
      expect([...files.keys()].sort()).toEqual(['ground.png', 'terrain.mtl', 'terrain.obj', 'terrain.prj']);
      const { bundleId, bundle } = await processedSession('Projected terrain', files);
      expect(bundle.state, JSON.stringify(bundle.processings)).toBe('ready');
      const tileset = await (
        await fetch(bundle.processings[0].tilesetUrl, { headers: { authorization: `Bearer ${org.admin.token}` } })
      ).json();
      expect(tileset.asset.extras.georeference).toMatchObject({ georeferenced: true, crs: 'EPSG:32632' });
      expect(tileset.root.transform).toHaveLength(16);
      const layer = await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`);
      expect(layer.status, JSON.stringify(layer.body)).toBe(201);
      expect(layer.body).toMatchObject({ kind: 'mesh', frame: { georeferenced: true, crs: 'EPSG:32632' } });
      // The frame's origin is the mesh's centre in UTM: 50 m east and south of its first vertex.
      expect(layer.body.frame.origin.x).toBeCloseTo(origin[0] + 50, 2);
      expect(layer.body.frame.origin.y).toBeCloseTo(origin[1] - 50, 2);
    });

    it("fails the processing of an OBJ whose MTL's texture was not uploaded, naming the file", async () => {
      const input = path.join(dir, 'no-texture');
      await mkdir(input);
      const files = await writeTexturedObj(input, 8, 8, { png: false });
      expect([...files.keys()].sort()).toEqual(['terrain.mtl', 'terrain.obj']);
      const { bundle } = await processedSession('Terrain without its texture', files);
      expect(bundle).toMatchObject({ state: 'failed', isFailed: true, isProcessing: false });
      expect(bundle.processings[0].state).toBe('failed');
      // Named as uploaded, with the material that refers to it; no path of the worker's folder.
      expect(bundle.processings[0].failureReason).toContain(
        'The material library terrain.mtl references ground.png, which is not among the uploaded files',
      );
      expect(bundle.processings[0].failureReason).not.toMatch(/\/tmp|input\/\d/);
    });
  },
);
