import type { FastifyInstance, FastifyReply, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { BucketState, OrganizationRateLimiter, RateBudget } from '../../services/organization-rate-limiter.js';
import { withRouteHook } from './authenticate.js';

function setHeaders(reply: FastifyReply, bucket: BucketState): void {
  reply.header('ratelimit-limit', bucket.limit);
  reply.header('ratelimit-remaining', bucket.remaining);
  reply.header('ratelimit-reset', bucket.resetSeconds);
}

/**
 * The organization's request bucket on every route that declares a scope; its tile bucket instead
 * on the routes that read tiles (config rateBudget 'tiles', docs/operations.md#rate-limits). Registered after
 * registerAuthentication, so it runs once the token is verified and carries the scope: requests
 * refused with 401 or 403 there never reach a bucket. Every answer carries the RateLimit headers;
 * an exhausted bucket answers 429 rate_limited with Retry-After (and tells `onRefused`, the metrics).
 */
export function registerRateLimit(app: FastifyInstance, limiter: OrganizationRateLimiter, onRefused?: () => void): void {
  const takeFrom =
    (budget: RateBudget): onRequestAsyncHookHandler =>
    async (request, reply) => {
      const bucket = await limiter.take(request.principal.orgId, budget);
      setHeaders(reply, bucket);
      if (!bucket.allowed) {
        reply.header('retry-after', bucket.retryAfterSeconds);
        onRefused?.();
        throw new ApiError(budget === 'tiles' ? 'tiles_rate_limited' : 'rate_limited');
      }
    };
  const fromApi = takeFrom('api');
  const fromTiles = takeFrom('tiles');
  // On each route that declares a scope, after its authentication hook (added by an earlier onRoute).
  app.addHook('onRoute', (route) => {
    if (!route.config?.scope) return;
    route.onRequest = withRouteHook(route.onRequest, route.config.rateBudget === 'tiles' ? fromTiles : fromApi);
  });
}
