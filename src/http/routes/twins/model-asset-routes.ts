import { Type } from '@sinclair/typebox';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  CreateModelAssetBody,
  ModelAssetParams,
  ModelAssetSchema,
  toModelAssetBody,
  UpdateModelAssetBody,
} from './model-asset-schemas.js';
import { ContextIdParams, IncludeMetadata } from './twin-value-schemas.js';

const CONTEXT =
  "contextId is a site id (the live twin), a draft id (the draft's view: writes change only the draft), or a planning layout id (the model assets placed in that layout, kept apart from the twin's; access is the project node's: read, edit).";
const RULES =
  '400 ValidationError naming the field: a rotation whose norm is not within 1 ± 0.001 (body.rotation; one within is stored normalised), or metadataTypeId (no such type in the organization, or one that does not apply to model assets). 409 DraftNotOpen: the draft is published or discarded.';
const WRITE = `${CONTEXT} Needs edit on the site (or the layout's project). ${RULES}`;

export default async function modelAssetRoutes(app: RegionApp) {
  app.addSchema(ModelAssetSchema);
  const ModelAsset = Type.Ref('ModelAsset');
  const { modelAssets } = app.services;
  const wantsMetadata = (query: { includeMetadata?: boolean; includeMetaData?: boolean }) =>
    Boolean(query.includeMetadata ?? query.includeMetaData);

  app.get(
    '/v1/twin/:contextId/model-assets',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Model assets'],
        operationId: 'listModelAssets',
        summary: 'List the model assets of a twin',
        description: `${CONTEXT} Ordered by createdAt, then id. Needs read on the site (or the layout's project).`,
        params: ContextIdParams,
        querystring: Type.Object({ ...Paging, ...IncludeMetadata }, { additionalProperties: false }),
        response: { 200: Type.Array(ModelAsset), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await modelAssets.list(request.principal, request.params.contextId, clampLimit(limit), offset ?? 0);
      return rows.map((row) => toModelAssetBody(row, wantsMetadata(request.query)));
    },
  );

  app.get(
    '/v1/twin/:contextId/model-assets/:modelAssetId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Model assets'],
        operationId: 'getModelAsset',
        summary: 'Get a model asset',
        description: `${CONTEXT} Needs read on the site (or the layout's project).`,
        params: ModelAssetParams,
        querystring: Type.Object(IncludeMetadata, { additionalProperties: false }),
        response: { 200: ModelAsset, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { contextId, modelAssetId } = request.params;
      return toModelAssetBody(await modelAssets.get(request.principal, contextId, modelAssetId), wantsMetadata(request.query));
    },
  );

  app.post(
    '/v1/twin/:contextId/model-assets',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Model assets'],
        operationId: 'createModelAsset',
        summary: 'Place a library model in a twin',
        description: `rotation defaults to the identity, scale to 1 on each axis. 404: the library model is not the organization's (or does not exist). 409 LibraryModelNotReady: its status is pendingUpload, processing or failed. ${WRITE}`,
        params: ContextIdParams,
        body: CreateModelAssetBody,
        response: { 201: ModelAsset, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = toModelAssetBody(await modelAssets.create(request.principal, request.params.contextId, request.body), false);
      return created(reply, app.baseUrl, `/v1/twin/${request.params.contextId}/model-assets/${body.id}`, body);
    },
  );

  app.patch(
    '/v1/twin/:contextId/model-assets/:modelAssetId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Model assets'],
        operationId: 'updateModelAsset',
        summary: 'Move, turn, scale, rename or retype a model asset',
        description: `Any non-empty subset of the fields; each replaces the stored one whole, null clears metadataTypeId (another type, or null, clears the metadata sections). The library model cannot be changed: place another. metadata is a JSON Merge Patch of the sections, checked as PATCH .../object/{objectId}/metadata checks body.sections (400 naming body.metadata.<section>.<property>), against the new type when the same PATCH gives metadataTypeId. ${WRITE}`,
        params: ModelAssetParams,
        body: UpdateModelAssetBody,
        response: { 200: ModelAsset, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { contextId, modelAssetId } = request.params;
      return toModelAssetBody(await modelAssets.update(request.principal, contextId, modelAssetId, request.body), false);
    },
  );

  app.delete(
    '/v1/twin/:contextId/model-assets/:modelAssetId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Model assets'],
        operationId: 'deleteModelAsset',
        summary: 'Remove a model asset',
        description: `${CONTEXT} Needs edit on the site (or the layout's project). 409 DraftNotOpen.`,
        params: ModelAssetParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { contextId, modelAssetId } = request.params;
      await modelAssets.delete(request.principal, contextId, modelAssetId);
      return reply.code(204).send(null);
    },
  );
}
