import { randomUUID } from 'node:crypto';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { TokenRepository } from '../adapters/db/repositories/token-repository.js';
import type { OAuthApplicationRow } from '../adapters/db/schema.js';
import type { Clock } from '../ports/clock.js';
import type { LoginThrottle, ThrottleKey } from '../services/login-throttle.js';
import type { AccessTokenIssuer, IssueRequest } from './access-tokens.js';
import { authenticateClient, readClientCredentials } from './client-authentication.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import { refreshTokenGrant } from './grants/refresh-token.js';
import { OAuthError } from './oauth-error.js';
import type { ClientDirectory } from './recent-directory.js';
import { sealRefreshToken } from './refresh-tokens.js';

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  scopes: string[];
  accessExpiresIn: number;
  refreshExpiresIn: number;
}

/** What the grants read and write, and the refresh tokens' settings: the same for every request. */
export interface GrantStores {
  clock: Clock;
  /** Codes, refresh-token uses and revoked grants. */
  tokens: Pick<
    TokenRepository,
    | 'findAuthorizationCode'
    | 'consumeAuthorizationCode'
    | 'familyRevoked'
    | 'findRefreshTokenUse'
    | 'recordRefreshTokenUse'
    | 'revokeFamily'
  >;
  /** Whether the principal is still active in the organization, read fresh from the store. */
  principals: Pick<DirectoryRepository, 'isActiveIn' | 'principalStatus'>;
  /** Seals and opens refresh tokens (refresh-tokens.ts). */
  refreshTokenKey: Buffer;
  refreshTokenTtlSeconds: number;
  /** How long a used refresh token presented again counts as a retry (RDP_REFRESH_REUSE_GRACE_SECONDS). */
  refreshReuseGraceSeconds: number;
}

export interface GrantContext extends GrantStores {
  application: OAuthApplicationRow;
  /** Applications and users at most a second old (recent-directory.ts): for the checks of every request. */
  directory: ClientDirectory;
  form: Record<string, string | undefined>;
  /** Issues an access token and a refresh token of the family (a new family when none is given). */
  issueTokens(request: IssueRequest, familyId?: string): Promise<TokenSet>;
}

type Grant = (context: GrantContext) => Promise<TokenSet>;

/** RFC 6749 section 3.2: parameters must not be included more than once; none may hold a NUL (the store cannot). */
function singleValued(body: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const form: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `The parameter ${name} is included more than once`);
    if (value?.includes('\u0000')) throw new OAuthError('invalid_request', `The parameter ${name} contains a NUL character`);
    form[name] = value;
  }
  return form;
}

/** Each grant is a module of its own. */
const GRANTS: Record<string, Grant> = {
  client_credentials: clientCredentialsGrant,
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
};

/**
 * POST {auth_url}/oauth/token: authenticate the client, then run the grant. The response
 * carries the spec's fields (expires_in describes the refresh token) and the camelCase names of
 * the other sample (expiresIn: the access token's lifetime).
 */
export interface TokenEndpointOptions extends GrantStores {
  /** Applications and users at most a second old (recent-directory.ts). */
  directory: ClientDirectory;
  issuer: AccessTokenIssuer;
  throttle: LoginThrottle;
}

export class TokenEndpoint {
  private readonly grants: GrantStores;
  private readonly directory: ClientDirectory;
  private readonly issuer: AccessTokenIssuer;
  private readonly throttle: LoginThrottle;

  constructor(options: TokenEndpointOptions) {
    const { directory, issuer, throttle, ...grants } = options;
    this.grants = grants;
    this.directory = directory;
    this.issuer = issuer;
    this.throttle = throttle;
  }

  /**
   * The form as the body parser gave it: a repeated field arrives as an array. Failed client
   * authentications count against the client id and the caller's address (LoginThrottle): past
   * the limit the endpoint answers 429 rate_limited, even to the right secret, until it lapses.
   */
  async handle(authorization: string | undefined, body: Record<string, string | string[] | undefined>, clientAddress: string) {
    const form = singleValued(body);
    const address: ThrottleKey = { kind: 'address', key: clientAddress };
    const credentials = await this.counted([address], async () => readClientCredentials(authorization, form));
    const keys: ThrottleKey[] = credentials ? [address, { kind: 'client', key: credentials.clientId }] : [address];
    const verdict = await this.throttle.check(keys);
    if (verdict.blocked) {
      throw new OAuthError('rate_limited', 'Too many failed client authentications; retry later', 429, verdict.retryAfterSeconds);
    }
    const grantType = form.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    const grant = GRANTS[grantType];
    if (!grant) throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    const application = await this.counted(keys, () => authenticateClient(this.directory, credentials));
    if (verdict.failures) await this.throttle.succeed(keys);
    const tokens = await grant({
      ...this.grants,
      application,
      directory: this.directory,
      form,
      issueTokens: (request, familyId) => this.issueTokens(request, familyId),
    });
    return {
      hasError: false,
      access_token: tokens.accessToken,
      token_type: 'bearer',
      expires_in: tokens.refreshExpiresIn,
      refresh_token: tokens.refreshToken,
      scope: tokens.scopes.join(' '),
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresIn: tokens.accessExpiresIn,
    };
  }

  /** Runs a client authentication step; an invalid_client from it counts as a failure against the keys. */
  private async counted<T>(keys: ThrottleKey[], step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof OAuthError && error.error === 'invalid_client') await this.throttle.fail(keys);
      throw error;
    }
  }

  /** Signs the access token and seals the refresh token: nothing is written (refresh-tokens.ts). */
  private async issueTokens(request: IssueRequest, familyId: string = randomUUID()): Promise<TokenSet> {
    const { clock, refreshTokenKey, refreshTokenTtlSeconds } = this.grants;
    const access = await this.issuer.issue(request, familyId);
    const issuedAtMs = clock.now().getTime();
    const refreshToken = sealRefreshToken(refreshTokenKey, {
      familyId,
      clientId: request.clientId,
      userId: request.userId,
      orgId: request.orgId,
      scopes: request.scopes,
      identityProvider: request.identityProvider ?? 'local',
      issuedAtMs,
      expiresAtMs: issuedAtMs + refreshTokenTtlSeconds * 1000,
    });
    return {
      accessToken: access.token,
      refreshToken,
      scopes: request.scopes,
      accessExpiresIn: access.expiresAt - access.issuedAt,
      refreshExpiresIn: refreshTokenTtlSeconds,
    };
  }
}
