import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { registerJsonBodyParser } from '../../plugins/json-body.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import {
  AssetMetadataParams,
  MERGE_PATCH_MEDIA_TYPE,
  METADATA_PATCH_BODY_LIMIT,
  MetadataPatchBody,
  ObjectMetadataParams,
  ObjectMetadataSchema,
  toObjectMetadataBody,
} from './object-metadata-schemas.js';

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const PATCH_RULES = `Body {sections}: a JSON Merge Patch (RFC 7396) of the object's sections, sent as ${MERGE_PATCH_MEDIA_TYPE} or application/json; in a section, a property null is removed, and a section null is removed whole. The result is checked against the object's metadata type: 400 ValidationError naming body.sections.<section>.<property> (not a property of the type, a value that does not fit it, a required property missing, an attachment that is not finalized on the same site), or body.sections (more than 50 sections or 200 properties in one, more than 256 KiB as JSON). An object without a metadata type takes free sections: any names of 1 to 255 characters, each value a string (at most 10,000 characters), a finite number, a boolean, a link or an attachment value (as a type's); anything else (an array, another object) is 400 naming body.sections.<section>.<property>; the same counts and size. Needs edit on the site. 409 DraftNotOpen: the draft is published or discarded.`;

/** The deprecated asset route's successor and when it was deprecated (RFC 9745: @<unix seconds>, 2026-11-23). */
const DEPRECATED_AT = '@1795392000';

function markDeprecated(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] as string;
  const successor = path.replace(/\/assets\/([^/]+)\/metadata$/, '/object/$1/metadata');
  reply.header('deprecation', DEPRECATED_AT);
  reply.header('link', `<${successor}>; rel="successor-version"`);
}

export default async function objectMetadataRoutes(app: RegionApp) {
  // On the app, so the OpenAPI document's components hold it.
  app.addSchema(ObjectMetadataSchema);
  // In a scope of their own: application/merge-patch+json is taken by these routes only.
  await app.register(async (instance) => {
    const scoped = instance as RegionApp;
    registerJsonBodyParser(scoped, MERGE_PATCH_MEDIA_TYPE);
    registerRoutes(scoped);
  });
}

function registerRoutes(app: RegionApp) {
  const ObjectMetadata = Type.Ref('ObjectMetadata');
  const { objectMetadata } = app.services;
  const bodyLimit = Math.max(app.platform.config.jsonBodyLimitBytes, METADATA_PATCH_BODY_LIMIT);

  app.get(
    '/v1/twin/:contextId/object/:objectId/metadata',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Object metadata'],
        operationId: 'getObjectMetadata',
        summary: "A twin object's metadata",
        description: `${CONTEXT} Any kind of object (asset, point of interest, zone). Needs read on the site.`,
        params: ObjectMetadataParams,
        response: { 200: ObjectMetadata, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { contextId, objectId } = request.params;
      return toObjectMetadataBody(await objectMetadata.get(request.principal, contextId, objectId));
    },
  );

  app.patch(
    '/v1/twin/:contextId/object/:objectId/metadata',
    {
      config: { scope: 'write:hierarchy' },
      bodyLimit,
      schema: {
        tags: ['Object metadata'],
        operationId: 'updateObjectMetadata',
        summary: "Change a twin object's metadata",
        description: `${CONTEXT} Any kind of object. ${PATCH_RULES}`,
        params: ObjectMetadataParams,
        consumes: ['application/json', MERGE_PATCH_MEDIA_TYPE],
        body: MetadataPatchBody,
        response: { 200: ObjectMetadata, ...errors(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { contextId, objectId } = request.params;
      return toObjectMetadataBody(await objectMetadata.update(request.principal, contextId, objectId, request.body.sections));
    },
  );

  app.patch(
    '/v1/twin/:contextId/assets/:assetId/metadata',
    {
      config: { scope: 'write:hierarchy' },
      bodyLimit,
      onSend: async (request, reply, payload) => {
        markDeprecated(request, reply);
        return payload;
      },
      schema: {
        tags: ['Assets'],
        operationId: 'updateAssetMetadata',
        summary: "Change an asset's metadata (deprecated: use updateObjectMetadata)",
        description: `Deprecated: PATCH /v1/twin/{contextId}/object/{objectId}/metadata does the same for every kind; every answer carries Deprecation: ${DEPRECATED_AT} (RFC 9745) and a Link to it (rel="successor-version"). An id that is not an asset's is 404. ${CONTEXT} ${PATCH_RULES}`,
        deprecated: true,
        params: AssetMetadataParams,
        consumes: ['application/json', MERGE_PATCH_MEDIA_TYPE],
        body: MetadataPatchBody,
        response: { 200: ObjectMetadata, ...errors(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { contextId, assetId } = request.params;
      return toObjectMetadataBody(
        await objectMetadata.update(request.principal, contextId, assetId, request.body.sections, 'asset'),
      );
    },
  );
}
