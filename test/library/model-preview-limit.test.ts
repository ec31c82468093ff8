import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PREVIEW_SOURCE_BYTES } from '../../src/domain/library/model-formats.js';
import { collectUploads } from '../../src/jobs/housekeeping.js';
import { type ApiClient, createOrg } from '../support/fixtures.js';
import { generatedObjPart, uploadGenerated } from '../support/library-models.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { BLOB_BACKENDS } from '../support/uploads.js';
import { LIBRARY_TEST_ENV, libraryClient } from './model-support.js';

/**
 * The 200 MiB edge of the preview, through HTTP with real bytes: an OBJ of exactly 209,715,200
 * bytes is previewable, one byte more is OriginalTooLarge. The files are made a part at a time
 * while they are sent (test/support/library-models.ts), never kept; one case per blob store.
 */
describe.each(BLOB_BACKENDS)('asset library models on $name: the 200 MiB preview limit', (backend) => {
  let t: TestPlatform;
  let admin: ApiClient;
  let stopBackend: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    if (!backend.available) return;
    const started = await backend.start();
    stopBackend = started.stop;
    // Parts of 64 MiB (the default): four parts a file.
    const { RDP_UPLOAD_PART_SIZE_BYTES, ...env } = LIBRARY_TEST_ENV;
    t = await startPlatform({ ...started.env, ...env });
    ({ client: admin } = await libraryClient(await createOrg(t), 'Organization Administrator'));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await stopBackend();
  });

  it.skipIf(!backend.available)(
    'previews an OBJ of exactly 209,715,200 bytes; one byte more is OriginalTooLarge',
    { timeout: 300_000 },
    async () => {
      expect(MAX_PREVIEW_SOURCE_BYTES).toBe(209_715_200);
      const outcomes: Record<string, unknown>[] = [];
      for (const size of [MAX_PREVIEW_SOURCE_BYTES, MAX_PREVIEW_SOURCE_BYTES + 1]) {
        const created = await admin.post('/v1/asset-library/models', { name: `Edge ${size}`, fileName: 'edge.bin', size });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const etag = await uploadGenerated(created.body, size, (start, length) => generatedObjPart(size, start, length));
        const finalized = await admin.post(`/v1/asset-library/models/${created.body.id}/finalize`, { etag });
        expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
        outcomes.push(finalized.body);
        // The bytes are not kept past the case.
        expect((await admin.delete(`/v1/asset-library/models/${created.body.id}`)).status).toBe(204);
        await collectUploads(t.platform);
      }
      expect(outcomes[0]).toMatchObject({
        status: 'processing',
        file: { size: 209_715_200, format: 'obj' },
        previewable: true,
        previewUnavailableReason: 'Processing',
      });
      expect(outcomes[1]).toMatchObject({
        status: 'ready',
        file: { size: 209_715_201, format: 'obj' },
        previewable: false,
        previewUnavailableReason: 'OriginalTooLarge',
      });
    },
  );
});
