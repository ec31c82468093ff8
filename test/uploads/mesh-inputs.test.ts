import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import {
  glbOfJson,
  type MeshSuite,
  noiseTexture,
  plyDeclaringFaces,
  refusedAtFinalize,
  texturedBoxFiles,
  type UploadedFile,
  uploadedSession,
} from '../support/mesh-uploads.js';
import { boxGlb, boxGltf, boxPly } from '../support/model-samples.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas, writePly } from '../support/point-cloud-samples.js';
import { BLOB_BACKENDS, type BlobBackend, sampleBytes } from '../support/uploads.js';

/** The deployment's mesh input limit in this suite: one 160-pixel texture with its box fits, two do not. */
const MESH_MAX_INPUT_BYTES = 120_000;

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))(
  'mesh inputs at finalize: what a session holds, its main file, the limits, on $name',
  (backend) => {
    let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
    let t: TestPlatform;
    let org: OrgFixture;
    let siteId: string;

    beforeAll(async () => {
      blobStore = await backend.start();
      t = await startPlatform({ ...blobStore.env, RDP_MESH_MAX_INPUT_BYTES: String(MESH_MAX_INPUT_BYTES) });
      org = await createOrg(t, { storageQuota: 10 * 1024 * 1024 });
      ({ siteId } = await createTree(org));
    });
    afterAll(async () => {
      await t?.close();
      await blobStore?.stop();
    });

    const suite = (): MeshSuite => ({ t, org, siteId });
    const uploaded = (name: string, files: UploadedFile[]) => uploadedSession(suite(), name, files);
    const refused = (name: string, files: UploadedFile[], error: string, message: RegExp) =>
      refusedAtFinalize(suite(), name, files, error, message);

    it('takes an OBJ with its MTL and a texture larger than it, the OBJ as the input, and prices it as a mesh', async () => {
      const files = texturedBoxFiles();
      const [obj, mtl, png] = files as [
        { name: string; bytes: Buffer },
        { name: string; bytes: Buffer },
        { name: string; bytes: Buffer },
      ];
      expect(png.bytes.length).toBeGreaterThan(50 * obj.bytes.length);
      const { bundleId, sessionPath, etags } = await uploaded('Textured box', files);
      const finalized = await org.admin.post(`${sessionPath}/finalize`, { files: etags });
      expect(finalized.status).toBe(200);
      const total = obj.bytes.length + mtl.bytes.length + png.bytes.length;
      expect(finalized.body).toMatchObject({ state: 'uploaded', size: total });
      const [input] = finalized.body.components;
      expect(input).toMatchObject({ role: 'input', format: 'obj', size: total });
      expect(Object.fromEntries(input.files.map((file: { name: string; format: string }) => [file.name, file.format]))).toEqual({
        'box.obj': 'obj',
        'box.mtl': 'mtl',
        'box.png': 'png',
      });
      const cost = await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`);
      expect(cost.status).toBe(200);
      // A mesh: base 4, one a file, 2 for the started million triangles (docs/processing.md, "Mesh inputs").
      expect(cost.body).toMatchObject({ format: 'obj', fileCount: 3, inputBytes: total, triangles: 12, cost: 4 + 3 + 2 });
    });

    it('takes glTF with its buffer, a GLB and a PLY with faces as meshes; a PLY without faces stays a point cloud', async () => {
      const cases = [
        {
          files: [
            { name: 'box.gltf', bytes: Buffer.from(await boxGltf('box.bin')) },
            { name: 'box.bin', bytes: randomBytes(20_000) },
          ],
          format: 'gltf',
          triangles: 12,
        },
        { files: [{ name: 'box.glb', bytes: await boxGlb() }], format: 'glb', triangles: 12 },
        // A PLY's faces as its header declares them: the box's 6 quads.
        { files: [{ name: 'box.ply', bytes: boxPly('binary') }], format: 'ply-mesh', triangles: 6 },
        {
          files: [{ name: 'cloud.ply', bytes: await sampleBytes((file) => writePly(file, 200, 'ascii')) }],
          format: 'ply',
          triangles: null,
        },
      ];
      for (const { files, format, triangles } of cases) {
        const { bundleId, sessionPath, etags } = await uploaded(`Mesh ${format}`, files);
        const finalized = await org.admin.post(`${sessionPath}/finalize`, { files: etags });
        expect(finalized.status, format).toBe(200);
        expect(finalized.body.components[0].format).toBe(format);
        const cost = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
        expect(cost.triangles, format).toBe(triangles);
        expect(cost.cost).toBe((format === 'ply' ? 2 : 4) + files.length + (format === 'ply' ? 1 : 2));
      }
    });

    it('prices a PLY and a GLB by the triangles finalize counts: the same bytes, more triangles, a higher cost', async () => {
      /** A dense GLB's JSON: one primitive of `indices` indices, as many bytes for any 7-digit count. */
      const glb = (indices: number) =>
        glbOfJson({
          asset: { version: '2.0' },
          accessors: [
            { count: 1000, type: 'VEC3', componentType: 5126 },
            { count: indices, type: 'SCALAR', componentType: 5125 },
          ],
          meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
          nodes: [{ mesh: 0 }],
        });
      const pairs = [
        { format: 'ply-mesh', sparse: plyDeclaringFaces(1_000_000), dense: plyDeclaringFaces(3_000_000), name: 'mesh.ply' },
        { format: 'glb', sparse: glb(3_000_000), dense: glb(9_000_000), name: 'mesh.glb' },
      ];
      for (const { format, sparse, dense, name } of pairs) {
        expect(dense.length).toBe(sparse.length);
        const costs = [];
        for (const [which, bytes] of [
          ['sparse', sparse],
          ['dense', dense],
        ] as const) {
          const { bundleId, sessionPath, etags } = await uploaded(`${which} ${format}`, [{ name, bytes }]);
          expect((await org.admin.post(`${sessionPath}/finalize`, { files: etags })).status).toBe(200);
          const cost = await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`);
          expect(cost.status).toBe(200);
          expect(cost.body).toMatchObject({ format, inputBytes: bytes.length, fileCount: 1 });
          costs.push(cost.body);
        }
        // 1 million triangles: one started million; 3 million: three (docs/processing.md, "Mesh inputs").
        expect(costs.map((cost) => [cost.triangles, cost.cost])).toEqual([
          [1_000_000, 4 + 1 + 2],
          [3_000_000, 4 + 1 + 6],
        ]);
      }
      // A GLB whose JSON chunk says it is over the 32 MiB finalize parses: triangles unknown, priced by bytes.
      const unparsed = glb(3_000_000);
      unparsed.writeUInt32LE(33 * 1024 * 1024, 12);
      const { bundleId, sessionPath, etags } = await uploaded('Unparsed GLB', [{ name: 'large.glb', bytes: unparsed }]);
      expect((await org.admin.post(`${sessionPath}/finalize`, { files: etags })).status).toBe(200);
      const cost = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
      expect(cost).toMatchObject({ format: 'glb', triangles: null, cost: 4 + 1 + 2 });
    });

    it('refuses a session with no mesh, point cloud or video, and a mesh name on other content, storing nothing', async () => {
      const [, mtl, png] = texturedBoxFiles();
      await refused(
        'Only materials',
        [mtl as { name: string; bytes: Buffer }, png as { name: string; bytes: Buffer }],
        'FileNotCompatible',
        /^box\.png .*no processing reads.*OBJ, glTF, GLB, PLY with faces/,
      );
      await refused(
        'Not an OBJ',
        [{ name: 'scan.obj', bytes: randomBytes(3_000) }],
        'FileNotCompatible',
        /scan\.obj should be obj/,
      );
      await refused(
        'Not a GLB',
        [{ name: 'scan.glb', bytes: Buffer.from('v 0 0 0\n') }],
        'FileNotCompatible',
        /scan\.glb should be glb but its content is obj/,
      );
      await refused(
        'Prose',
        [{ name: 'readme.txt', bytes: Buffer.from('a mesh will follow\n') }],
        'FileNotCompatible',
        /readme\.txt is text/,
      );
    });

    it('refuses, naming the limit, a mesh over 20 million triangles by its PLY header or glTF accessors', async () => {
      await refused(
        'Dense PLY',
        [{ name: 'dense.ply', bytes: plyDeclaringFaces(20_000_001) }],
        'MeshInputTooLarge',
        /dense\.ply has at least 20000001 triangles; a mesh input may have at most 20 million/,
      );
      const dense = glbOfJson({
        asset: { version: '2.0' },
        accessors: [
          { count: 1000, type: 'VEC3', componentType: 5126 },
          { count: 30_000_003, type: 'SCALAR', componentType: 5125 },
        ],
        meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
        // One mesh drawn twice: 2 x 10 000 001 triangles.
        nodes: [{ mesh: 0 }, { mesh: 0, translation: [5, 0, 0] }],
      });
      await refused(
        'Dense GLB',
        [{ name: 'dense.glb', bytes: dense }],
        'MeshInputTooLarge',
        /dense\.glb has at least 20000002 triangles/,
      );
      // At the limit: taken.
      const { sessionPath, etags } = await uploaded('Just dense enough', [
        { name: 'ok.ply', bytes: plyDeclaringFaces(20_000_000) },
      ]);
      expect((await org.admin.post(`${sessionPath}/finalize`, { files: etags })).status).toBe(200);
    });

    it("refuses a mesh whose session's files together are over the deployment's limit; a point cloud as large is taken", async () => {
      const files = [...texturedBoxFiles(), { name: 'box-2.png', bytes: noiseTexture(160, 2) }];
      const total = files.reduce((sum, file) => sum + file.bytes.length, 0);
      expect(total).toBeGreaterThan(MESH_MAX_INPUT_BYTES);
      await refused(
        'Heavy textures',
        files,
        'MeshInputTooLarge',
        new RegExp(`The mesh input is ${total} bytes with its files; a mesh input may be at most ${MESH_MAX_INPUT_BYTES} bytes`),
      );
      const las = await sampleBytes((file) => writeLas(file, 8_000));
      expect(las.length).toBeGreaterThan(MESH_MAX_INPUT_BYTES);
      const { sessionPath, etags } = await uploaded('Large cloud', [{ name: 'large.las', bytes: las }]);
      expect((await org.admin.post(`${sessionPath}/finalize`, { files: etags })).status).toBe(200);
    });
  },
);
