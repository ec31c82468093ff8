import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyInstance, type FastifySchemaCompiler, type FastifyServerOptions } from 'fastify';
import { FilesystemBlobStore } from '../adapters/blobs/filesystem-blob-store.js';
import { SessionRepository } from '../adapters/db/repositories/session-repository.js';
import { openLimiterStore } from '../adapters/limits/limiter-store.js';
import { REGIONS } from '../domain/regions.js';
import { AccessTokenIssuer, AccessTokenVerifier, issuerOf } from '../oauth/access-tokens.js';
import { Sessions } from '../oauth/interaction/sessions.js';
import { LoginThrottle } from '../oauth/login-throttle.js';
import { SigningKeys } from '../oauth/signing-keys.js';
import { TokenEndpoint } from '../oauth/token-endpoint.js';
import type { Platform } from '../platform.js';
import { type LimitsSource, OrganizationRateLimiter } from '../services/organization-rate-limiter.js';
import { SignInGate } from '../services/sign-in.js';
import { authApp, wellKnownApp } from './auth-app.js';
import blobRoutes from './blob-routes.js';
import { frameworkErrors, registerErrorHandling } from './plugins/errors.js';
import { registerJsonBodyParser } from './plugins/json-body.js';
import { regionApp } from './region-app.js';
import { scimApp } from './scim/scim-app.js';

/**
 * Bodies are validated strictly: no coercion, unknown properties refused (no mass assignment).
 * Query strings and path parameters are text, so they are coerced to the declared types.
 * Installed as the schema controller's builder, not with setValidatorCompiler: Fastify drops a
 * root setValidatorCompiler in every child context that calls addSchema (the regional APIs do),
 * which silently brought back its default Ajv that strips unknown properties and coerces bodies.
 * The builder also receives those shared schemas, so $ref to them resolves.
 *
 * Fastify calls the builder once per context and the compiler once per route and part. One pair
 * of Ajv instances serves them all, and a compiled validator is kept by its schema's text: the
 * four regions declare the same routes, and compiling each afresh made start-up take seconds.
 * Shared schemas are known by $id, which names one schema across the app.
 */
function validatorFactory() {
  const strict = { allErrors: false, strict: false, removeAdditional: false, useDefaults: true } as const;
  const bodies = addFormats.default(new Ajv.default({ ...strict, coerceTypes: false }));
  const parameters = addFormats.default(new Ajv.default({ ...strict, coerceTypes: 'array' }));
  const known = new Set<string>();
  const compiled = new Map<string, ReturnType<typeof bodies.compile>>();
  return (externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<object> => {
    for (const schema of Object.values(externalSchemas) as { $id?: string }[]) {
      if (schema.$id !== undefined && known.has(schema.$id)) continue;
      bodies.addSchema(schema);
      parameters.addSchema(schema);
      if (schema.$id !== undefined) known.add(schema.$id);
    }
    return ({ schema, httpPart }) => {
      const ajv = httpPart === 'body' ? bodies : parameters;
      const key = `${ajv === bodies ? 'b' : 'p'}${JSON.stringify(schema)}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(schema);
        compiled.set(key, validate);
      }
      return validate;
    };
  };
}

type ValidatorFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator'];

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
}

function organizationLimits(platform: Platform): LimitsSource {
  return async (orgId) => {
    const org = await platform.directory.findOrganization(orgId);
    return org && { bucket: org.rate_limit_bucket, refillPerSecond: org.rate_limit_refill_per_second };
  };
}

/** The whole platform's HTTP surface on one Fastify instance: /auth and one mount per region. */
export async function buildApp(platform: Platform, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config, clock } = platform;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.jsonBodyLimitBytes,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // A hop count works at run time (lib/request.js) though the option's declared type omits numbers.
    trustProxy: config.trustProxy as boolean | string,
    frameworkErrors,
    // The factory's declared type is @fastify/ajv-compiler's; ours has the same call shape.
    schemaController: { compilersFactory: { buildValidator: validatorFactory() as unknown as ValidatorFactory } },
  });
  registerErrorHandling(app);
  registerJsonBodyParser(app);

  const issuer = issuerOf(config.publicUrl);
  const keys = await SigningKeys.load(platform.tokens, clock);
  const verifier = AccessTokenVerifier.forPlatform(platform, keys, issuer);
  const limiterStore = await openLimiterStore(config, (error) => app.log.warn({ err: error }, 'rate-limit store unavailable'));
  app.addHook('onClose', () => limiterStore.close());
  const loginThrottle = new LoginThrottle(limiterStore, config.loginThrottle);
  const rateLimiter = config.rateLimit.disabled
    ? undefined
    : new OrganizationRateLimiter(limiterStore, organizationLimits(platform), config.rateLimit);
  const tokenIssuer = new AccessTokenIssuer(keys, issuer, config.accessTokenTtlSeconds, clock);
  const tokenEndpoint = new TokenEndpoint(platform, tokenIssuer, loginThrottle);

  const sessions = new Sessions(new SessionRepository(platform.stores.global.db), {
    ttlSeconds: config.sessionTtlSeconds,
    secure: config.publicUrl.startsWith('https:'),
    clock,
  });
  const signIns = new SignInGate(platform.directory, loginThrottle);
  await app.register(authApp, { prefix: '/auth', platform, verifier, keys, tokenEndpoint, sessions, signIns });
  await app.register(wellKnownApp, { platform });
  // SCIM provisioning belongs with the authorization server: it changes users in the global store.
  await app.register(scimApp, { prefix: '/scim/v2', platform });
  for (const region of REGIONS) {
    const prefix = `/${region}/reality`;
    await app.register(regionApp, { prefix, platform, region, verifier, rateLimiter });
  }
  // The embedded blob endpoint serves the filesystem store's signed addresses; S3 serves its own.
  if (platform.blobs instanceof FilesystemBlobStore) {
    await app.register(blobRoutes, { prefix: '/blob', store: platform.blobs });
  }
  app.get('/health', async () => ({ status: 'ok' }));
  return app;
}
