import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { applicationService, invitationAcceptance } from '../composition/platform-services.js';
import { SCOPES } from '../domain/access/scopes.js';
import { ApiError } from '../domain/errors.js';
import type { Region } from '../domain/regions.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import { AuthorizationEndpoint } from '../oauth/authorization-endpoint.js';
import { consentRoutes } from '../oauth/interaction/consent-routes.js';
import { invitationRoutes } from '../oauth/interaction/invitation-routes.js';
import type { Sessions } from '../oauth/interaction/sessions.js';
import { settingsRoutes } from '../oauth/interaction/settings-routes.js';
import type { SigningKeys } from '../oauth/signing-keys.js';
import type { TokenEndpoint } from '../oauth/token-endpoint.js';
import type { Platform } from '../platform.js';
import type { SignInGate } from '../services/sign-in.js';

export interface AuthAppOptions {
  platform: Platform;
  verifier: AccessTokenVerifier;
  keys: SigningKeys;
  tokenEndpoint: TokenEndpoint;
  /** Browser sessions of the consent and settings pages. */
  sessions: Sessions;
  /** Their sign-in forms, behind the brute-force throttle. */
  signIns: SignInGate;
}

/** RFC 8414 metadata of the authorization server whose issuer is {publicUrl}/auth. */
export function authorizationServerMetadata(publicUrl: string) {
  const issuer = `${publicUrl}/auth`;
  return {
    issuer,
    token_endpoint: `${issuer}/oauth/token`,
    jwks_uri: `${issuer}/oauth/jwks`,
    authorization_endpoint: `${issuer}/consent`,
    scopes_supported: Object.keys(SCOPES),
    response_types_supported: ['code'],
    grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
    // 'none': a public client (an application without a secret) names itself with client_id.
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    // RFC 9207: the redirect carries iss, so a client talking to several servers can tell them apart.
    authorization_response_iss_parameter_supported: true,
  };
}

/** The authorization server, mounted at /auth: token endpoint, discovery and the key set. */
export async function authApp(app: FastifyInstance, options: AuthAppOptions) {
  const { platform, verifier, keys, tokenEndpoint, sessions, signIns } = options;
  const { clock, directory } = platform;
  const { publicUrl } = platform.config;
  await app.register(formbody);
  await app.register(cookie);
  const endpoint = new AuthorizationEndpoint({ clock, applications: directory, codes: platform.tokens, publicUrl });
  await app.register(consentRoutes, { endpoint, directory, publicUrl, sessions, signIns });

  app.post('/oauth/token', { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string | string[] | undefined>;
    if (typeof form !== 'object' || !request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      throw new ApiError('UnsupportedMediaType', 'The token endpoint takes application/x-www-form-urlencoded');
    }
    const response = await tokenEndpoint.handle(request.headers.authorization, form, request.ip);
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
  });

  app.get('/oauth/api-info', async (request) => {
    const principal = await verifier.authenticate(request.headers.authorization);
    const [user, org] = await Promise.all([directory.findUser(principal.userId), directory.findOrganization(principal.orgId)]);
    if (!user || !org) throw new ApiError('invalid_token', 'The token names an unknown principal');
    return {
      user: { id: user.id, firstName: user.first_name, lastName: user.last_name, email: user.email },
      organization: { id: org.id, name: org.name },
      scopes: [...principal.scopes],
      issuedAt: new Date(principal.issuedAt * 1000).toISOString(),
      expiresAt: new Date(principal.expiresAt * 1000).toISOString(),
      apiUrl: platform.config.regionUrls[org.region as Region],
    };
  });

  const applications = applicationService(platform);
  await app.register(settingsRoutes, { applications, directory, publicUrl, sessions, signIns });
  const acceptance = invitationAcceptance(platform);
  await app.register(invitationRoutes, { acceptance, mailer: platform.mailer, publicUrl, sessions, signIns });

  app.get('/oauth/jwks', async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').type('application/jwk-set+json').send(keys.jwks()),
  );
}

/** Routes outside /auth that discovery needs: RFC 8414 places the metadata of a path issuer here. */
export async function wellKnownApp(app: FastifyInstance, options: { platform: Platform }) {
  const metadata = authorizationServerMetadata(options.platform.config.publicUrl);
  app.get('/.well-known/oauth-authorization-server/auth', async () => metadata);
}
