import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { SCOPES } from '../domain/access/scopes.js';
import type { Region } from '../domain/regions.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import { EmbedTokenVerifier } from '../oauth/embed-tokens.js';
import type { Platform } from '../platform.js';
import type { OrganizationRateLimiter } from '../services/organization-rate-limiter.js';
import { type RegionServices, regionServices } from '../services/region-services.js';
import { registerAuthentication, SECURITY_SCHEME } from './plugins/authenticate.js';
import type { PlatformMetrics } from './plugins/metrics.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { referenceRoutes } from './references/reference-routes.js';
import embedSessionRoutes from './routes/embed/embed-session-routes.js';
import libraryModelRoutes from './routes/library/library-model-routes.js';
import libraryTagRoutes from './routes/library/library-tag-routes.js';
import metadataTypeRoutes from './routes/metadata/metadata-type-routes.js';
import { ErrorSchema, NodeSchema } from './routes/nodes/node-schemas.js';
import readRoutes from './routes/nodes/read-routes.js';
import thumbnailRoutes from './routes/nodes/thumbnail-routes.js';
import tileRoutes from './routes/nodes/tile-routes.js';
import writeRoutes from './routes/nodes/write-routes.js';
import auditRoutes from './routes/people/audit-routes.js';
import groupRoutes from './routes/people/group-routes.js';
import invitationRoutes from './routes/people/invitation-routes.js';
import membershipRoutes from './routes/people/membership-routes.js';
import roleRoutes from './routes/people/role-routes.js';
import userRoutes from './routes/people/user-routes.js';
import { UserSchema } from './routes/people/user-schemas.js';
import planningRoutes from './routes/planning/planning-routes.js';
import pluginRoutes from './routes/plugins/plugin-routes.js';
import processingRoutes from './routes/processing/processing-routes.js';
import scimTokenRoutes from './routes/scim-tokens/scim-token-routes.js';
import assetRoutes from './routes/twins/asset-routes.js';
import businessObjectRoutes from './routes/twins/business-object-routes.js';
import modelAssetRoutes from './routes/twins/model-asset-routes.js';
import objectMetadataRoutes from './routes/twins/object-metadata-routes.js';
import pointOfInterestRoutes from './routes/twins/point-of-interest-routes.js';
import twinLayerRoutes from './routes/twins/twin-layer-routes.js';
import twinRoutes from './routes/twins/twin-routes.js';
import zoneRoutes from './routes/twins/zone-routes.js';
import attachmentRoutes from './routes/uploads/attachment-routes.js';
import bundleRoutes from './routes/uploads/bundle-routes.js';
import siteFileRoutes from './routes/uploads/site-file-routes.js';
import storageRoutes from './routes/uploads/storage-routes.js';
import webhookRoutes from './routes/webhooks/webhook-routes.js';

export type RegionApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
> & {
  platform: Platform;
  services: RegionServices;
  /** The region's public base address ({base_url}): what a 201's Location starts with. */
  baseUrl: string;
};

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
  { name: 'Points of interest', description: 'Named points placed on a twin, through the live twin or a draft' },
  { name: 'Assets', description: 'Named volumes (oriented boxes) drawn on a twin, through the live twin or a draft' },
  { name: 'Zones', description: 'Nested named volumes outlined on a twin, through the live twin or a draft' },
  {
    name: 'Model assets',
    description:
      "Models of the organization's asset library placed in a twin (position, rotation, scale), through the live twin or a draft",
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

/** One regional resource API, mounted under its service path prefix (e.g. /eu/reality). */
export async function regionApp(
  instance: FastifyInstance,
  options: {
    platform: Platform;
    region: Region;
    verifier: AccessTokenVerifier;
    prefix: string;
    /** Absent when RDP_RATE_LIMIT_DISABLED is set. */
    rateLimiter: OrganizationRateLimiter | undefined;
    /** Counts the refusals of the rate limit. */
    metrics?: PlatformMetrics;
  },
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>() as RegionApp;
  const { platform, region, prefix } = options;
  app.decorate('platform', platform);
  app.decorate('services', regionServices(platform, region));
  app.decorate('baseUrl', platform.config.regionUrls[region]);
  app.addSchema(NodeSchema);
  app.addSchema(ErrorSchema);
  app.addSchema(UserSchema);
  const services = app.services;
  const embedTokens = new EmbedTokenVerifier({
    region,
    sessions: services.embedSessions.sessions,
    layerNodeIds: async (siteId) => (await services.twinLayers.ofSite(siteId)).map((layer) => layer.nodeId),
    planningReach: (orgId, target) => services.planning.embedReach(orgId, target),
    creatorRevoked: (userId, orgId, issuedAtMs) => options.verifier.userRevoked(userId, orgId, issuedAtMs),
    clock: platform.clock,
  });
  services.embedSessions.onRevoked((sessionId) => embedTokens.forgetSession(sessionId));
  registerAuthentication(app, options.verifier, { region, regionUrls: platform.config.regionUrls }, embedTokens);
  if (options.rateLimiter) registerRateLimit(app, options.rateLimiter, () => options.metrics?.rateLimited(region));

  const authUrl = `${platform.config.publicUrl}/auth`;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `Reality Data Platform API (${region})`,
        version: '1.0.0',
        description: `Regional resource API. Use the apiUrl of GET ${authUrl}/oauth/api-info as the base address.`,
      },
      servers: [{ url: platform.config.regionUrls[region] }],
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

  await readRoutes(app);
  await writeRoutes(app);
  await thumbnailRoutes(app);
  await tileRoutes(app);
  await siteFileRoutes(app);
  await bundleRoutes(app);
  await storageRoutes(app);
  await processingRoutes(app);
  await attachmentRoutes(app);
  await auditRoutes(app);
  await invitationRoutes(app);
  await scimTokenRoutes(app);
  await roleRoutes(app);
  await membershipRoutes(app);
  await userRoutes(app);
  await groupRoutes(app);
  await metadataTypeRoutes(app);
  await twinRoutes(app);
  await twinLayerRoutes(app);
  await pointOfInterestRoutes(app);
  await assetRoutes(app);
  await modelAssetRoutes(app);
  await zoneRoutes(app);
  await objectMetadataRoutes(app);
  await businessObjectRoutes(app);
  await libraryTagRoutes(app);
  await libraryModelRoutes(app);
  await webhookRoutes(app, region);
  await planningRoutes(app);
  await pluginRoutes(app);
  await embedSessionRoutes(app);

  // The page links its document and script absolutely, from the public path of the base address,
  // which may differ from the mount prefix behind a proxy.
  await app.register(referenceRoutes, {
    title: `Reality Data Platform API (${region})`,
    publicPath: new URL(platform.config.regionUrls[region]).pathname,
    document: () => app.swagger(),
  });
}
