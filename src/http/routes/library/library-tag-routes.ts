import { Type } from '@sinclair/typebox';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  CreateLibraryTagBody,
  LibraryTagIdParams,
  LibraryTagSchema,
  toLibraryTagBody,
  UpdateLibraryTagBody,
} from './library-tag-schemas.js';

const TAGS = ['Asset library tags'];
const WHO_MAY_READ = 'Any member of the organization.';
const WHO_MAY_CHANGE = 'Needs edit on the organization node (an editor there, or an Organization Administrator).';

export default async function libraryTagRoutes(app: RegionApp) {
  app.addSchema(LibraryTagSchema);
  const LibraryTag = Type.Ref('LibraryTag');

  app.get(
    '/v1/asset-library/tags',
    {
      config: { scope: 'read:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'listAssetLibraryTags',
        summary: "List the asset library's tags",
        description: `${WHO_MAY_READ} Ordered by name (without regard to case), then id.`,
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Type.Array(LibraryTag), ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await app.services.libraryTags.list(request.principal, clampLimit(limit), offset ?? 0);
      return rows.map(toLibraryTagBody);
    },
  );

  app.get(
    '/v1/asset-library/tags/:tagId',
    {
      config: { scope: 'read:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'getAssetLibraryTag',
        summary: 'Get an asset library tag',
        description: WHO_MAY_READ,
        params: LibraryTagIdParams,
        response: { 200: LibraryTag, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => toLibraryTagBody(await app.services.libraryTags.get(request.principal, request.params.tagId)),
  );

  app.post(
    '/v1/asset-library/tags',
    {
      config: { scope: 'write:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'createAssetLibraryTag',
        summary: 'Create an asset library tag',
        description: `${WHO_MAY_CHANGE} 409 DuplicateTagName: the name (compared without case) is taken.`,
        body: CreateLibraryTagBody,
        response: { 201: LibraryTag, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const body = toLibraryTagBody(await app.services.libraryTags.create(request.principal, request.body));
      return created(reply, app.baseUrl, `/v1/asset-library/tags/${body.id}`, body);
    },
  );

  app.patch(
    '/v1/asset-library/tags/:tagId',
    {
      config: { scope: 'write:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'updateAssetLibraryTag',
        summary: 'Rename an asset library tag or change its colour',
        description: `${WHO_MAY_CHANGE} A given field replaces the stored one; color null clears it. 409 DuplicateTagName.`,
        params: LibraryTagIdParams,
        body: UpdateLibraryTagBody,
        response: { 200: LibraryTag, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      toLibraryTagBody(await app.services.libraryTags.update(request.principal, request.params.tagId, request.body)),
  );

  app.delete(
    '/v1/asset-library/tags/:tagId',
    {
      config: { scope: 'write:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'deleteAssetLibraryTag',
        summary: 'Delete an asset library tag',
        description: `${WHO_MAY_CHANGE} The tag is taken off every model that carries it, in the same transaction.`,
        params: LibraryTagIdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.services.libraryTags.delete(request.principal, request.params.tagId);
      return reply.code(204).send(null);
    },
  );
}
