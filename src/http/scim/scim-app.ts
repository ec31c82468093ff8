import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ScimServices } from '../../composition/platform-services.js';
import { ApiError } from '../../domain/errors.js';
import { ScimError } from '../../domain/scim/scim-error.js';
import type { ScimContext } from '../../services/scim/scim-context.js';
import discoveryRoutes from './discovery-routes.js';
import groupRoutes from './group-routes.js';
import { SCIM_MEDIA_TYPE, sendScimError, toScimError } from './scim-errors.js';
import userRoutes from './user-routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The identity provider calling /scim/v2, known by its SCIM token. */
    scim: ScimContext;
  }
}

/**
 * Bodies up to 1 MiB (or the platform's JSON limit when larger): a provider's PUT of a group
 * lists all its members, up to MAX_MEMBERS_PER_REQUEST of them.
 */
const SCIM_BODY_LIMIT_BYTES = 1024 * 1024;

export type ScimApp = FastifyInstance & { scimServices: ScimServices };

/**
 * SCIM 2.0 (RFC 7644) for organizations' identity providers, mounted at {publicUrl}/scim/v2
 * with the authorization server. Every request carries a SCIM token (Authorization: Bearer),
 * which names the organization; every answer, errors included, is application/scim+json.
 */
export async function scimApp(instance: FastifyInstance, options: { services: ScimServices; jsonBodyLimitBytes: number }) {
  const app = instance as ScimApp;
  const { authenticator } = options.services;
  app.decorate('scimServices', options.services);
  app.decorateRequest('scim', undefined as unknown as ScimContext);
  const bodyLimit = Math.max(options.jsonBodyLimitBytes, SCIM_BODY_LIMIT_BYTES);
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= bodyLimit;
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.type(SCIM_MEDIA_TYPE);
    request.scim = await authenticator.authenticate(request.headers.authorization);
    // The SCIM media type is JSON: the platform's one JSON parser (NUL and prototype rules) reads
    // it. Other media types (text/plain, forms) are refused rather than parsed.
    const contentType = request.headers['content-type'];
    if (contentType === undefined) return;
    const media = /^application\/(scim\+)?json\s*(;|$)/i.exec(contentType);
    if (!media) throw new ScimError(415, 'Send application/scim+json or application/json');
    if (media[1]) request.headers['content-type'] = contentType.replace(/^application\/scim\+json/i, 'application/json');
  });

  app.setErrorHandler((error: FastifyError | ApiError | ScimError, request, reply) => {
    if (error instanceof ApiError && error.retryAfterSeconds !== undefined) {
      request.log.warn({ err: error.cause ?? error }, 'SCIM request refused for now');
      reply.header('retry-after', error.retryAfterSeconds);
    }
    const scimError = toScimError(error);
    if (scimError.status >= 500) request.log.error({ err: error }, 'SCIM request failed');
    return sendScimError(reply, scimError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendScimError(reply, new ScimError(404, `No SCIM endpoint for ${request.method} ${request.url.split('?')[0]}`)),
  );

  await discoveryRoutes(app);
  await userRoutes(app);
  await groupRoutes(app);
}

/** One query parameter as text (the first, when a client repeats it). */
export function queryValue(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}
