import swagger from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../../domain/access/scopes.js';
import type { Region } from '../../domain/regions.js';
import { SECURITY_SCHEME } from './authenticate.js';

/**
 * A regional API's OpenAPI document: its tags, the OAuth security scheme, and the transforms that
 * make each route's schema a faithful operation (descriptions of every status, the headers and
 * answers the authentication layer adds, wildcards and defaults as OpenAPI says them). Route
 * modules declare their schemas only; what the document says about all of them lives here.
 */

export const TAGS = [
  { name: 'Nodes', description: 'The node tree: organization, divisions, sites, folders and data items' },
  { name: 'Trash', description: 'Soft delete, restore, permanent delete; the trash is purged after 30 days' },
  { name: 'Site files', description: 'Files of a site: initiate, upload to the signed address, finalize, download' },
  { name: 'Data bundles', description: 'Bundles, their upload sessions and their one input component' },
  { name: 'Storage', description: "The organization's bytes in use and its storage quota" },
  { name: 'Twin attachments', description: "Files attached to a twin's objects, uploaded like site files" },
  { name: 'Processing', description: 'Cost estimates and processing jobs that turn a bundle input into derivatives' },
  { name: 'Users', description: "The organization's people and service users: list, read, update, deactivate" },
  { name: 'Roles', description: 'Administrative roles (organization level) and custom roles (sets of permissions)' },
  { name: 'Memberships', description: 'Roles given to users, service users and groups on nodes; they reach the subtree' },
  { name: 'Groups', description: 'Groups of users, owned by a division or by the whole organization' },
  { name: 'Invitations', description: 'Invitations by e-mail to a node or to the organization' },
  { name: 'SCIM tokens', description: "Bearer tokens of the organization's identity provider for /scim/v2" },
  {
    name: 'Audit',
    description: 'Who changed what in people, permissions, metadata types, twins, the asset library and embed sessions, and when',
  },
  { name: 'Metadata types', description: "The organization's typed property sets that twin objects fill in as metadata" },
  { name: 'Twins', description: "A site's live twin and its drafts: changes kept apart until they are published" },
  {
    name: 'Comparisons',
    description:
      "Two processed point clouds of a site compared: each compared point's distance to the reference, figures, tiles and a CSV",
  },
  { name: 'Points of interest', description: 'Named points placed on a twin, through the live twin or a draft' },
  { name: 'Assets', description: 'Named volumes (oriented boxes) drawn on a twin, through the live twin or a draft' },
  { name: 'Zones', description: 'Nested named volumes outlined on a twin, through the live twin or a draft' },
  {
    name: 'Model assets',
    description:
      "Models of the organization's asset library placed in a twin (position, rotation, scale), through the live twin or a draft",
  },
  {
    name: 'Measurements',
    description:
      'Distances, heights, polyline lengths, areas and angles saved on a twin, their values computed by the platform, through the live twin or a draft',
  },
  { name: 'Object metadata', description: "A twin object's metadata sections, checked against its metadata type" },
  {
    name: 'Business objects',
    description: "Search an organization's live assets and points of interest by name, creator and dates",
  },
  { name: 'Asset library tags', description: "Tags of the organization's asset library, each counting the models that carry it" },
  {
    name: 'Asset library models',
    description:
      "3D models of the organization's asset library: uploaded as site files are, previewed, tagged, downloaded by signed link",
  },
  {
    name: 'Planning',
    description: 'Planning projects made from a data bundle, and their layouts where library models are placed as model assets',
  },
  { name: 'Plugins', description: 'The viewer extensions installed in the deployment' },
  {
    name: 'Embedding',
    description:
      "Embed sessions: a read-only token for one twin or draft, framed only by the integrator's origins, until it expires or is revoked",
  },
  {
    name: 'Webhooks',
    description:
      'Endpoints told of changes by signed POSTs (Standard Webhooks), their delivery logs and redelivery (docs/webhooks.md)',
  },
];

/** What each status means on every operation; routes may give a more precise description. */
const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created: the full object',
  204: 'No Content',
  304: 'Not Modified: the If-None-Match ETag is current',
  400: 'ValidationError: the message names the failing field',
  401: 'not_authenticated or invalid_token: request a new token',
  403: 'Insufficient OAuth scopes, Forbidden resource (content access, role or seat limit), or SSORestrictedResource',
  404: 'Not Found',
  409: 'Conflict: branch on the error code (listed in the operation description)',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  421: "OrganizationInAnotherRegion: the token's organization lives in another region; call the apiUrl of the body (not a 401: the token is fine)",
  429: "rate_limited: the organization's request bucket is spent; retry after Retry-After seconds (RateLimit-* headers on every answer)",
};

