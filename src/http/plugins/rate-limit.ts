import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { BucketState, OrganizationRateLimiter } from '../../services/organization-rate-limiter.js';

function setHeaders(reply: FastifyReply, bucket: BucketState): void {
  reply.header('ratelimit-limit', bucket.limit);
  reply.header('ratelimit-remaining', bucket.remaining);
  reply.header('ratelimit-reset', bucket.resetSeconds);
}

/**
 * The organization's request bucket on every route that declares a scope. Registered after
 * registerAuthentication, so it runs once the token is verified and carries the scope: requests
 * refused with 401 or 403 there never reach a bucket. Every answer carries the RateLimit headers;
 * an exhausted bucket answers 429 rate_limited with Retry-After.
 */
export function registerRateLimit(app: FastifyInstance, limiter: OrganizationRateLimiter): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.scope) return;
    const bucket = await limiter.take(request.principal.orgId);
    setHeaders(reply, bucket);
    if (!bucket.allowed) {
      reply.header('retry-after', bucket.retryAfterSeconds);
      throw new ApiError('rate_limited');
    }
  });
}
