import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import type { StoredObjectRow } from '../../../domain/records/regional.js';
import { contentRange, parseByteRange } from '../../../domain/uploads/byte-range.js';
import { attachmentDisposition } from '../../../domain/uploads/content-disposition.js';
import { quoteEtag } from '../../../domain/uploads/etag.js';
import { BlobNotFoundError, type BlobStore } from '../../../ports/blob-store.js';

/** The download's responses, for the OpenAPI document. */
export const DOWNLOAD_RESPONSES = {
  200: { description: 'The file', content: { 'application/octet-stream': { schema: {} } } },
  206: { description: 'The requested range', content: { 'application/octet-stream': { schema: {} } } },
};

/**
 * Up to this many bytes are read into one buffer where the store can (tiles, thumbnails): a read
 * stream per request cost a 48 KiB tile about 150 us more of the main thread's CPU (bench/tiles.ts).
 */
const SMALL_BLOB_BYTES = 1024 * 1024;
const gunzipAsync = promisify(gunzip);

/** What sendBlob sends: a blob's key, size and bare ETag, and the headers that describe it. */
export interface BlobToSend {
  key: string;
  size: number;
  etag: string;
  contentType: string;
  contentDisposition?: string;
  /** More headers of a successful answer only (caching: never on a 416 or a 404). */
  headers?: Record<string, string>;
}

/** Streams a blob, or the one range of it the request asks for (HTTP Range: 206, 416), with its ETag. */
export async function sendBlob(blobs: BlobStore, request: FastifyRequest, reply: FastifyReply, blob: BlobToSend) {
  const { size } = blob;
  const range = requestedRange(request, reply, size);
  // Opened before any header is set: a blob gone since its record was read is a 404, not a broken 200.
  let body: Awaited<ReturnType<BlobStore['read']>> | Buffer | undefined;
  const length = range ? range.end - range.start + 1 : size;
  try {
    if (length > 0 && length <= SMALL_BLOB_BYTES && blobs.readBuffer) body = await blobs.readBuffer(blob.key, size, range);
    else if (size > 0) body = await blobs.read(blob.key, range);
  } catch (error) {
    throw notFoundWhenGone(error);
  }
  return answer(reply, blob, size, range, body ?? '');
}

/**
 * Sends a gzip-stored blob decoded, to a client that does not take gzip or asks for a range (the
 * range is of the decoded bytes): read whole (tiles are small), gunzipped on zlib's thread pool.
 */
export async function sendGunzippedBlob(blobs: BlobStore, request: FastifyRequest, reply: FastifyReply, blob: BlobToSend) {
  let stored: Buffer;
  try {
    stored = blobs.readBuffer ? await blobs.readBuffer(blob.key, blob.size) : await buffer(await blobs.read(blob.key));
  } catch (error) {
    throw notFoundWhenGone(error);
  }
  const bytes = await gunzipAsync(stored);
  const range = requestedRange(request, reply, bytes.length);
  return answer(reply, blob, bytes.length, range, range ? bytes.subarray(range.start, range.end + 1) : bytes);
}

function requestedRange(request: FastifyRequest, reply: FastifyReply, size: number) {
  const range = parseByteRange(request.headers.range, size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw new ApiError('RangeNotSatisfiable');
  }
  return range;
}

function notFoundWhenGone(error: unknown): unknown {
  return error instanceof BlobNotFoundError ? new ApiError('NotFound', 'The file is no longer stored') : error;
}

function answer(
  reply: FastifyReply,
  blob: BlobToSend,
  size: number,
  range: { start: number; end: number } | undefined,
  body: Readable | Buffer | string,
) {
  reply
    .header('accept-ranges', 'bytes')
    .header('etag', quoteEtag(blob.etag))
    .header('content-type', blob.contentType)
    .header('content-length', range ? range.end - range.start + 1 : size);
  if (blob.contentDisposition) reply.header('content-disposition', blob.contentDisposition);
  if (blob.headers) reply.headers(blob.headers);
  if (range) reply.code(206).header('content-range', contentRange(range, size));
  return reply.send(body);
}

/** Streams a finalized object under its name, with HTTP Range (206, 416) and its ETag. */
export async function sendStoredObject(
  blobs: BlobStore,
  request: FastifyRequest,
  reply: FastifyReply,
  file: { name: string; row: StoredObjectRow },
) {
  return sendBlob(blobs, request, reply, {
    key: file.row.blob_key,
    size: file.row.stored_bytes ?? 0,
    etag: file.row.etag ?? '',
    contentType: 'application/octet-stream',
    contentDisposition: attachmentDisposition(file.name),
  });
}
