import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.js';
import { contentRange, parseByteRange } from '../domain/uploads/byte-range.js';
import { attachmentDisposition } from '../domain/uploads/content-disposition.js';
import { quoteEtag } from '../domain/uploads/etag.js';
import type { BlobGrant } from '../domain/uploads/signed-url.js';
import { type EmbeddedBlobEndpoint, SizeMismatchError, UploadNotFoundError } from '../ports/blob-store.js';

export interface BlobRoutesOptions {
  store: EmbeddedBlobEndpoint;
}

/** The query as signed: one value per name (a repeated name cannot smuggle in a second meaning). */
function queryOf(request: FastifyRequest): Record<string, string> {
  const at = request.url.indexOf('?');
  return at < 0 ? {} : Object.fromEntries(new URLSearchParams(request.url.slice(at + 1)));
}

function authorize(store: EmbeddedBlobEndpoint, request: FastifyRequest): BlobGrant {
  const key = (request.params as { '*': string })['*'];
  const check = store.authorize(request.method, key, queryOf(request));
  if (!check.ok) {
    throw new ApiError(
      'ForbiddenResource',
      check.reason === 'expired' ? 'The signed address has expired' : 'The signed address is not valid for this request',
    );
  }
  return check.grant;
}

/** Refused before or while reading: the connection closes, as the rest of the body is not wanted. */
function refuseBody(reply: FastifyReply, message: string): ApiError {
  reply.header('connection', 'close');
  return new ApiError('BadRequest', message);
}

/**
 * The embedded blob endpoint (docs/design/processes.md#addresses): signed PUTs of whole objects and
 * of parts (`?uploadId=&partNumber=`), and signed GETs with Range, for the filesystem blob store.
 * The address is the authorization (domain/uploads/signed-url.ts); no bearer token is involved.
 */
export default async function blobRoutes(app: FastifyInstance, { store }: BlobRoutesOptions) {
  // Bodies stream to disk from the raw request: no parser reads them here, so the JSON body
  // limit does not apply and a body of several GiB is never held in memory.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.put('/*', { schema: { hide: true } }, async (request, reply) => {
    const grant = authorize(store, request);
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) !== grant.size) {
      throw refuseBody(reply, `Content-Length ${declared} differs from the signed size ${grant.size}`);
    }
    let etag: string;
    try {
      etag = (await store.receive(grant, request.raw)).etag;
    } catch (error) {
      if (error instanceof SizeMismatchError) throw refuseBody(reply, error.message);
      if (error instanceof UploadNotFoundError) throw new ApiError('NotFound', 'No such upload in progress for this address');
      throw error;
    }
    return reply.code(200).header('etag', quoteEtag(etag)).send();
  });

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const grant = authorize(store, request);
    const blob = await store.open(grant.key);
    if (!blob) throw new ApiError('NotFound', 'No such file');
    const range = parseByteRange(request.headers.range, blob.size);
    if (range === 'unsatisfiable') {
      await blob.close();
      reply.header('content-range', `bytes */${blob.size}`);
      throw new ApiError('RangeNotSatisfiable');
    }
    reply
      .header('accept-ranges', 'bytes')
      .header('etag', quoteEtag(blob.etag))
      .header('cache-control', 'private, max-age=0')
      .header('content-type', grant.contentType ?? 'application/octet-stream');
    if (grant.fileName !== undefined) reply.header('content-disposition', attachmentDisposition(grant.fileName));
    if (range) reply.code(206).header('content-range', contentRange(range, blob.size));
    const length = range ? range.end - range.start + 1 : blob.size;
    reply.header('content-length', length);
    if (request.method === 'HEAD' || length === 0) {
      await blob.close();
      return reply.send(Readable.from([]));
    }
    return reply.send(blob.stream(range));
  });
}
