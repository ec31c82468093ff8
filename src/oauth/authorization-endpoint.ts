import { randomUUID } from 'node:crypto';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { TokenRepository } from '../adapters/db/repositories/token-repository.js';
import { hashToken, randomToken } from '../crypto/secrets.js';
import { parseScopeString, type Scope } from '../domain/access/scopes.js';
import {
  type AuthorizationCheck,
  type AuthorizationRequest,
  checkAuthorizationRequest,
} from '../domain/oauth/authorization-request.js';
import { registeredRedirectUris } from '../domain/oauth/console-client.js';
import { issuerOf } from '../domain/oauth/issuer.js';
import type { Clock } from '../ports/clock.js';

/** RFC 6749 section 4.1.2: a code lives briefly; the spec says 60 seconds. */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

export type LoadedAuthorizationRequest = AuthorizationCheck & { applicationName?: string };

export interface AuthorizationEndpointOptions {
  clock: Clock;
  /** The application a request names. */
  applications: Pick<DirectoryRepository, 'findApplication'>;
  /** Where an issued code is stored until the token endpoint takes it. */
  codes: Pick<TokenRepository, 'insertAuthorizationCode'>;
  publicUrl: string;
}

/**
 * The protocol side of the consent page: validates an authorization request and answers it
 * with a redirect. The pages (src/oauth/interaction/) only render and read forms.
 */
export class AuthorizationEndpoint {
  private readonly clock: Clock;
  private readonly applications: Pick<DirectoryRepository, 'findApplication'>;
  private readonly codes: Pick<TokenRepository, 'insertAuthorizationCode'>;
  private readonly publicUrl: string;
  private readonly issuer: string;

  constructor(options: AuthorizationEndpointOptions) {
    this.clock = options.clock;
    this.applications = options.applications;
    this.codes = options.codes;
    this.publicUrl = options.publicUrl;
    this.issuer = issuerOf(options.publicUrl);
  }

  /** Runs the checks of docs/oauth-browser-flows.md against the application the request names. */
  async load(query: URLSearchParams): Promise<LoadedAuthorizationRequest> {
    const clientId = query.get('client_id');
    const application = clientId ? await this.applications.findApplication(clientId) : undefined;
    const check = checkAuthorizationRequest(
      query,
      application && {
        clientId: application.client_id,
        flow: application.flow,
        native: application.is_native === 1,
        redirectUris: registeredRedirectUris(JSON.parse(application.redirect_uris) as string[], this.publicUrl),
        scopes: parseScopeString(application.scopes),
      },
    );
    return check.ok ? { ...check, applicationName: application?.name ?? '' } : check;
  }

  /** Issues a code for the approved scopes and returns where to send the browser (RFC 9207 adds iss). */
  async approve(
    request: AuthorizationRequest,
    grant: { userId: string; orgId: string; scopes: Scope[]; identityProvider: string },
  ): Promise<string> {
    const code = randomToken();
    const now = this.clock.now();
    await this.codes.insertAuthorizationCode({
      code_hash: hashToken(code),
      client_id: request.clientId,
      user_id: grant.userId,
      org_id: grant.orgId,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      scopes: grant.scopes.join(' '),
      identity_provider: grant.identityProvider,
      family_id: randomUUID(),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS).toISOString(),
      used_at: null,
    });
    return this.redirect(request, { code });
  }

  deny(request: AuthorizationRequest): string {
    return this.redirect(request, { error: 'access_denied', error_description: 'The user denied access' });
  }

  private redirect(request: AuthorizationRequest, parameters: Record<string, string>): string {
    const url = new URL(request.redirectUri);
    for (const [name, value] of Object.entries({ ...parameters, state: request.state, iss: this.issuer })) {
      url.searchParams.set(name, value);
    }
    return url.toString();
  }
}
