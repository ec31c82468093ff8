import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import type { StoredObjectRow } from '../../../domain/records/regional.js';
import { contentRange, parseByteRange } from '../../../domain/uploads/byte-range.js';
import { attachmentDisposition } from '../../../domain/uploads/content-disposition.js';
import { quoteEtag } from '../../../domain/uploads/etag.js';
import type { BlobStore } from '../../../ports/blob-store.js';

/** The download's responses, for the OpenAPI document. */
export const DOWNLOAD_RESPONSES = {
  200: { description: 'The file', content: { 'application/octet-stream': { schema: {} } } },
  206: { description: 'The requested range', content: { 'application/octet-stream': { schema: {} } } },
};

/** Streams a finalized object under its name, with HTTP Range (206, 416) and its ETag. */
export async function sendStoredObject(
  blobs: BlobStore,
  request: FastifyRequest,
  reply: FastifyReply,
  file: { name: string; row: StoredObjectRow },
) {
  const size = file.row.stored_bytes ?? 0;
  const range = parseByteRange(request.headers.range, size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw new ApiError('RangeNotSatisfiable');
  }
  reply
    .header('accept-ranges', 'bytes')
    .header('etag', quoteEtag(file.row.etag ?? ''))
    .header('content-type', 'application/octet-stream')
    .header('content-disposition', attachmentDisposition(file.name))
    .header('content-length', range ? range.end - range.start + 1 : size);
  if (range) reply.code(206).header('content-range', contentRange(range, size));
  if (size === 0) return reply.send('');
  return reply.send(await blobs.read(file.row.blob_key, range));
}
