import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { type MeshSuite, refusedAtFinalize, uploadedSession } from '../support/mesh-uploads.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { BLOB_BACKENDS, type BlobBackend } from '../support/uploads.js';

const VERTICES = 'v 0 0 0\nv 1 0 0\nv 0 1 0\n';

/** One face of `corners` corners (corners - 2 triangles), all the first vertex: 2 bytes a triangle. */
const fan = (corners: number) => `f ${'1 '.repeat(corners)}\n`;

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))(
  "an OBJ's triangles, counted at finalize from its f lines: its cost and its limit, on $name",
  (backend) => {
    let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
    let t: TestPlatform;
    let org: OrgFixture;
    let siteId: string;
    const suite = (): MeshSuite => ({ t, org, siteId });

    beforeAll(async () => {
      blobStore = await backend.start();
      // The deployment's mesh limits are the design's own here: 2 GiB, 20 million triangles.
      t = await startPlatform(blobStore.env);
      org = await createOrg(t, { storageQuota: 256 * 1024 * 1024 });
      ({ siteId } = await createTree(org));
    });
    afterAll(async () => {
      await t?.close();
      await blobStore?.stop();
    });

    it('prices an OBJ by its triangles: of the same bytes, the one of more triangles costs more', async () => {
      // 300,000 triangles of 8 bytes each, and one face of 1,199,996 triangles in the same bytes.
      const sparse = Buffer.from(VERTICES + 'f 1 2 3\n'.repeat(300_000));
      const dense = Buffer.from(`${VERTICES}f ${'1 '.repeat(1_199_998)} \n`);
      expect(dense.length).toBe(sparse.length);
      const costs = [];
      for (const [name, bytes] of [
        ['sparse.obj', sparse],
        ['dense.obj', dense],
      ] as const) {
        const { bundleId, sessionPath, etags } = await uploadedSession(suite(), name, [{ name, bytes }]);
        const finalized = await org.admin.post(`${sessionPath}/finalize`, { files: etags });
        expect(finalized.status, name).toBe(200);
        expect(finalized.body.components[0]).toMatchObject({ format: 'obj', size: bytes.length });
        const cost = await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`);
        expect(cost.status).toBe(200);
        expect(cost.body).toMatchObject({ format: 'obj', inputBytes: bytes.length, fileCount: 1 });
        costs.push(cost.body);
      }
      // Base 4, one a file, 2 a started million triangles (docs/processing.md, "Mesh inputs").
      expect(costs.map((cost) => [cost.triangles, cost.cost])).toEqual([
        [300_000, 4 + 1 + 2],
        [1_199_996, 4 + 1 + 4],
      ]);
    });

    it('refuses at finalize, naming the limit, an OBJ over 20 million triangles, storing nothing', async () => {
      // 20 faces of 1,000,000 triangles each, then one triangle more: about 40 MB.
      const face = Buffer.from(fan(1_000_002));
      const bytes = Buffer.concat([Buffer.from(VERTICES), ...Array.from({ length: 20 }, () => face), Buffer.from('f 1 2 3\n')]);
      await refusedAtFinalize(
        suite(),
        'Dense OBJ',
        [{ name: 'dense.obj', bytes }],
        'MeshInputTooLarge',
        /^dense\.obj has at least 20000001 triangles; a mesh input may have at most 20 million/,
      );
    });
  },
);
