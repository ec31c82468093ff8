import { randomUUID } from 'node:crypto';
import type { OAuthApplicationRow } from '../adapters/db/schema.js';
import type { Platform } from '../platform.js';
import type { AccessTokenIssuer, IssueRequest } from './access-tokens.js';
import { authenticateClient, readClientCredentials } from './client-authentication.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import { OAuthError } from './oauth-error.js';
import { type ClientDirectory, RecentDirectory } from './recent-directory.js';
import { hashToken, randomToken } from './secrets.js';

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  scopes: string[];
  accessExpiresIn: number;
  refreshExpiresIn: number;
}

export interface GrantContext {
  platform: Platform;
  application: OAuthApplicationRow;
  /** Applications and users at most a second old (recent-directory.ts): for the checks of every request. */
  directory: ClientDirectory;
  form: Record<string, string | undefined>;
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

/** Each grant is a module of its own; the browser grants join this table in their issue. */
const GRANTS: Record<string, Grant> = {
  client_credentials: clientCredentialsGrant,
};

/**
 * POST {auth_url}/oauth/token: authenticate the client, then run the grant. The response
 * carries the spec's fields (expires_in describes the refresh token) and the camelCase names of
 * the other sample (expiresIn: the access token's lifetime).
 */
export class TokenEndpoint {
  private readonly directory: ClientDirectory;

  constructor(
    private readonly platform: Platform,
    private readonly issuer: AccessTokenIssuer,
  ) {
    this.directory = new RecentDirectory(platform.directory);
  }

  /** The form as the body parser gave it: a repeated field arrives as an array. */
  async handle(authorization: string | undefined, body: Record<string, string | string[] | undefined>) {
    const form = singleValued(body);
    const credentials = readClientCredentials(authorization, form);
    const grantType = form.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    const grant = GRANTS[grantType];
    if (!grant) throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    const application = await authenticateClient(this.directory, credentials);
    const tokens = await grant({
      platform: this.platform,
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

  private async issueTokens(request: IssueRequest, familyId: string = randomUUID()): Promise<TokenSet> {
    const { config, clock, tokens } = this.platform;
    const access = await this.issuer.issue(request);
    const refreshToken = randomToken();
    const now = clock.now();
    await tokens.insertRefreshToken({
      id: randomUUID(),
      token_hash: hashToken(refreshToken),
      family_id: familyId,
      client_id: request.clientId,
      user_id: request.userId,
      org_id: request.orgId,
      scopes: request.scopes.join(' '),
      expires_at: new Date(now.getTime() + config.refreshTokenTtlSeconds * 1000).toISOString(),
      created_at: now.toISOString(),
      used_at: null,
      revoked_at: null,
    });
    return {
      accessToken: access.token,
      refreshToken,
      scopes: request.scopes,
      accessExpiresIn: access.expiresAt - access.issuedAt,
      refreshExpiresIn: config.refreshTokenTtlSeconds,
    };
  }
}
