import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { scimServices } from '../composition/platform-services.js';
import type { Config } from '../config/config.js';
import { issuerOf } from '../domain/oauth/issuer.js';
import { Lifecycle } from '../lifecycle.js';
import { AccessTokenIssuer, AccessTokenVerifier } from '../oauth/access-tokens.js';
import { Sessions } from '../oauth/interaction/sessions.js';
import { publishedKeys } from '../oauth/published-keys.js';
import { SigningKeys } from '../oauth/signing-keys.js';
import { TokenEndpoint } from '../oauth/token-endpoint.js';
import { type Platform, storesFor } from '../platform.js';
import type { LimiterStore } from '../ports/limiter-store.js';
import { LoginThrottle } from '../services/login-throttle.js';
import { type LimitsSource, OrganizationRateLimiter } from '../services/organization-rate-limiter.js';
import { SignInGate } from '../services/sign-in.js';
import { authApp, wellKnownApp } from './auth-app.js';
import blobRoutes from './blob-routes.js';
import consoleRoutes from './console/console-routes.js';
import { landingRoutes } from './landing/landing-routes.js';
import { operationsRoutes, readinessChecks, registerOperationsHooks } from './operations-routes.js';
import { registerCors } from './plugins/cors.js';
import { clientErrorHandler, frameworkErrors, MAX_PATH_PARAMETER_LENGTH, registerErrorHandling } from './plugins/errors.js';
import { registerJsonBodyParser } from './plugins/json-body.js';
import { PlatformMetrics } from './plugins/metrics.js';
import { registerRequestId, requestIdOf } from './plugins/request-id.js';
import { authOpenApiDocument } from './references/auth-openapi.js';
import { referenceRoutes } from './references/reference-routes.js';
import { scimOpenApiDocument } from './references/scim-openapi.js';
import { regionApp } from './region-app.js';
import { schemaCompilers } from './schema-compilers.js';
import { scimApp } from './scim/scim-app.js';
import viewerRoutes from './viewer/viewer-routes.js';

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Shared with the worker (job outcomes) and main.ts's stop (draining); made here when absent. */
  metrics?: PlatformMetrics;
  lifecycle?: Lifecycle;
  /**
   * false: without the per-request hooks of request ids, metrics and draining, and with a plain
   * random request id: what bench/operations-overhead.ts measures them against. Never in service.
   */
  operationsHooks?: boolean;
}

function organizationLimits(platform: Platform): LimitsSource {
  return async (orgId) => {
    const org = await platform.directory.findOrganization(orgId);
    return org && { bucket: org.rate_limit_bucket, refillPerSecond: org.rate_limit_refill_per_second };
  };
}

/** The HTTP surface of the process's roles (docs/design/processes.md#roles) on one Fastify instance. */
export async function buildApp(platform: Platform, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = platform;
  const compilers = schemaCompilers();
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.jsonBodyLimitBytes,
    // X-Request-Id, when safe, names the request in the logs; every answer carries it (request-id.ts).
    genReqId: options.operationsHooks === false ? () => randomUUID() : requestIdOf,
    requestIdHeader: false,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // A hop count works at run time (lib/request.js) though the option's declared type omits numbers.
    trustProxy: config.trustProxy as boolean | string,
    frameworkErrors,
    clientErrorHandler,
    // A stop serves the requests that reach it (src/http/draining.ts), each answer closing its connection.
    return503OnClosing: false,
    schemaController: { compilersFactory: compilers.factory },
  });
  compilers.register(app);
  const operationsHooks = options.operationsHooks !== false;
  if (operationsHooks) registerRequestId(app);
  await registerCors(app, config.corsOrigins);
  registerErrorHandling(app);
  registerJsonBodyParser(app);
  // No route takes plain text: refused with 415 like any other media type, not parsed for a JSON route.
  app.removeContentTypeParser('text/plain');
  const metrics = options.metrics ?? new PlatformMetrics(platform);
  const lifecycle = options.lifecycle ?? new Lifecycle();
  if (operationsHooks) registerOperationsHooks(app, metrics, lifecycle);

  const { roles } = config;
  // Request buckets and sign-in throttles: what the serving roles share (through Redis when configured).
  const limiterStore =
    roles.has('auth') || roles.has('api')
      ? await platform.openLimiterStore((error) => app.log.warn({ err: error }, 'rate-limit store unavailable'))
      : undefined;
  if (limiterStore) app.addHook('onClose', () => limiterStore.close());
  // Every role, the worker alone included: health, readiness and metrics.
  const checks = readinessChecks(platform, { limiterStore, jobs: storesFor(config).jobs });
  await app.register(operationsRoutes, { lifecycle, metrics, checks, metricsToken: config.metricsToken });
  if (limiterStore) {
    const keys = roles.has('auth') ? await SigningKeys.load(platform.tokens, platform.clock) : undefined;
    const verifier = await tokenVerifier(platform, keys);
    if (keys) await registerAuthRole(app, platform, { keys, verifier, limiterStore });
    if (roles.has('api')) await registerApiRole(app, platform, { verifier, limiterStore, metrics });
    // What a browser opening the platform's address sees (docs/api-reference.md).
    await app.register(landingRoutes, { config });
  }
  return app;
}

