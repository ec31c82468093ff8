import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../domain/errors.js';
import { detectImageType } from '../../../domain/nodes/image-types.js';
import { noneMatch } from '../../../domain/uploads/etag.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import { NodeIdParams } from './node-schemas.js';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** Image bytes per media type, for the OpenAPI document; no type, so a Buffer body validates. */
const imageContent = (description: string) =>
  Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: { description, contentMediaType: type } }]));

export default async function thumbnailRoutes(app: RegionApp) {
  // Thumbnails arrive as raw image bytes; the declared type is checked against the bytes.
  app.addContentTypeParser(
    IMAGE_TYPES,
    { parseAs: 'buffer', bodyLimit: app.platform.config.thumbnailMaxBytes },
    (_request, body, done) => done(null, body),
  );

  app.put(
    '/v1/nodes/:nodeId/thumbnail',
    {
      bodyLimit: app.platform.config.thumbnailMaxBytes,
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Nodes'],
        operationId: 'setNodeThumbnail',
        summary: "Set a node's thumbnail",
        description: `Body: the image bytes, Content-Type one of ${IMAGE_TYPES.join(', ')}; the bytes must be of that type.`,
        params: NodeIdParams,
        body: { content: imageContent('The image bytes') },
        response: {
          200: Type.Object({ etag: Type.String(), contentType: Type.String(), size: Type.Integer() }),
          ...errors(400, 401, 403, 404, 413, 415),
        },
      },
    },
    async (request) => {
      const declared = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const body = request.body;
      if (!IMAGE_TYPES.includes(declared) || !Buffer.isBuffer(body)) {
        throw new ApiError('UnsupportedMediaType', `Content-Type must be one of ${IMAGE_TYPES.join(', ')}`);
      }
      const actual = detectImageType(body);
      if (actual !== declared) {
        throw new ApiError('ValidationError', `body: the bytes are ${actual ?? 'not an image'}, not ${declared}`);
      }
      return app.services.nodes.putThumbnail(request.principal, request.params.nodeId, declared, body);
    },
  );

  app.get(
    '/v1/nodes/:nodeId/thumbnail',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Nodes'],
        operationId: 'getNodeThumbnail',
        summary: "Get a node's thumbnail image",
        params: NodeIdParams,
        response: {
          200: { description: 'The image bytes, with an ETag', content: imageContent('The image bytes') },
          304: Type.Null({ description: 'Not Modified: the If-None-Match ETag is current' }),
          ...errors(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const thumbnail = await app.services.nodes.getThumbnail(request.principal, request.params.nodeId);
      reply.header('etag', thumbnail.etag).header('cache-control', 'private, max-age=0, must-revalidate');
      if (noneMatch(request.headers['if-none-match'], thumbnail.etag)) {
        // No payload at all: a serialized null would announce a body a 304 cannot have.
        reply.code(304);
        return reply.send();
      }
      return reply.type(thumbnail.content_type).send(Buffer.from(thumbnail.bytes));
    },
  );

  app.delete(
    '/v1/nodes/:nodeId/thumbnail',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Nodes'],
        operationId: 'deleteNodeThumbnail',
        summary: "Delete a node's thumbnail",
        params: NodeIdParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.services.nodes.deleteThumbnail(request.principal, request.params.nodeId);
      return reply.code(204).send(null);
    },
  );
}
