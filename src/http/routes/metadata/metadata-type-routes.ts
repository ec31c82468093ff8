import { Type } from '@sinclair/typebox';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  CreateMetadataTypeBody,
  METADATA_TYPE_BODY_LIMIT,
  MetadataTypeIdParams,
  MetadataTypeSchema,
  toMetadataTypeBody,
  UpdateMetadataTypeBody,
} from './metadata-type-schemas.js';

const WHO_MAY_CHANGE = 'Needs manage on the organization node (Organization Administrator).';
const RULES =
  'Beyond the schema, 400 ValidationError naming the field: a (section, name) pair twice, unit on a property that is not a number, choices missing on a choice property or present on another, more than 50 sections or 200 properties in one.';

export default async function metadataTypeRoutes(app: RegionApp) {
  app.addSchema(MetadataTypeSchema);
  const MetadataType = Type.Ref('MetadataType');
  const bodyLimit = Math.max(app.platform.config.jsonBodyLimitBytes, METADATA_TYPE_BODY_LIMIT);

  app.get(
    '/v1/metadata-types',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Metadata types'],
        operationId: 'listMetadataTypes',
        summary: "List the organization's metadata types",
        description: 'Any member of the organization. Ordered by name (without regard to case), then id.',
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Type.Array(MetadataType), ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await app.services.metadataTypes.list(request.principal, clampLimit(limit), offset ?? 0);
      return rows.map(toMetadataTypeBody);
    },
  );

  app.get(
    '/v1/metadata-types/:metadataTypeId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Metadata types'],
        operationId: 'getMetadataType',
        summary: 'Get a metadata type',
        description: 'Any member of the organization.',
        params: MetadataTypeIdParams,
        response: { 200: MetadataType, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => toMetadataTypeBody(await app.services.metadataTypes.get(request.principal, request.params.metadataTypeId)),
  );

  app.post(
    '/v1/metadata-types',
    {
      bodyLimit,
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Metadata types'],
        operationId: 'createMetadataType',
        summary: 'Create a metadata type',
        description: `${WHO_MAY_CHANGE} ${RULES} 409 DuplicateMetadataTypeName: the name (compared without case) is taken. A body above 1 MiB (or RDP_JSON_BODY_LIMIT_BYTES when larger) is 413.`,
        body: CreateMetadataTypeBody,
        response: { 201: MetadataType, ...errors(400, 401, 403, 409, 413) },
      },
    },
    async (request, reply) => {
      const body = toMetadataTypeBody(await app.services.metadataTypes.create(request.principal, request.body));
      return created(reply, app.baseUrl, `/v1/metadata-types/${body.id}`, body);
    },
  );

  app.patch(
    '/v1/metadata-types/:metadataTypeId',
    {
      bodyLimit,
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Metadata types'],
        operationId: 'updateMetadataType',
        summary: 'Rename a metadata type, or replace its kinds or its properties',
        description: `${WHO_MAY_CHANGE} Each field given replaces the stored one whole; the result is checked as on create. ${RULES} 409 DuplicateMetadataTypeName.`,
        params: MetadataTypeIdParams,
        body: UpdateMetadataTypeBody,
        response: { 200: MetadataType, ...errors(400, 401, 403, 404, 409, 413) },
      },
    },
    async (request) =>
      toMetadataTypeBody(await app.services.metadataTypes.update(request.principal, request.params.metadataTypeId, request.body)),
  );

  app.delete(
    '/v1/metadata-types/:metadataTypeId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Metadata types'],
        operationId: 'deleteMetadataType',
        summary: 'Delete a metadata type',
        description: `${WHO_MAY_CHANGE} 409 MetadataTypeInUse while objects use it (in twins, open drafts or planning layouts), naming how many: give them another type or none first.`,
        params: MetadataTypeIdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.services.metadataTypes.delete(request.principal, request.params.metadataTypeId);
      return reply.code(204).send(null);
    },
  );
}
