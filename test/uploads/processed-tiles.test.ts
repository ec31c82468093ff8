import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree, expectNoInternals, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { contentUris, glbPointCount, processedPointCloud, rawGet } from '../support/processed-point-cloud.js';
import { BLOB_BACKENDS, type BlobBackend, sampleBytes } from '../support/uploads.js';

/** More than the tiler's 50,000 points a tile: the tileset has children. */
const POINTS = 120_000;
const IMMUTABLE = 'private, max-age=31536000, immutable';

async function bytesOf(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function expectErrorShape(response: { status: number; body: unknown }, statuses: number[]) {
  expect(statuses).toContain(response.status);
  const body = typeof response.body === 'string' ? JSON.parse(response.body) : response.body;
  expect(body).toMatchObject({ statusCode: response.status, error: expect.any(String), message: expect.any(String) });
  expectNoInternals(body);
}

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))(
  "a processed point cloud's tileset, tiles and thumbnail through the API, on $name",
  (backend) => {
    let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
    let t: TestPlatform;
    let org: OrgFixture;
    let siteId: string;
    let bundleId: string;
    let derivativeId: string;
    let bundle: any;
    let apiUrl: string;
    let tilesetUrl: string;
    const get = (url: string, headers: Record<string, string> = {}, token = org.admin.token) =>
      fetch(url, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    const stored = (path: string, node = derivativeId) =>
      t.platform.blobs.read(`orgs/${org.orgId}/nodes/${node}/${path}`).then(bytesOf);
    // A tile is stored gzipped under its name plus .gz (docs/processing.md, "Tiles on the wire").
    const storedTile = async (uri: string) => gunzipSync(await stored(`${uri}.gz`));
    const identityEtag = (etag: string) => etag.replace(/"$/, '-identity"');

    beforeAll(async () => {
      blobStore = await backend.start();
      t = await startPlatform(blobStore.env, { worker: true });
      org = await createOrg(t, { storageQuota: 50 * 1024 * 1024 });
      ({ siteId } = await createTree(org));
      apiUrl = t.regionUrl(org.region);
      const las = await sampleBytes((file) => writeLas(file, POINTS));
      ({ bundleId, bundle, derivativeId } = await processedPointCloud(org, siteId, { name: 'scan.las', bytes: las }));
      tilesetUrl = `${apiUrl}/v1/nodes/${derivativeId}/tiles/tileset.json`;
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await blobStore?.stop();
    });

    it("names the tileset (absolute) on the processing and the output, and the bundle's thumbnail answers with the image", async () => {
      expect(bundle.processings[0]).toMatchObject({ derivativeId, tilesetUrl });
      expect(bundle.components).toContainEqual(expect.objectContaining({ id: derivativeId, role: 'output', tilesetUrl }));
      expect(bundle.components.find((c: { role: string }) => c.role === 'input')).not.toHaveProperty('tilesetUrl');
      expect(bundle.thumbnail.url).toBe(`${apiUrl}/v1/nodes/${bundleId}/thumbnail`);

      const thumbnail = await get(bundle.thumbnail.url);
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-type')).toBe(bundle.thumbnail.contentType);
      expect(thumbnail.headers.get('etag')).toBe(bundle.thumbnail.etag);
      expect(Buffer.from(await thumbnail.arrayBuffer()).equals(await stored('thumbnail.png'))).toBe(true);
      expect((await get(bundle.thumbnail.url, {}, '')).status).toBe(401);
    });

    it('serves tileset.json with relative content URIs, and every tile it references with its bytes and every point', async () => {
      const response = await get(tilesetUrl);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
      // A browser's cache answers only the token that fetched it.
      expect(response.headers.get('vary')).toMatch(/\bAuthorization\b/);
      expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
      const text = Buffer.from(await response.arrayBuffer());
      expect(text.equals(await stored('tileset.json'))).toBe(true);
      const tileset = JSON.parse(text.toString());
      expect(tileset.asset.version).toBe('1.1');
      const uris = contentUris(tileset);
      expect(uris.length).toBeGreaterThan(1);
      let points = 0;
      for (const uri of uris) {
        expect(uri).not.toMatch(/^[a-z][a-z0-9+.-]*:|^\/|\.\.|\\/i);
        const url = new URL(uri, tilesetUrl).href;
        expect(url.startsWith(`${apiUrl}/v1/nodes/${derivativeId}/tiles/`)).toBe(true);
        const tile = await get(url);
        expect(tile.status, url).toBe(200);
        expect(tile.headers.get('content-type')).toBe('model/gltf-binary');
        expect(tile.headers.get('cache-control')).toBe(IMMUTABLE);
        // Sent as stored, gzipped (fetch decodes it); a cache keeps one answer per coding.
        expect(tile.headers.get('content-encoding')).toBe('gzip');
        expect(tile.headers.get('vary')).toMatch(/\bAuthorization\b.*\bAccept-Encoding\b/);
        expect(Number(tile.headers.get('content-length'))).toBe((await stored(`${uri}.gz`)).length);
        const bytes = Buffer.from(await tile.arrayBuffer());
        expect(bytes.equals(await storedTile(uri))).toBe(true);
        points += glbPointCount(bytes);
      }
      expect(points).toBe(POINTS);
    });

    it('answers If-None-Match with 304, and a Range with 206 or 416 in the error shape', async () => {
      const tile = `${apiUrl}/v1/nodes/${derivativeId}/tiles/${contentUris(JSON.parse((await stored('tileset.json')).toString()))[0]}`;
      const whole = await get(tile);
      const etag = whole.headers.get('etag') as string;
      const bytes = Buffer.from(await whole.arrayBuffer());
      for (const url of [tile, tilesetUrl]) {
        const first = await get(url);
        await first.arrayBuffer();
        for (const tag of [
          first.headers.get('etag') as string,
          `W/${first.headers.get('etag')}`,
          `"other", ${first.headers.get('etag')}`,
        ]) {
          const again = await get(url, { 'if-none-match': tag });
          expect(again.status).toBe(304);
          expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
          expect(again.headers.get('cache-control')).toBe(IMMUTABLE);
          expect(await again.text()).toBe('');
        }
        const stale = await get(url, { 'if-none-match': '"stale"' });
        expect(stale.status).toBe(200);
        await stale.arrayBuffer();
        const head = await fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${org.admin.token}` } });
        expect(head.status).toBe(200);
        expect(head.headers.get('etag')).toBe(first.headers.get('etag'));
        expect(head.headers.get('content-length')).toBe(first.headers.get('content-length'));
        expect(await head.text()).toBe('');
      }

      // A range is of the tile's own (decoded) bytes: an answer with an ETag of its own, not gzipped.
      const part = await get(tile, { range: 'bytes=0-99' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 0-99/${bytes.length}`);
      expect(part.headers.get('content-encoding')).toBeNull();
      expect(part.headers.get('etag')).toBe(identityEtag(etag));
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 100))).toBe(true);
      const suffix = await get(tile, { range: 'bytes=-10' });
      expect(suffix.status).toBe(206);
      expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);
      const beyond = await get(tile, { range: `bytes=${bytes.length}-` });
      expect(beyond.status).toBe(416);
      expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
      // An error is never kept: only the files are immutable.
      expect(beyond.headers.get('cache-control') ?? '').not.toMatch(/immutable/);
      expectErrorShape({ status: beyond.status, body: await beyond.json() }, [416]);
    });

    it('answers 404 (or 400) in the error shape for any path processing did not write: traversal, encoded separators, absolute paths', async () => {
      const base = `${new URL(apiUrl).pathname}/v1/nodes/${derivativeId}/tiles/`;
      const headers = { authorization: `Bearer ${org.admin.token}` };
      const attempts = [
        'thumbnail.png',
        'tiles/nothing.glb',
        'tiles/r.txt',
        'tiles',
        'tiles/',
        '',
        '../thumbnail.png',
        'tiles/../thumbnail.png',
        'tiles/../../../../etc/passwd',
        '..%2Fthumbnail.png',
        'tiles/..%2F..%2Fthumbnail.png',
        'tiles/%2e%2e/thumbnail.png',
        'tiles%2Fr.glb',
        `tiles%2F${contentUris(JSON.parse((await stored('tileset.json')).toString()))[0]?.slice('tiles/'.length)}`,
        '/etc/passwd',
        '%2Fetc%2Fpasswd',
        'tiles//r.glb',
        'tiles/%5C..%5Cthumbnail.png',
        'tiles\\..\\thumbnail.png',
        'tiles/./r.glb',
        'tiles/%E0%A4%A.glb',
        `tiles/${'a'.repeat(300)}.glb`,
        `tiles/${'a/'.repeat(200)}r.glb`,
        'tileset.json/',
        'tileset.json%00',
      ];
      for (const attempt of attempts) {
        const response = await rawGet(apiUrl, `${base}${attempt}`, headers);
        expect([400, 404], `${attempt}: ${response.status} ${response.body}`).toContain(response.status);
        expectErrorShape(response, [400, 404]);
        expect(response.headers['cache-control'] ?? '').not.toMatch(/immutable/);
      }
    });

    it('reads like a node: 401 without a token, 403 without the scope, refused without read permission, 404 for another organization', async () => {
      const urls = [
        tilesetUrl,
        `${apiUrl}/v1/nodes/${derivativeId}/tiles/${contentUris(JSON.parse((await stored('tileset.json')).toString()))[0]}`,
      ];
      const noScope = await org.serviceClient({ scopes: 'read:basic', roleName: 'Organization Administrator' });
      const { siteId: otherSite } = await createTree(org);
      const elsewhere = await org.serviceClient({ roleName: 'Viewer', nodeId: otherSite });
      const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: siteId });
      const other = await createOrg(t);
      const nodeRead = async (token: string | undefined) => (await get(`${apiUrl}/v1/nodes/${derivativeId}`, {}, token)).status;
      for (const url of urls) {
        const anonymous = await get(url, {}, '');
        expectErrorShape({ status: anonymous.status, body: await anonymous.json() }, [401]);
        const scope = await get(url, {}, noScope.client.token);
        expectErrorShape({ status: scope.status, body: await scope.json() }, [403]);
        expect(scope.status).toBe(await nodeRead(noScope.client.token));
        const forbidden = await get(url, {}, elsewhere.client.token);
        expectErrorShape({ status: forbidden.status, body: await forbidden.json() }, [403, 404]);
        expect(forbidden.status).toBe(await nodeRead(elsewhere.client.token));
        const foreign = await get(url, {}, other.admin.token);
        const foreignBody = await foreign.json();
        expectErrorShape({ status: foreign.status, body: foreignBody }, [404]);
        const missing = await get(url.replace(derivativeId, '00000000-0000-4000-8000-000000000000'), {}, other.admin.token);
        expect(foreignBody).toEqual(await missing.json());
        expect(await nodeRead(other.admin.token)).toBe(404);
        const allowed = await get(url, {}, viewer.client.token);
        expect(allowed.status).toBe(200);
        await allowed.arrayBuffer();
      }
    });

    it("keeps a caller's admitted read of the tiles for a second at most: a revoked role refuses them after it", async () => {
      const uri = contentUris(JSON.parse((await stored('tileset.json')).toString()))[0] as string;
      const url = `${apiUrl}/v1/nodes/${derivativeId}/tiles/${uri}`;
      const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: siteId });
      const allowed = await get(url, {}, viewer.client.token);
      expect(allowed.status).toBe(200);
      await allowed.arrayBuffer();
      expect((await org.admin.delete(`/v1/nodes/${siteId}/memberships/${viewer.userId}`)).status).toBe(204);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const refused = await get(url, {}, viewer.client.token);
      expectErrorShape({ status: refused.status, body: await refused.json() }, [403, 404]);
      expect(refused.status).toBe((await get(`${apiUrl}/v1/nodes/${derivativeId}`, {}, viewer.client.token)).status);
      // Another caller is checked on its own: the administrator still reads the tile.
      const admin = await get(url);
      expect(admin.status).toBe(200);
      await admin.arrayBuffer();
    });

    it('serves a tile again from its remembered size and ETag, and a remembered tile whose file is gone answers 404 in the error shape', async () => {
      const tileset = JSON.parse((await stored('tileset.json')).toString());
      const uri = contentUris(tileset).at(-1) as string;
      const url = `${apiUrl}/v1/nodes/${derivativeId}/tiles/${uri}`;
      const bytes = await storedTile(uri);
      const first = await get(url);
      expect(first.status).toBe(200);
      expect(Buffer.from(await first.arrayBuffer()).equals(bytes)).toBe(true);
      const etag = first.headers.get('etag') as string;
      // The second answer is the same file, whole and by range, with the same ETag and length.
      const again = await get(url);
      expect(again.status).toBe(200);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('content-length')).toBe(String((await stored(`${uri}.gz`)).length));
      expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
      const range = await get(url, { range: 'bytes=4-11' });
      expect(range.status).toBe(206);
      expect(range.headers.get('content-range')).toBe(`bytes 4-11/${bytes.length}`);
      expect(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(4, 12))).toBe(true);
      expect((await get(url, { 'if-none-match': etag })).status).toBe(304);
      // Only the size and ETag are remembered: a file deleted behind the API's back is a 404, never a broken 200.
      await t.platform.blobs.delete(`orgs/${org.orgId}/nodes/${derivativeId}/${uri}.gz`);
      const gone = await get(url);
      expectErrorShape({ status: gone.status, body: await gone.json() }, [404]);
      expect((await get(tilesetUrl)).status).toBe(200);
    });

    it('answers 404 for the tiles of a node that is not a processed point cloud', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      for (const nodeId of [siteId, bundleId, org.orgId, missing]) {
        for (const path of ['tileset.json', 'tiles/r.glb']) {
          const response = await get(`${apiUrl}/v1/nodes/${nodeId}/tiles/${path}`);
          expectErrorShape({ status: response.status, body: await response.json() }, [404]);
        }
      }
    });

    it('sends a tile decoded, with an ETag of its own, to a client that does not take gzip, and the gzipped one to one that does', async () => {
      const uri = contentUris(JSON.parse((await stored('tileset.json')).toString()))[0] as string;
      const url = `${apiUrl}/v1/nodes/${derivativeId}/tiles/${uri}`;
      const bytes = await storedTile(uri);
      for (const acceptEncoding of ['identity', 'br, deflate', 'gzip;q=0']) {
        const plain = await get(url, { 'accept-encoding': acceptEncoding });
        expect(plain.status).toBe(200);
        expect(plain.headers.get('content-encoding')).toBeNull();
        expect(plain.headers.get('content-length')).toBe(String(bytes.length));
        expect(Buffer.from(await plain.arrayBuffer()).equals(bytes)).toBe(true);
        const etag = plain.headers.get('etag') as string;
        expect(etag).toMatch(/-identity"$/);
        expect((await get(url, { 'accept-encoding': acceptEncoding, 'if-none-match': etag })).status).toBe(304);
        // The gzipped answer's ETag is another representation's: it does not validate this one.
        const gzipEtag = etag.replace('-identity"', '"');
        const stale = await get(url, { 'accept-encoding': acceptEncoding, 'if-none-match': gzipEtag });
        expect(stale.status).toBe(200);
        await stale.arrayBuffer();
      }
      // On the wire: the stored bytes themselves.
      const raw = await rawGet(url, new URL(url).pathname, {
        authorization: `Bearer ${org.admin.token}`,
        'accept-encoding': 'gzip',
      });
      expect(raw.status).toBe(200);
      expect(raw.headers['content-encoding']).toBe('gzip');
      expect(raw.bytes.equals(await stored(`${uri}.gz`))).toBe(true);
    });

    it('serves the tiles of a derivative processed before tiles were stored gzipped, as they are', async () => {
      const las = await sampleBytes((file) => writeLas(file, 5_000));
      const earlier = await processedPointCloud(org, siteId, { name: 'earlier.las', bytes: las });
      const tileset = JSON.parse((await stored('tileset.json', earlier.derivativeId)).toString());
      // What such a derivative holds: each tile under its own name, not gzipped.
      for (const uri of contentUris(tileset)) {
        const plain = gunzipSync(await stored(`${uri}.gz`, earlier.derivativeId));
        await t.platform.blobs.write(`orgs/${org.orgId}/nodes/${earlier.derivativeId}/${uri}`, plain);
        await t.platform.blobs.delete(`orgs/${org.orgId}/nodes/${earlier.derivativeId}/${uri}.gz`);
      }
      let points = 0;
      for (const uri of contentUris(tileset)) {
        const tile = await get(`${apiUrl}/v1/nodes/${earlier.derivativeId}/tiles/${uri}`);
        expect(tile.status).toBe(200);
        expect(tile.headers.get('content-encoding')).toBeNull();
        const bytes = Buffer.from(await tile.arrayBuffer());
        expect(tile.headers.get('content-length')).toBe(String(bytes.length));
        expect(bytes.equals(await stored(uri, earlier.derivativeId))).toBe(true);
        points += glbPointCount(bytes);
      }
      expect(points).toBe(5_000);
    });
  },
);
