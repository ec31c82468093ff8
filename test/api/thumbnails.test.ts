import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createTree, expectNoInternals, type OrgFixture, snapshot } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

const MAX_BYTES = 4096;

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A valid width x height RGB PNG; noise makes it incompressible when a large file is wanted. */
function png(width: number, height: number, fill: (x: number, y: number) => number = () => 0x80): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, deflate, no filter, no interlace
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0); // filter type none
    for (let x = 0; x < width; x++) rows.push(fill(x, y), fill(y, x), 0x40);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.from(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The start of a baseline JFIF file (SOI, APP0) and its end marker. */
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff,
  0xd9,
]);

describe('PUT, GET and DELETE /v1/nodes/{nodeId}/thumbnail', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;
  let path: string;
  const image = png(4, 3, (x, y) => (x * 40 + y * 7) & 0xff);

  beforeAll(async () => {
    t = await startPlatform({ RDP_THUMBNAIL_MAX_BYTES: String(MAX_BYTES) });
    org = await createOrg(t);
    tree = await createTree(org);
    path = `/v1/nodes/${tree.siteId}/thumbnail`;
  });
  afterAll(() => t.close());

  const put = (bytes: Uint8Array | string, contentType?: string, client = org.admin) =>
    client.request('PUT', path, bytes, contentType ? { 'content-type': contentType } : {});

  /** A refusal leaks no internals (a stack, SQL, a path) and stores nothing. */
  const refused = refuser(
    () => snapshot(t, org),
    (response) => expectNoInternals(response.body),
  );

  it('stores a PNG and returns the same bytes with its type and ETag', async () => {
    const stored = await put(image, 'image/png');
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual({ etag: expect.stringMatching(/^".+"$/), contentType: 'image/png', size: image.length });

    const response = await fetch(`${t.regionUrl(org.region)}${path}`, {
      headers: { authorization: `Bearer ${org.admin.token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('etag')).toBe(stored.body.etag);
    expect(Buffer.from(await response.arrayBuffer()).equals(image)).toBe(true);
  });

  it('answers 304 when If-None-Match names the current ETag', async () => {
    const { etag } = (await put(image, 'image/png')).body;
    const conditional = (value: string) => org.admin.request('GET', path, undefined, { 'if-none-match': value });
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await conditional(value);
      expect(response.status, value).toBe(304);
      expect(response.body).toBe('');
      expect(response.headers.get('etag')).toBe(etag);
    }
    expect((await conditional('"other"')).status).toBe(200);
  });

  it('replaces the thumbnail with a JPEG and changes the ETag', async () => {
    const before = (await put(image, 'image/png')).body.etag;
    const replaced = await put(JPEG, 'image/jpeg');
    expect(replaced.status).toBe(200);
    expect(replaced.body.etag).not.toBe(before);
    const response = await fetch(`${t.regionUrl(org.region)}${path}`, {
      headers: { authorization: `Bearer ${org.admin.token}` },
    });
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await response.arrayBuffer()).equals(JPEG)).toBe(true);
  });

  it('refuses bytes that are not the declared image type with 400', async () => {
    await put(image, 'image/png');
    await refused(() => put(image, 'image/jpeg'), 400, 'ValidationError');
    await refused(() => put(JPEG, 'image/png'), 400, 'ValidationError');
    await refused(() => put(Buffer.from('not an image at all'), 'image/png'), 400, 'ValidationError');
    await refused(() => put(Buffer.alloc(0), 'image/gif'), 400);
  });

  it('refuses a type that is not an image with 415', async () => {
    await refused(() => put('hello', 'text/plain'), 415);
    await refused(() => put(image, 'application/octet-stream'), 415);
    await refused(() => put(image, 'image/svg+xml'), 415);
    await refused(() => put(image), 415);
  });

  it('refuses an image larger than the limit with 413', async () => {
    const large = png(64, 64, () => Math.floor(Math.random() * 256));
    expect(large.length).toBeGreaterThan(MAX_BYTES);
    await refused(() => put(large, 'image/png'), 413);
    const justFits = png(2, 2);
    expect((await put(justFits, 'image/png')).status).toBe(200);
  });

  it('needs write:hierarchy and edit permission to change, read permission to get', async () => {
    await put(image, 'image/png');
    const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: tree.siteId });
    expect((await viewer.client.get(path)).status).toBe(200);
    const forbidden = await refused(() => put(JPEG, 'image/jpeg', viewer.client), 403);
    expect(forbidden.body.message).toBe('Forbidden resource');
    await refused(() => viewer.client.delete(path), 403);
    const reader = await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' });
    const scoped = await refused(() => put(JPEG, 'image/jpeg', reader.client), 403);
    expect(scoped.body.message).toBe('Insufficient OAuth scopes');
    const other = await createOrg(t);
    await refused(() => put(JPEG, 'image/jpeg', other.admin), 404);
    expect((await other.admin.get(path)).status).toBe(404);
  });

  it('deletes the thumbnail: 204, then 404 on GET and on another DELETE', async () => {
    await put(image, 'image/png');
    const deleted = await org.admin.delete(path);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe('');
    const after = await org.admin.get(path);
    expect(after.status).toBe(404);
    expect(after.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    await refused(() => org.admin.delete(path), 404);
    expect((await org.admin.get(`/v1/nodes/${tree.folderId}/thumbnail`)).status).toBe(404);
  });
});
