import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { TILESET_FILE } from '../../../domain/processing/tileset-files.js';
import { sendTilesetFile, TILE_RESPONSES } from '../nodes/tile-routes.js';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import {
  ComparisonParams,
  ComparisonSchema,
  CostQuery,
  CostSchema,
  CreateComparisonBody,
  SiteParams,
} from './comparison-schemas.js';

const READ = 'contextId is a site id (a draft id is 404). Needs read on the site.';
const PROCESS = 'contextId is a site id. Needs the permission process on the site.';
const BUNDLES =
  '404: a bundle missing, of another site or of another organization. 409 BundleNotReady: a bundle that is not a processed point cloud. 400: the same bundle twice.';

/** The wildcard as the request sent it, before percent-decoding (as the node tile routes read theirs). */
function rawTilePath(request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0] ?? '';
  const tiles = path.indexOf('/tiles/', path.indexOf('/comparisons/'));
  return tiles < 0 ? '' : path.slice(tiles + '/tiles/'.length);
}

/** Comparisons of two processed point clouds of a site (docs/comparisons.md). */
export default async function comparisonRoutes(app: RegionApp) {
  const { comparisons, tilesets } = app.services;
  app.addSchema(ComparisonSchema);

  app.get(
    '/v1/twin/:contextId/comparisons/cost',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Comparisons'],
        operationId: 'getComparisonCost',
        summary: 'The current cost of comparing two processed point clouds of the site',
        description: `A deterministic function of the two scans: 2 credits plus 1 per started million points of both. ${BUNDLES} ${READ}`,
        params: SiteParams,
        querystring: CostQuery,
        response: { 200: CostSchema, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { referenceBundleId, comparedBundleId } = request.query;
      return comparisons.cost(request.principal, request.params.contextId, referenceBundleId, comparedBundleId);
    },
  );

  app.post(
    '/v1/twin/:contextId/comparisons',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Comparisons'],
        operationId: 'startComparison',
        summary: 'Compare two processed point clouds of the site',
        description: `Submit the cost of the cost endpoint (409 ProcessingCostMismatch otherwise). 202 with the comparison, queued; a worker computes it (state running, then ready or failed; webhook events comparison.succeeded and comparison.failed). ${BUNDLES} 400: maxDistance outside 0.001..1000, tolerance not above 0 or above maxDistance. 409 InsufficientProcessingCapacity: the organization's processing slots (a comparison takes one, as a processing does) or the deployment's are all taken, or no worker runs. A refusal stores nothing. Its tiles and CSV count toward the organization's storage use once it is ready. ${PROCESS}`,
        params: SiteParams,
        body: CreateComparisonBody,
        response: { 202: Type.Ref('Comparison'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const comparison = await comparisons.submit(request.principal, request.params.contextId, request.body);
      return reply.code(202).send(comparison);
    },
  );

  app.get(
    '/v1/twin/:contextId/comparisons',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Comparisons'],
        operationId: 'listComparisons',
        summary: "List a site's comparisons",
        description: `Oldest first (createdAt, then id). ${READ}`,
        params: SiteParams,
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Type.Array(Type.Ref('Comparison')), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      return comparisons.list(request.principal, request.params.contextId, clampLimit(limit), offset ?? 0);
    },
  );

  app.get(
    '/v1/twin/:contextId/comparisons/:comparisonId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Comparisons'],
        operationId: 'getComparison',
        summary: 'A comparison: its state, progress, figures and outputs',
        description: `404: no comparison of this site by that id. ${READ}`,
        params: ComparisonParams,
        response: { 200: Type.Ref('Comparison'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => comparisons.get(request.principal, request.params.contextId, request.params.comparisonId),
  );

  app.delete(
    '/v1/twin/:contextId/comparisons/:comparisonId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Comparisons'],
        operationId: 'deleteComparison',
        summary: 'Delete a comparison, its outputs and its twin layer',
        description: `204, then 404. Its tiles and CSV are removed and their bytes leave the storage use (a job still running keeps nothing, whether it then succeeds or fails) and the twin no longer shows it. ${PROCESS}`,
        params: ComparisonParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await comparisons.delete(request.principal, request.params.contextId, request.params.comparisonId);
      return reply.code(204).send(null);
    },
  );

  const TILES_DESCRIPTION = `A ready comparison's 3D Tiles: the compared scan's points carrying _DISTANCE (float metres, -1 beyond maxDistance). Served as a derivative's tiles are (gzip, ETag, Range, caching, the tile bucket: GET /v1/nodes/{nodeId}/tiles/tileset.json); content URIs are relative. 404 until ready, after a delete, and for any path the tiler did not write. An embed token of the site's twin reads them. ${READ}`;

  app.get(
    `/v1/twin/:contextId/comparisons/:comparisonId/tiles/${TILESET_FILE}`,
    {
      config: { scope: 'read:hierarchy', rateBudget: 'tiles' },
      schema: {
        tags: ['Comparisons'],
        operationId: 'getComparisonTileset',
        summary: "A comparison's 3D Tiles tileset",
        description: TILES_DESCRIPTION,
        params: ComparisonParams,
        response: TILE_RESPONSES,
      },
    },
    async (request, reply) => {
      const { contextId, comparisonId } = request.params;
      const folder = await comparisons.tilesFolder(request.principal, contextId, comparisonId);
      return sendTilesetFile(app, request, reply, await tilesets.fileIn(folder, TILESET_FILE));
    },
  );

  app.get(
    '/v1/twin/:contextId/comparisons/:comparisonId/tiles/*',
    {
      config: { scope: 'read:hierarchy', rateBudget: 'tiles' },
      schema: {
        tags: ['Comparisons'],
        operationId: 'getComparisonTile',
        summary: "A file a comparison's tileset references",
        description: TILES_DESCRIPTION,
        params: Type.Object({
          ...ComparisonParams.properties,
          '*': Type.String({ description: 'The path relative to the tileset, as its content URIs give it, e.g. tiles/r0.glb' }),
        }),
        response: TILE_RESPONSES,
      },
    },
    async (request, reply) => {
      const { contextId, comparisonId } = request.params;
      const folder = await comparisons.tilesFolder(request.principal, contextId, comparisonId);
      return sendTilesetFile(app, request, reply, await tilesets.fileIn(folder, rawTilePath(request)));
    },
  );
}
