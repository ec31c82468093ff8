import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';

const ScimTokenSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    scimUrl: Type.String({ description: 'The SCIM 2.0 base address to give the identity provider' }),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Last SCIM request with the token, to the minute; null: never used',
    }),
  },
  { title: 'ScimToken' },
);
const CreatedScimTokenSchema = Type.Object(
  {
    ...ScimTokenSchema.properties,
    token: Type.String({ description: 'The bearer token; shown only in this answer, store it now' }),
  },
  { title: 'CreatedScimToken' },
);
const CreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255, description: 'What the token is for, e.g. the identity provider' }) },
  { additionalProperties: false },
);
const TokenParams = Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 64 }) });

/** SCIM tokens of the caller's organization: manage on the organization node. */
export default async function scimTokenRoutes(app: RegionApp) {
  app.post(
    '/v1/scim-tokens',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['SCIM tokens'],
        operationId: 'createScimToken',
        summary: "Create a bearer token for the organization's identity provider (SCIM 2.0)",
        description: 'The token is shown once, in this answer; only its SHA-256 is stored.',
        body: CreateBody,
        response: { 201: CreatedScimTokenSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const body = await app.services.scimTokens.createFor(request.principal, request.body.name);
      // No GET of one token (its secret is never shown again): the address its DELETE takes.
      return created(reply, app.baseUrl, `/v1/scim-tokens/${body.id}`, body);
    },
  );

  app.get(
    '/v1/scim-tokens',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['SCIM tokens'],
        operationId: 'listScimTokens',
        summary: "List the organization's SCIM tokens (without their secrets)",
        response: { 200: Type.Array(ScimTokenSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => app.services.scimTokens.listFor(request.principal),
  );

  app.delete(
    '/v1/scim-tokens/:tokenId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['SCIM tokens'],
        operationId: 'deleteScimToken',
        summary: 'Delete a SCIM token; the identity provider using it is refused from the next request',
        params: TokenParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.services.scimTokens.deleteFor(request.principal, request.params.tokenId);
      return reply.code(204).send(null);
    },
  );
}