/**
 * How this process verifies access tokens: with the key set of RDP_AUTH_JWKS_URL when set;
 * otherwise with the public keys the authorization server keeps in the global store (its own,
 * with the auth role). An api process reads that store anyway (organizations, users,
 * revocations on every request), so without the variable it needs no second dependency, and no
 * private key: it never loads SigningKeys. The start message says which (describeKeySource).
 */
async function tokenVerifier(platform: Platform, keys: SigningKeys | undefined): Promise<AccessTokenVerifier> {
  const { config, clock, directory, tokens, principalChanges } = platform;
  return AccessTokenVerifier.open({
    authJwksUrl: config.authJwksUrl,
    keys: keys ? keys.jwks() : await publishedKeys(tokens),
    issuer: issuerOf(config.publicUrl),
    directory,
    tokens,
    clock,
    principalChanges,
  });
}

/** Where a process's regional APIs get the key set they verify tokens with, for the start message. */
export function describeKeySource(config: Config): string {
  if (!config.roles.has('api')) return 'none needed';
  if (config.authJwksUrl) return `${config.authJwksUrl} (RDP_AUTH_JWKS_URL)`;
  if (config.roles.has('auth')) return "this process's authorization server";
  return 'the public keys in the global store (RDP_AUTH_JWKS_URL unset)';
}

interface RoleShared {
  verifier: AccessTokenVerifier;
  limiterStore: LimiterStore;
}

/** The authorization server: /auth, its RFC 8414 metadata under /.well-known, and SCIM. */
async function registerAuthRole(app: FastifyInstance, platform: Platform, shared: RoleShared & { keys: SigningKeys }) {
  const { config, clock } = platform;
  const { keys, verifier } = shared;
  const loginThrottle = new LoginThrottle(shared.limiterStore, config.loginThrottle);
  const tokenIssuer = new AccessTokenIssuer(keys, issuerOf(config.publicUrl), config.accessTokenTtlSeconds, clock);
  const tokenEndpoint = new TokenEndpoint({
    clock,
    tokens: platform.tokens,
    principals: platform.directory,
    refreshTokenKey: platform.secrets.refreshTokens,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
    refreshReuseGraceSeconds: config.refreshReuseGraceSeconds,
    directory: platform.recentDirectory,
    issuer: tokenIssuer,
    throttle: loginThrottle,
  });
  const sessions = new Sessions(platform.sessions, {
    ttlSeconds: config.sessionTtlSeconds,
    secure: config.publicUrl.startsWith('https:'),
    clock,
  });
  const signIns = new SignInGate(platform.directory, loginThrottle);
  await app.register(authApp, { prefix: '/auth', platform, verifier, keys, tokenEndpoint, sessions, signIns });
  await app.register(wellKnownApp, { platform });
  // SCIM provisioning belongs with the authorization server: it changes users in the global store.
  await app.register(scimApp, {
    prefix: '/scim/v2',
    services: scimServices(platform),
    jsonBodyLimitBytes: config.jsonBodyLimitBytes,
  });
  // The two OpenAPI documents and their reference pages, outside the token checks of each.
  const { pathname } = new URL(config.publicUrl);
  const base = pathname.replace(/\/$/, '');
  await app.register(referenceRoutes, {
    prefix: '/auth',
    title: 'Authorization server',
    publicPath: `${base}/auth`,
    document: () => authOpenApiDocument(config.publicUrl),
  });
  await app.register(referenceRoutes, {
    prefix: '/scim/v2',
    title: 'SCIM 2.0',
    publicPath: `${base}/scim/v2`,
    document: () => scimOpenApiDocument(config.publicUrl),
  });
}

/** The regional resource APIs of the regions this process opened, and the embedded blob endpoint. */
async function registerApiRole(app: FastifyInstance, platform: Platform, shared: RoleShared & { metrics: PlatformMetrics }) {
  const { config } = platform;
  const rateLimiter = config.rateLimit.disabled
    ? undefined
    : new OrganizationRateLimiter(shared.limiterStore.buckets, organizationLimits(platform), config.rateLimit);
  // Only the regions of RDP_REGIONS (opened for every role); another region's prefix has no route: 404.
  for (const region of config.regions) {
    const prefix = `/${region}/reality`;
    await app.register(regionApp, { prefix, platform, region, verifier: shared.verifier, rateLimiter, metrics: shared.metrics });
  }
  // The viewer's pages and built files, outside the regions' prefixes (docs/embedding.md).
  await app.register(viewerRoutes, { platform });
  // The web console, beside the viewer it frames (docs/console.md).
  await app.register(consoleRoutes, { platform });
  // The embedded blob endpoint serves the filesystem store's signed upload and download addresses,
  // which the regional APIs hand out (one machine only); S3 serves its own.
  if (platform.blobEndpoint) {
    await app.register(blobRoutes, { prefix: '/blob', store: platform.blobEndpoint });
  }
}
