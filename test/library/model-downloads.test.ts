import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regionServices } from '../../src/composition/region-services.js';
import { collectUploads } from '../../src/jobs/housekeeping.js';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { runPreview, triangleObj } from '../support/library-models.js';
import { checkedPreview, checkedThumbnail } from '../support/model-checks.js';
import { boxObj } from '../support/model-samples.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { BLOB_BACKENDS, uploadBytes } from '../support/uploads.js';
import { LIBRARY_TEST_ENV, libraryClient, modelRow, modelSnapshot, uniqueName } from './model-support.js';

const QUOTA = 10_000;

/** Download links, thumbnails, deletion and the storage quota, on each blob store. */
describe.each(BLOB_BACKENDS)('asset library models on $name: download links, quota, delete', (backend) => {
  let t: TestPlatform;
  let org: OrgFixture;
  let admin: ApiClient;
  let stopBackend: () => Promise<void> = async () => undefined;
  const filesystem = backend.name.includes('filesystem');

  beforeAll(async () => {
    if (!backend.available) return;
    const started = await backend.start();
    stopBackend = started.stop;
    t = await startPlatform({ ...started.env, ...LIBRARY_TEST_ENV });
    org = await createOrg(t, { storageQuota: QUOTA });
    ({ client: admin } = await libraryClient(org, 'Organization Administrator'));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await stopBackend();
  });

  /** Sends a request that must be refused, checks its answer and that nothing was stored. */
  const refused = refuser(() => modelSnapshot(t, org));

  /** A finalized OBJ model of the admin's organization, and its bytes. */
  async function finalizedModel(body: Record<string, unknown> = {}, bytes = triangleObj(uniqueName('bytes'))) {
    const created = await admin.post('/v1/asset-library/models', {
      name: uniqueName('M'),
      fileName: 'valve.obj',
      size: bytes.length,
      ...body,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { etag } = await uploadBytes(created.body, bytes);
    const finalized = await admin.post(`/v1/asset-library/models/${created.body.id}/finalize`, { etag });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    return { model: finalized.body, bytes };
  }

  /** Runs the preview worker on the model; answers the preview and thumbnail it stored. */
  async function withPreview(modelId: string) {
    await runPreview(t, org, modelId);
    const row = await modelRow(t, org, modelId);
    expect(row?.status).toBe('ready');
    const bytes = async (key: string | null | undefined) =>
      Buffer.concat(await (await t.platform.blobs.read(key as string)).toArray());
    return { glb: await bytes(row?.preview_blob_key), png: await bytes(row?.thumbnail_blob_key) };
  }

  /** The organization's bytes against its quota, as the upload machinery counts them. */
  async function usedByLibrary() {
    const context = t.platform.regions[org.region];
    const { uploads } = regionServices(t.platform, org.region);
    return context.store.db.transaction().execute((tx) => uploads.usedBytes(tx, org.orgId, t.clock.now().toISOString()));
  }

  it.skipIf(!backend.available)(
    'answers signed download links with download:assetlibrary; the link gives the exact bytes',
    async () => {
      const { model, bytes } = await finalizedModel();
      expect((await admin.get(`/v1/asset-library/models/${model.id}`)).body.downloadLinks).toBeUndefined();
      const response = await admin.get(`/v1/asset-library/models/${model.id}?includeDownloadLinks=true&includeTags=true`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const expiresAt = new Date(t.clock.now().getTime() + 3600_000);
      expect(response.body).toEqual({
        ...model,
        tags: [],
        downloadLinks: { original: { url: expect.any(String), expiresAt: expect.any(String) }, preview: null },
      });
      const link = response.body.downloadLinks.original;
      expect(Math.abs(Date.parse(link.expiresAt) - expiresAt.getTime())).toBeLessThan(5_000);
      const download = await fetch(link.url);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
      if (!filesystem) expect(new URL(link.url).searchParams.get('X-Amz-Expires')).toBe('3600');
      // In a list too; a model whose upload is open has nothing to download yet.
      const open = await admin.post('/v1/asset-library/models', { name: uniqueName('Open'), fileName: 'o.obj', size: 5 });
      const listed = (await admin.get('/v1/asset-library/models?includeDownloadLinks=true&limit=500')).body as {
        id: string;
        downloadLinks: unknown;
      }[];
      expect(listed.find((row) => row.id === model.id)?.downloadLinks).toMatchObject({
        original: { url: expect.any(String) },
        preview: null,
      });
      expect(listed.find((row) => row.id === open.body.id)?.downloadLinks).toBeNull();
    },
  );

  it.skipIf(!backend.available)(
    'refuses includeDownloadLinks without download:assetlibrary: 403 Insufficient OAuth scopes',
    async () => {
      const { model } = await finalizedModel();
      const reader = await libraryClient(
        org,
        'Organization Administrator',
        undefined,
        'read:basic read:assetlibrary write:assetlibrary',
      );
      await refused(
        () => reader.client.get(`/v1/asset-library/models/${model.id}?includeDownloadLinks=true`),
        403,
        'Forbidden',
        'Insufficient OAuth scopes',
      );
      await refused(
        () => reader.client.get('/v1/asset-library/models?includeDownloadLinks=true'),
        403,
        'Forbidden',
        'Insufficient OAuth scopes',
      );
      expect((await reader.client.get(`/v1/asset-library/models/${model.id}?includeDownloadLinks=false`)).status).toBe(200);
      // The download scope alone reads nothing.
      const downloader = await libraryClient(org, 'Organization Administrator', undefined, 'read:basic download:assetlibrary');
      await refused(
        () => downloader.client.get(`/v1/asset-library/models/${model.id}?includeDownloadLinks=true`),
        403,
        'Forbidden',
        'Insufficient OAuth scopes',
      );
    },
  );

  it.skipIf(!backend.available || !filesystem)(
    'refuses an altered or an expired download link (the embedded endpoint checks both)',
    async () => {
      const { model, bytes } = await finalizedModel();
      const url = (await admin.get(`/v1/asset-library/models/${model.id}?includeDownloadLinks=true`)).body.downloadLinks.original
        .url as string;
      const parsed = new URL(url);
      const signature = parsed.searchParams.get('signature') as string;
      const altered = [
        url.replace(`/${model.id}/original`, `/${model.id}/originaX`),
        url.replace(`signature=${signature}`, `signature=${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`),
        url.replace(/expires=(\d+)/, (_, value: string) => `expires=${Number(value) + 3600}`),
        url.replace('filename=valve.obj', 'filename=other.obj'),
      ];
      for (const address of altered) {
        expect(address).not.toBe(url);
        const response = await fetch(address);
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ message: 'The signed address is not valid for this request' });
      }
      expect(Buffer.from(await (await fetch(url)).arrayBuffer())).toEqual(bytes);
      t.clock.advance(3601_000);
      const expired = await fetch(url);
      expect(expired.status).toBe(403);
      expect(await expired.json()).toMatchObject({ message: 'The signed address has expired' });
    },
  );

  it.skipIf(!backend.available)(
    'serves the thumbnail and a preview link once the worker made them; their bytes count against the quota',
    async () => {
      const { model } = await finalizedModel({}, Buffer.from(boxObj()));
      const path = `/v1/asset-library/models/${model.id}/thumbnail`;
      expect((await admin.get(path)).status).toBe(404);
      const usedBefore = await usedByLibrary();
      const { glb, png } = await withPreview(model.id);
      expect(await usedByLibrary()).toBe(usedBefore + glb.length + png.length);
      await checkedPreview(glb);
      checkedThumbnail(png);
      const read = await admin.get(`/v1/asset-library/models/${model.id}?includeDownloadLinks=true`);
      expect(read.body.thumbnailUrl).toBe(`${t.regionUrl(org.region)}${path}`);
      const thumbnail = await fetch(read.body.thumbnailUrl, { headers: { authorization: `Bearer ${admin.token}` } });
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await thumbnail.arrayBuffer())).toEqual(png);
      const preview = await fetch(read.body.downloadLinks.preview.url);
      expect(preview.status).toBe(200);
      expect(Buffer.from(await preview.arrayBuffer())).toEqual(glb);
      expect((await fetch(read.body.thumbnailUrl)).status).toBe(401);
    },
  );

  it.skipIf(!backend.available)(
    'reserves the declared size at creation: 403 StorageLimitExceeded past the quota, nothing stored',
    async () => {
      const used = await usedByLibrary();
      const free = QUOTA - used;
      const body = { name: 'Too big', fileName: 'big.obj' };
      await refused(
        () => admin.post('/v1/asset-library/models', { ...body, size: free + 1 }),
        403,
        'StorageLimitExceeded',
        /storage quota/,
      );
      const fits = await admin.post('/v1/asset-library/models', { ...body, size: free });
      expect(fits.status, JSON.stringify(fits.body)).toBe(201);
      expect(await usedByLibrary()).toBe(QUOTA);
      await refused(() => admin.post('/v1/asset-library/models', { ...body, size: 1 }), 403, 'StorageLimitExceeded');
      // Deleting the open upload frees its reservation at once.
      expect((await admin.delete(`/v1/asset-library/models/${fits.body.id}`)).status).toBe(204);
      expect(await usedByLibrary()).toBe(used);
    },
  );

  it.skipIf(!backend.available)(
    'deletes a model (204, then 404): tags unassigned, quota freed, original, preview and thumbnail removed',
    async () => {
      const tag = (await admin.post('/v1/asset-library/tags', { name: uniqueName() })).body;
      const { model } = await finalizedModel({ tagIds: [tag.id] });
      const { glb, png } = await withPreview(model.id);
      const row = await modelRow(t, org, model.id);
      const keys = [row?.blob_key, row?.preview_blob_key, row?.thumbnail_blob_key] as string[];
      for (const key of keys) expect(await t.platform.blobs.head(key)).toBeDefined();
      const usedBefore = await usedByLibrary();
      expect((await admin.get(`/v1/asset-library/tags/${tag.id}`)).body.modelCount).toBe(1);

      const deleted = await admin.delete(`/v1/asset-library/models/${model.id}`);
      expect(deleted.status).toBe(204);
      expect(await usedByLibrary()).toBe(usedBefore - Number(row?.stored_bytes) - glb.length - png.length);
      expect((await admin.get(`/v1/asset-library/tags/${tag.id}`)).body.modelCount).toBe(0);
      for (const send of [
        () => admin.get(`/v1/asset-library/models/${model.id}`),
        () => admin.patch(`/v1/asset-library/models/${model.id}`, { name: 'x' }),
        () => admin.post(`/v1/asset-library/models/${model.id}/finalize`, { etag: model.file.etag }),
        () => admin.delete(`/v1/asset-library/models/${model.id}`),
        () => admin.get(`/v1/asset-library/models/${model.id}/thumbnail`),
      ]) {
        await refused(send, 404, 'Not Found');
      }
      const audit = await t.platform.regions[org.region].store.db
        .selectFrom('audit_events')
        .select(['action', 'details'])
        .where('target_id', '=', model.id)
        .where('action', '=', 'library-model.deleted')
        .execute();
      expect(audit).toHaveLength(1);
      expect(JSON.parse(audit[0]?.details ?? '{}')).toMatchObject({ name: model.name, fileName: 'valve.obj', status: 'ready' });

      await collectUploads(t.platform);
      for (const key of keys) expect(await t.platform.blobs.head(key)).toBeUndefined();
    },
  );
});