/** Every 201 answers where the created thing is (routes/created.ts). */
const LOCATION_HEADER = {
  Location: { type: 'string', format: 'uri', description: 'The absolute address of what was created' },
};

/**
 * Adds a description to each response that lacks one, and to every operation with a security
 * requirement the answers its authentication layer may give on any of them: 421 for a token of
 * another region's organization and 429 of the organization's request bucket (they all spend
 * from it), and the Location header to every 201. For the document only (a copy).
 */
function describeResponses<Schema extends { response?: unknown; security?: unknown } | undefined>(schema: Schema): Schema {
  if (!schema?.response) return schema;
  const declared = schema.response as Record<string, Record<string, unknown>>;
  const error = Type.Ref('Error') as Record<string, unknown>;
  const withAuthentication = schema.security ? { 421: error, 429: error, ...declared } : declared;
  const response = Object.fromEntries(
    Object.entries(withAuthentication).map(([status, entry]) => {
      const described =
        entry.description || !RESPONSE_DESCRIPTIONS[status] ? entry : { ...entry, description: RESPONSE_DESCRIPTIONS[status] };
      return [status, status === '201' ? { ...described, headers: LOCATION_HEADER } : described];
    }),
  );
  return { ...schema, response };
}

/**
 * A route ending in a wildcard (`/tiles/*`) as OpenAPI's path templating can say it: the
 * parameter `*` named `path` (its value may hold slashes). For the document only (a copy).
 */
function namedWildcard<Schema extends { params?: unknown } | undefined>(url: string, schema: Schema) {
  if (!url.endsWith('/*')) return { url, schema };
  const params = schema?.params as { properties: Record<string, unknown>; required?: string[] } | undefined;
  if (!params?.properties['*']) return { url, schema };
  const { '*': wildcard, ...named } = params.properties;
  const renamed = {
    ...params,
    properties: { ...named, path: wildcard },
    required: (params.required ?? []).map((name) => (name === '*' ? 'path' : name)),
  };
  return { url: `${url.slice(0, -1)}:path`, schema: { ...schema, params: renamed } };
}

/**
 * A query parameter with a default is not required: the server fills it in when it is absent
 * (limit, page, sortBy...). TypeBox marks a property with a default but no Optional as required,
 * which told clients to send it. For the document only (a copy).
 */
function optionalDefaults<Schema extends { querystring?: unknown } | undefined>(schema: Schema): Schema {
  const query = schema?.querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined;
  if (!query?.properties || !query.required) return schema;
  const required = query.required.filter((name) => query.properties?.[name]?.default === undefined);
  return { ...schema, querystring: { ...query, required } };
}

/** Registers @fastify/swagger for one region's routes; call before the routes are added. */
export async function registerRegionOpenApi(
  app: FastifyInstance,
  options: { region: Region; publicUrl: string; regionUrl: string; prefix: string },
) {
  const { region, prefix } = options;
  const authUrl = `${options.publicUrl}/auth`;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `Reality Data Platform API (${region})`,
        version: '1.0.0',
        description: `Regional resource API. Use the apiUrl of GET ${authUrl}/oauth/api-info as the base address.`,
      },
      servers: [{ url: options.regionUrl }],
      tags: TAGS,
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'oauth2',
            flows: {
              clientCredentials: { tokenUrl: `${authUrl}/oauth/token`, scopes: { ...SCOPES } },
              authorizationCode: {
                authorizationUrl: `${authUrl}/consent`,
                tokenUrl: `${authUrl}/oauth/token`,
                refreshUrl: `${authUrl}/oauth/token`,
                scopes: { ...SCOPES },
              },
            },
          },
        },
      },
    },
    // Path keys do not repeat the service prefix: it is part of the server address.
    transform: ({ schema: routeSchema, url: routeUrl }) => {
      const { url, schema } = namedWildcard(routeUrl, routeSchema);
      return {
        schema: optionalDefaults(describeResponses(schema)),
        url: url.startsWith(prefix) ? url.slice(prefix.length) || '/' : url,
      };
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
}
