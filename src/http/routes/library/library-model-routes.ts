import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import { clampLimit } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { DOWNLOAD_RESPONSES, sendBlob } from '../uploads/send-stored-object.js';
import {
  CreatedLibraryModel,
  CreateLibraryModelBody,
  FinalizeLibraryModelBody,
  GetLibraryModelQuery,
  LibraryModelIdParams,
  LibraryModelSchema,
  ListLibraryModelsQuery,
  UpdateLibraryModelBody,
} from './library-model-schemas.js';

const TAGS = ['Asset library models'];
const WHO_MAY_READ = 'Any member of the organization.';
const WHO_MAY_CHANGE = 'Needs edit on the organization node (an editor there, or an Organization Administrator).';
const DOWNLOAD_SCOPE = 'download:assetlibrary';

/** Download links are a download: asking for them needs download:assetlibrary besides the read scope. */
function checkDownloadScope(request: FastifyRequest, includeDownloadLinks: boolean) {
  if (includeDownloadLinks && !request.principal.scopes.has(DOWNLOAD_SCOPE)) throw new ApiError('InsufficientScopes');
}

export default async function libraryModelRoutes(app: RegionApp) {
  app.addSchema(LibraryModelSchema);
  const LibraryModel = Type.Ref('LibraryModel');
  const models = () => app.services.libraryModels;

  app.post(
    '/v1/asset-library/models',
    {
      config: { scope: 'write:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'createAssetLibraryModel',
        summary: 'Create a library model and open its upload',
        description: `${WHO_MAY_CHANGE} Reserves the size against the storage quota and answers the model (pendingUpload) with signed upload addresses (uploadUrl, or parts for large files), as site files do. 403 StorageLimitExceeded; 400 ValidationError naming tagIds for an unknown tag or more than 50.`,
        body: CreateLibraryModelBody,
        response: { 201: CreatedLibraryModel, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const body = await models().create(request.principal, request.body);
      return created(reply, app.baseUrl, `/v1/asset-library/models/${body.id}`, body);
    },
  );

  app.get(
    '/v1/asset-library/models',
    {
      config: { scope: 'read:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'listAssetLibraryModels',
        summary: "List the asset library's models",
        description: `${WHO_MAY_READ} Ordered by name (without regard to case), then id. includeDownloadLinks needs download:assetlibrary.`,
        querystring: ListLibraryModelsQuery,
        response: { 200: Type.Array(LibraryModel), ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset, tagId, includeTags, includeDownloadLinks } = request.query;
      checkDownloadScope(request, includeDownloadLinks);
      return models().list(request.principal, {
        limit: clampLimit(limit),
        offset: offset ?? 0,
        tagIds: tagId ?? [],
        includeTags,
        includeDownloadLinks,
      });
    },
  );

  app.get(
    '/v1/asset-library/models/:modelId',
    {
      config: { scope: 'read:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'getAssetLibraryModel',
        summary: 'Get a library model',
        description: `${WHO_MAY_READ} includeDownloadLinks needs download:assetlibrary (403 Insufficient OAuth scopes without it).`,
        params: LibraryModelIdParams,
        querystring: GetLibraryModelQuery,
        response: { 200: LibraryModel, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      checkDownloadScope(request, request.query.includeDownloadLinks);
      return models().get(request.principal, request.params.modelId, request.query);
    },
  );

  app.patch(
    '/v1/asset-library/models/:modelId',
    {
      config: { scope: 'write:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'updateAssetLibraryModel',
        summary: 'Change a library model: name, description, tags',
        description: `${WHO_MAY_CHANGE} A given field replaces the stored one; tagIds replaces the set of tags.`,
        params: LibraryModelIdParams,
        body: UpdateLibraryModelBody,
        response: { 200: LibraryModel, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => models().update(request.principal, request.params.modelId, request.body),
  );

  app.delete(
    '/v1/asset-library/models/:modelId',
    {
      config: { scope: 'write:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'deleteAssetLibraryModel',
        summary: 'Delete a library model',
        description: `${WHO_MAY_CHANGE} Removes the model and its tag assignments, frees its quota at once and queues its bytes (original, preview, thumbnail) for deletion. 409 LibraryModelInUse while model assets in twins, open drafts or planning layouts place it.`,
        params: LibraryModelIdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await models().delete(request.principal, request.params.modelId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/asset-library/models/:modelId/finalize',
    {
      config: { scope: 'write:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'finalizeAssetLibraryModel',
        summary: 'Finalize a library model upload',
        description: `${WHO_MAY_CHANGE} Checks the upload (every byte, the ETag it returned) and reads the format from the bytes: processing while the preview is made, else ready with previewable false and the reason. 400 ValidationError for a missing, malformed or wrong ETag or an incomplete upload; 400 FileNotCompatible (the model stays pendingUpload); 409 FailedToLaunchProcessing when the preview job could not be queued (finalize again). Again after success: the model.`,
        params: LibraryModelIdParams,
        body: FinalizeLibraryModelBody,
        response: { 200: LibraryModel, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => models().finalize(request.principal, request.params.modelId, request.body.etag),
  );

  app.get(
    '/v1/asset-library/models/:modelId/thumbnail',
    {
      config: { scope: 'read:assetlibrary' },
      schema: {
        tags: TAGS,
        operationId: 'getAssetLibraryModelThumbnail',
        summary: "Get a library model's thumbnail (PNG)",
        description: `${WHO_MAY_READ} 404 until the worker made one.`,
        params: LibraryModelIdParams,
        response: { ...DOWNLOAD_RESPONSES, ...errors(401, 403, 404, 416) },
      },
    },
    async (request, reply) => {
      const thumbnail = await models().thumbnail(request.principal, request.params.modelId);
      return sendBlob(app.platform.blobs, request, reply, {
        ...thumbnail,
        contentType: 'image/png',
        headers: { 'cache-control': 'private, max-age=0, must-revalidate' },
      });
    },
  );
}
