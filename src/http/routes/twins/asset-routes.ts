import { Type } from '@sinclair/typebox';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { AssetParams, AssetSchema, CreateAssetBody, toAssetBody, UpdateAssetBody } from './asset-schemas.js';
import { ContextIdParams, IncludeMetadata } from './twin-value-schemas.js';

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const WRITE = `${CONTEXT} Needs edit on the site. 400 ValidationError naming the field: a box rotation whose norm is not within 1 ± 0.001 (e.g. body.volume.boxes.2.rotation; one within is stored normalised), or metadataTypeId (no such type in the organization, or one that does not apply to assets). 409 DraftNotOpen: the draft is published or discarded.`;

export default async function assetRoutes(app: RegionApp) {
  app.addSchema(AssetSchema);
  const Asset = Type.Ref('Asset');
  const { assets } = app.services;
  const wantsMetadata = (query: { includeMetadata?: boolean; includeMetaData?: boolean }) =>
    Boolean(query.includeMetadata ?? query.includeMetaData);

  app.get(
    '/v1/twin/:contextId/assets',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Assets'],
        operationId: 'listAssets',
        summary: 'List the assets of a twin',
        description: `${CONTEXT} Ordered by createdAt, then id. Needs read on the site.`,
        params: ContextIdParams,
        querystring: Type.Object({ ...Paging, ...IncludeMetadata }, { additionalProperties: false }),
        response: { 200: Type.Array(Asset), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await assets.list(request.principal, request.params.contextId, clampLimit(limit), offset ?? 0);
      return rows.map((row) => toAssetBody(row, wantsMetadata(request.query)));
    },
  );

  app.get(
    '/v1/twin/:contextId/assets/:assetId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Assets'],
        operationId: 'getAsset',
        summary: 'Get an asset',
        description: `${CONTEXT} Needs read on the site.`,
        params: AssetParams,
        querystring: Type.Object(IncludeMetadata, { additionalProperties: false }),
        response: { 200: Asset, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { contextId, assetId } = request.params;
      return toAssetBody(await assets.get(request.principal, contextId, assetId), wantsMetadata(request.query));
    },
  );

  app.post(
    '/v1/twin/:contextId/assets',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Assets'],
        operationId: 'createAsset',
        summary: 'Draw an asset',
        description: WRITE,
        params: ContextIdParams,
        body: CreateAssetBody,
        response: { 201: Asset, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = toAssetBody(await assets.create(request.principal, request.params.contextId, request.body), false);
      return created(reply, app.baseUrl, `/v1/twin/${request.params.contextId}/assets/${body.id}`, body);
    },
  );

  app.patch(
    '/v1/twin/:contextId/assets/:assetId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Assets'],
        operationId: 'updateAsset',
        summary: 'Change an asset',
        description: `Any non-empty subset of the fields; each replaces the stored one whole (a volume replaces all the boxes), null clears metadataTypeId. ${WRITE}`,
        params: AssetParams,
        body: UpdateAssetBody,
        response: { 200: Asset, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { contextId, assetId } = request.params;
      return toAssetBody(await assets.update(request.principal, contextId, assetId, request.body), false);
    },
  );

  app.delete(
    '/v1/twin/:contextId/assets/:assetId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Assets'],
        operationId: 'deleteAsset',
        summary: 'Delete an asset',
        description: `${CONTEXT} Needs edit on the site. 409 DraftNotOpen.`,
        params: AssetParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { contextId, assetId } = request.params;
      await assets.delete(request.principal, contextId, assetId);
      return reply.code(204).send(null);
    },
  );
}
