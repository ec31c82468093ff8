import type { FastifyInstance } from 'fastify';
import type { Scope } from '../../domain/access/scopes.js';
import { ApiError } from '../../domain/errors.js';
import type { AccessTokenVerifier, Principal } from '../../oauth/access-tokens.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The one scope the operation requires; it is also the operation's OpenAPI security requirement. */
    scope?: Scope;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

export const SECURITY_SCHEME = 'oauth2';

/**
 * Layer 1 of the access layers, on every route that declares a scope: a verified bearer token
 * carrying that scope. Layers 2 and 3 run in the query that loads the node (services).
 */
export function registerAuthentication(app: FastifyInstance, verifier: AccessTokenVerifier): void {
  app.decorateRequest('principal', undefined as unknown as Principal);

  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    if (scope) route.schema = { ...route.schema, security: [{ [SECURITY_SCHEME]: [scope] }] };
  });

  app.addHook('onRequest', async (request) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const principal = await verifier.authenticate(request.headers.authorization);
    if (!principal.scopes.has(scope)) throw new ApiError('InsufficientScopes');
    request.principal = principal;
  });
}
