import { Type } from '@sinclair/typebox';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  CreatePointOfInterestBody,
  PointOfInterestParams,
  PointOfInterestSchema,
  toPointOfInterestBody,
  UpdatePointOfInterestBody,
} from './point-of-interest-schemas.js';
import { ContextIdParams, IncludeMetadata } from './twin-value-schemas.js';

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const WRITE = `${CONTEXT} Needs edit on the site. 400 ValidationError naming zoneId (no such zone in the context, also one deleted while the write waited for it) or metadataTypeId (no such type in the organization, or one that does not apply to points of interest). 409 DraftNotOpen: the draft is published or discarded.`;

export default async function pointOfInterestRoutes(app: RegionApp) {
  app.addSchema(PointOfInterestSchema);
  const PointOfInterest = Type.Ref('PointOfInterest');
  const { pointsOfInterest } = app.services;
  const wantsMetadata = (query: { includeMetadata?: boolean; includeMetaData?: boolean }) =>
    Boolean(query.includeMetadata ?? query.includeMetaData);

  app.get(
    '/v1/twin/:contextId/points-of-interest',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Points of interest'],
        operationId: 'listPointsOfInterest',
        summary: 'List the points of interest of a twin',
        description: `${CONTEXT} Ordered by createdAt, then id. Needs read on the site.`,
        params: ContextIdParams,
        querystring: Type.Object({ ...Paging, ...IncludeMetadata }, { additionalProperties: false }),
        response: { 200: Type.Array(PointOfInterest), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await pointsOfInterest.list(request.principal, request.params.contextId, clampLimit(limit), offset ?? 0);
      return rows.map((row) => toPointOfInterestBody(row, wantsMetadata(request.query)));
    },
  );

  app.get(
    '/v1/twin/:contextId/points-of-interest/:pointOfInterestId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Points of interest'],
        operationId: 'getPointOfInterest',
        summary: 'Get a point of interest',
        description: `${CONTEXT} Needs read on the site.`,
        params: PointOfInterestParams,
        querystring: Type.Object(IncludeMetadata, { additionalProperties: false }),
        response: { 200: PointOfInterest, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { contextId, pointOfInterestId } = request.params;
      return toPointOfInterestBody(
        await pointsOfInterest.get(request.principal, contextId, pointOfInterestId),
        wantsMetadata(request.query),
      );
    },
  );

  app.post(
    '/v1/twin/:contextId/points-of-interest',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Points of interest'],
        operationId: 'createPointOfInterest',
        summary: 'Place a point of interest',
        description: WRITE,
        params: ContextIdParams,
        body: CreatePointOfInterestBody,
        response: { 201: PointOfInterest, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = toPointOfInterestBody(
        await pointsOfInterest.create(request.principal, request.params.contextId, request.body),
        false,
      );
      return created(reply, app.baseUrl, `/v1/twin/${request.params.contextId}/points-of-interest/${body.id}`, body);
    },
  );

  app.patch(
    '/v1/twin/:contextId/points-of-interest/:pointOfInterestId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Points of interest'],
        operationId: 'updatePointOfInterest',
        summary: 'Change a point of interest',
        description: `Any non-empty subset of the fields; each replaces the stored one whole, null clears an optional one. ${WRITE}`,
        params: PointOfInterestParams,
        body: UpdatePointOfInterestBody,
        response: { 200: PointOfInterest, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { contextId, pointOfInterestId } = request.params;
      return toPointOfInterestBody(
        await pointsOfInterest.update(request.principal, contextId, pointOfInterestId, request.body),
        false,
      );
    },
  );

  app.delete(
    '/v1/twin/:contextId/points-of-interest/:pointOfInterestId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Points of interest'],
        operationId: 'deletePointOfInterest',
        summary: 'Delete a point of interest',
        description: `${CONTEXT} Needs edit on the site. 409 DraftNotOpen.`,
        params: PointOfInterestParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { contextId, pointOfInterestId } = request.params;
      await pointsOfInterest.delete(request.principal, contextId, pointOfInterestId);
      return reply.code(204).send(null);
    },
  );
}
