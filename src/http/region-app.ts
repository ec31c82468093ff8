import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { regionServices } from '../composition/region-services.js';
import type { Region } from '../domain/regions.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import { EmbedTokenVerifier } from '../oauth/embed-tokens.js';
import type { Platform } from '../platform.js';
import type { OrganizationRateLimiter } from '../services/organization-rate-limiter.js';
import { registerAuthentication } from './plugins/authenticate.js';
import type { PlatformMetrics } from './plugins/metrics.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { registerRegionOpenApi } from './plugins/region-openapi.js';
import { referenceRoutes } from './references/reference-routes.js';
import comparisonRoutes from './routes/comparisons/comparison-routes.js';
import embedSessionRoutes from './routes/embed/embed-session-routes.js';
import libraryModelRoutes from './routes/library/library-model-routes.js';
import libraryTagRoutes from './routes/library/library-tag-routes.js';
import metadataTypeRoutes from './routes/metadata/metadata-type-routes.js';
import { NodeSchema } from './routes/nodes/node-schemas.js';
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
import type { RegionApp } from './routes/region-app-type.js';
import { ErrorSchema } from './routes/responses.js';
import scimTokenRoutes from './routes/scim-tokens/scim-token-routes.js';
import businessObjectRoutes from './routes/twins/business-object-routes.js';
import modelAssetPreviewRoutes from './routes/twins/model-asset-preview-routes.js';
import objectMetadataRoutes from './routes/twins/object-metadata-routes.js';
import twinLayerRoutes from './routes/twins/twin-layer-routes.js';
import twinObjectKindRoutes from './routes/twins/twin-object-kinds.js';
import twinRoutes from './routes/twins/twin-routes.js';
import attachmentRoutes from './routes/uploads/attachment-routes.js';
import bundleRoutes from './routes/uploads/bundle-routes.js';
import siteFileRoutes from './routes/uploads/site-file-routes.js';
import storageRoutes from './routes/uploads/storage-routes.js';
import webhookRoutes from './routes/webhooks/webhook-routes.js';

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
    sessionOfToken: (tokenHash) => services.embedSessions.sessionOfToken(tokenHash),
    layerNodeIds: async (siteId) => (await services.twinLayers.ofSite(siteId)).map((layer) => layer.nodeId),
    planningReach: (orgId, target) => services.planning.embedReach(orgId, target),
    creatorRevoked: (userId, orgId, issuedAtMs) => options.verifier.userRevoked(userId, orgId, issuedAtMs),
    clock: platform.clock,
  });
  services.embedSessions.onRevoked((sessionId) => embedTokens.forgetSession(sessionId));
  registerAuthentication(app, options.verifier, { region, regionUrls: platform.config.regionUrls }, embedTokens);
  if (options.rateLimiter) registerRateLimit(app, options.rateLimiter, () => options.metrics?.rateLimited(region));

  await registerRegionOpenApi(app, {
    region,
    publicUrl: platform.config.publicUrl,
    regionUrl: platform.config.regionUrls[region],
    prefix,
  });

  await readRoutes(app);
  await writeRoutes(app);
  await thumbnailRoutes(app);
  await tileRoutes(app);
  await siteFileRoutes(app);
  await bundleRoutes(app);
  await storageRoutes(app);
  await processingRoutes(app);
  await comparisonRoutes(app);
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
  await twinObjectKindRoutes(app);
  await modelAssetPreviewRoutes(app);
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
