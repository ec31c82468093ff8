import { Type } from '@sinclair/typebox';
import { clampLimit } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { ContextIdParams, IncludeMetadata } from './twin-value-schemas.js';
import {
  CreateZoneBody,
  toZoneBody,
  toZoneTreeBody,
  UpdateZoneBody,
  ZoneListQuery,
  ZoneParams,
  ZoneSchema,
  ZoneTreeSchema,
} from './zone-schemas.js';

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const WRITE = `${CONTEXT} Needs edit on the site. 400 ValidationError naming the field: a rotation whose norm is not within 1 ± 1e-3 (rotations are stored normalised), parentZoneId (no such zone in the context), metadataTypeId (no such type in the organization, or one that does not apply to zones). 409 CircularityFound: the parent is the zone or inside its subtree; 409 MaxDepthExceeded: the zone's subtree would reach below level 8 (a top-level zone is level 1); 409 DraftNotOpen: the draft is published or discarded.`;

export default async function zoneRoutes(app: RegionApp) {
  app.addSchema(ZoneSchema);
  app.addSchema(ZoneTreeSchema);
  const Zone = Type.Ref('Zone');
  const ZoneTreeNode = Type.Ref('ZoneTreeNode');
  const { zones } = app.services;
  const wantsMetadata = (query: { includeMetadata?: boolean; includeMetaData?: boolean }) =>
    Boolean(query.includeMetadata ?? query.includeMetaData);

  app.get(
    '/v1/twin/:contextId/zones',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Zones'],
        operationId: 'listZones',
        summary: 'List the zones of a twin, flat or as a tree',
        description: `${CONTEXT} Ordered by createdAt, then id (children too). With tree=true: {items: [zone with children]}, the top-level zones paged by limit and offset, each with its whole subtree. Needs read on the site.`,
        params: ContextIdParams,
        querystring: ZoneListQuery,
        response: {
          200: Type.Union([Type.Array(Zone), Type.Object({ items: Type.Array(ZoneTreeNode) })]),
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { limit, offset, tree } = request.query;
      const { principal } = request;
      const withMetadata = wantsMetadata(request.query);
      if (tree) {
        const roots = await zones.tree(principal, request.params.contextId, clampLimit(limit), offset ?? 0);
        return { items: roots.map((root) => toZoneTreeBody(root, withMetadata)) };
      }
      const rows = await zones.list(principal, request.params.contextId, clampLimit(limit), offset ?? 0);
      return rows.map((row) => toZoneBody(row, withMetadata));
    },
  );

  app.get(
    '/v1/twin/:contextId/zones/:zoneId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Zones'],
        operationId: 'getZone',
        summary: 'Get a zone',
        description: `${CONTEXT} Needs read on the site.`,
        params: ZoneParams,
        querystring: Type.Object(IncludeMetadata, { additionalProperties: false }),
        response: { 200: Zone, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { contextId, zoneId } = request.params;
      return toZoneBody(await zones.get(request.principal, contextId, zoneId), wantsMetadata(request.query));
    },
  );

  app.post(
    '/v1/twin/:contextId/zones',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Zones'],
        operationId: 'createZone',
        summary: 'Outline a zone',
        description: WRITE,
        params: ContextIdParams,
        body: CreateZoneBody,
        response: { 201: Zone, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = toZoneBody(await zones.create(request.principal, request.params.contextId, request.body), false);
      return created(reply, app.baseUrl, `/v1/twin/${request.params.contextId}/zones/${body.id}`, body);
    },
  );

  app.patch(
    '/v1/twin/:contextId/zones/:zoneId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Zones'],
        operationId: 'updateZone',
        summary: 'Change or move a zone',
        description: `Any non-empty subset of the fields; each replaces the stored one whole, null clears an optional one (parentZoneId null: top level). ${WRITE}`,
        params: ZoneParams,
        body: UpdateZoneBody,
        response: { 200: Zone, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { contextId, zoneId } = request.params;
      return toZoneBody(await zones.update(request.principal, contextId, zoneId, request.body), false);
    },
  );

  app.delete(
    '/v1/twin/:contextId/zones/:zoneId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Zones'],
        operationId: 'deleteZone',
        summary: 'Delete a zone',
        description: `${CONTEXT} Its child zones move to its parent and its points of interest leave it (zoneId null), in the same transaction (through a draft, as the draft's changes). Needs edit on the site. 409 DraftNotOpen.`,
        params: ZoneParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { contextId, zoneId } = request.params;
      await zones.delete(request.principal, contextId, zoneId);
      return reply.code(204).send(null);
    },
  );
}
