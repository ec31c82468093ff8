import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TILESET_FILE } from '../../../domain/processing/tileset-files.js';
import { acceptsGzip } from '../../../domain/uploads/accept-encoding.js';
import { noneMatch, quoteEtag } from '../../../domain/uploads/etag.js';
import type { TilesetFileToSend } from '../../../services/processing/tileset-service.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import { sendBlob, sendGunzippedBlob } from '../uploads/send-stored-object.js';
import { NodeIdParams } from './node-schemas.js';

/**
 * A derivative's files never change: its id is its processing's, the worker writes them before
 * the node exists, and a new processing makes a new derivative (a new address). So a client
 * keeps them as long as it likes, the tileset too; `private` because they are behind a token,
 * and `Vary: Authorization` so that a browser's cache answers only the token that fetched them
 * (another person's token, or none, in the same browser gets the API's own answer).
 */
export const TILE_CACHE_CONTROL = 'private, max-age=31536000, immutable';

export const TILE_RESPONSES = {
  200: {
    description: 'The file: application/json for a tileset, model/gltf-binary for a glTF tile',
    content: {
      'application/json': { schema: {} },
      'model/gltf-binary': { schema: {} },
      'application/octet-stream': { schema: {} },
    },
  },
  206: { description: 'The requested range', content: { 'application/octet-stream': { schema: {} } } },
  304: Type.Null({ description: 'Not Modified: the If-None-Match ETag is current' }),
  ...errors(401, 403, 404, 416),
};

const DESCRIPTION =
  "Content URIs in the tileset are relative: a 3D Tiles viewer resolves each tile from the tileset's address and fetches it with the same bearer token. A tile is stored gzip-encoded and answers with Content-Encoding: gzip to a client whose Accept-Encoding takes gzip; to one that does not, or to a Range request, it answers decoded (Range over the decoded bytes), with an ETag of its own. Answers carry an ETag, Cache-Control: private, max-age=31536000, immutable (a derivative's files never change) and Vary: Authorization; If-None-Match answers 304; Range answers 206 or 416. 404 for a node that is no processed point cloud and for any path the processing did not write. Tile reads spend the organization's tile bucket, apart from its request bucket (RateLimit-* headers of that bucket; 429 rate_limited with Retry-After when it is empty).";

/**
 * The wildcard as the request sent it, before percent-decoding (Fastify's `*` is decoded, which
 * would turn `..%2F` into a separator): what follows `/tiles/` after the node's segment.
 */
function rawWildcard(request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0] ?? '';
  const nodes = path.indexOf('/v1/nodes/');
  const tiles = path.indexOf('/tiles/', nodes + '/v1/nodes/'.length);
  return nodes < 0 || tiles < 0 ? '' : path.slice(tiles + '/tiles/'.length);
}

/**
 * Sends a tileset's file as the tile routes do (a derivative's, a comparison's): as stored, or
 * decoded for a client that takes no gzip or asks for a range; ETag, caching, 304.
 */
export async function sendTilesetFile(app: RegionApp, request: FastifyRequest, reply: FastifyReply, file: TilesetFileToSend) {
  const gzipped = file.encoding === 'gzip';
  // A stored-gzipped tile goes as it is stored, unless the client does not take gzip or asks for
  // a range (of the tile's own bytes): then decoded, with an ETag of its own (docs/processing.md).
  const asStored = !gzipped || (acceptsGzip(request.headers['accept-encoding']) && !request.headers.range);
  const bareEtag = asStored ? file.etag : `${file.etag}-identity`;
  const etag = quoteEtag(bareEtag);
  // After CORS's `Vary: Origin`, when it set one.
  const vary = [reply.getHeader('vary'), 'Authorization', gzipped ? 'Accept-Encoding' : undefined].filter(Boolean).join(', ');
  const caching = { 'cache-control': TILE_CACHE_CONTROL, vary };
  if (noneMatch(request.headers['if-none-match'], etag)) {
    // No payload at all: a serialized null would announce a body a 304 cannot have.
    reply.code(304).headers({ ...caching, etag });
    return reply.send();
  }
  if (!asStored) return sendGunzippedBlob(app.platform.blobs, request, reply, { ...file, etag: bareEtag, headers: caching });
  const encoding: Record<string, string> = gzipped ? { 'content-encoding': 'gzip' } : {};
  return sendBlob(app.platform.blobs, request, reply, { ...file, headers: { ...caching, ...encoding } });
}

export default async function tileRoutes(app: RegionApp) {
  async function send(request: FastifyRequest, reply: FastifyReply, nodeId: string, path: string) {
    return sendTilesetFile(app, request, reply, await app.services.tilesets.file(request.principal, nodeId, path));
  }

  app.get(
    `/v1/nodes/:nodeId/tiles/${TILESET_FILE}`,
    {
      config: { scope: 'read:hierarchy', rateBudget: 'tiles' },
      schema: {
        tags: ['Processing'],
        operationId: 'getDerivativeTileset',
        summary: "A processed point cloud's 3D Tiles tileset",
        description: DESCRIPTION,
        params: NodeIdParams,
        response: TILE_RESPONSES,
      },
    },
    async (request, reply) => send(request, reply, request.params.nodeId, TILESET_FILE),
  );

  app.get(
    '/v1/nodes/:nodeId/tiles/*',
    {
      config: { scope: 'read:hierarchy', rateBudget: 'tiles' },
      schema: {
        tags: ['Processing'],
        operationId: 'getDerivativeTile',
        summary: 'A file the tileset of a processed point cloud references',
        description: DESCRIPTION,
        // The wildcard is `*` to Fastify; the document names it `path` (region-app.ts).
        params: Type.Object({
          nodeId: NodeIdParams.properties.nodeId,
          '*': Type.String({ description: 'The path relative to the tileset, as its content URIs give it, e.g. tiles/r0.glb' }),
        }),
        response: TILE_RESPONSES,
      },
    },
    async (request, reply) => send(request, reply, request.params.nodeId, rawWildcard(request)),
  );
}
