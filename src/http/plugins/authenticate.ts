import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { Principal } from '../../domain/access/principal.js';
import type { Scope } from '../../domain/access/scopes.js';
import { embedReachOf, isEmbedToken } from '../../domain/embed/embed-sessions.js';
import { ApiError } from '../../domain/errors.js';
import type { Region } from '../../domain/regions.js';
import type { AccessTokenVerifier } from '../../oauth/access-tokens.js';
import type { EmbedTokenVerifier } from '../../oauth/embed-tokens.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The one scope the operation requires; it is also the operation's OpenAPI security requirement. */
    scope?: Scope;
    /** 'tiles': the route spends the organization's tile budget, not its API one (plugins/rate-limit.ts). */
    rateBudget?: 'tiles';
    /**
     * false: an embed token is refused here although the route's method and path would let it in
     * (a GET under /v1/twin/{ctx} that makes something, as the iframe address does).
     */
    embedToken?: false;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

export const SECURITY_SCHEME = 'oauth2';

/** The regional API being served, and where each region is published (config.regionUrls). */
export interface RegionOfApi {
  region: Region;
  regionUrls: Record<Region, string>;
}

/**
 * Layer 1 of the access layers, on every route that declares a scope: a verified bearer token
 * carrying that scope. Layers 2 and 3 run in the query that loads the node (services).
 * A token of an organization of another region is refused first
 * (docs/design/errors.md#another-region), from the region the verifier keeps with the verified
 * token: no store read per request. An embed token (`rdpe_...`, docs/embedding.md) goes to `embed`
 * with the route's reach instead: every route refuses it but the reads of its target and its
 * layers' tiles.
 */
export function registerAuthentication(
  app: FastifyInstance,
  verifier: AccessTokenVerifier,
  served: RegionOfApi,
  embed?: EmbedTokenVerifier,
): void {
  app.decorateRequest('principal', undefined as unknown as Principal);

  // A hook on each route that declares a scope, knowing it: routes without one pay nothing, and
  // no request reads request.routeOptions, which builds an object on every call.
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    if (!scope) return;
    route.schema = { ...route.schema, security: [{ [SECURITY_SCHEME]: [scope] }] };
    const method = Array.isArray(route.method) ? route.method.join() : route.method;
    const reach = route.config?.embedToken === false ? undefined : embedReachOf(method, route.url);
    const authenticate: onRequestAsyncHookHandler = async (request) => {
      const embedToken = embed && embedBearer(request.headers.authorization);
      const principal = embedToken
        ? await embed.authenticate(embedToken, { reach, params: request.params })
        : await verifier.authenticate(request.headers.authorization);
      if (principal.orgRegion !== served.region) {
        throw new ApiError(
          'OrganizationInAnotherRegion',
          `The token's organization lives in region ${principal.orgRegion}, not ${served.region}: call its apiUrl`,
          { apiUrl: served.regionUrls[principal.orgRegion] },
        );
      }
      if (!principal.scopes.has(scope)) throw new ApiError('InsufficientScopes');
      request.principal = principal;
    };
    route.onRequest = withRouteHook(route.onRequest, authenticate);
  });
}

/** The embed token of an Authorization header, when it carries one. */
function embedBearer(authorization: string | undefined): string | undefined {
  const token = authorization && /^Bearer (\S+)$/i.exec(authorization)?.[1];
  return token && isEmbedToken(token) ? token : undefined;
}

/**
 * A route's own hooks with one more after them, as a new array (the HEAD route Fastify derives
 * from a GET starts from the GET's options as declared, so they are never changed in place).
 * Route hooks run after every hook added with addHook, in the order they were added here.
 */
export function withRouteHook<Hook>(existing: Hook | Hook[] | undefined, hook: Hook): Hook[] {
  return existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook];
}
