import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, type JWK, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { TokenRepository } from '../adapters/db/repositories/token-repository.js';
import type { Principal } from '../domain/access/principal.js';
import { ApiError } from '../domain/errors.js';
import { isRevoked, notBeforeMs } from '../domain/oauth/revocation.js';
import { isRegion, type Region } from '../domain/regions.js';
import type { Clock } from '../ports/clock.js';
import type { PrincipalChanges } from './principal-changes.js';
import { publishedKeySet, remoteKeySet } from './published-keys.js';
import type { SigningKeys } from './signing-keys.js';

export const ACCESS_TOKEN_AUDIENCE = 'rdp-api';

export interface IssueRequest {
  userId: string;
  orgId: string;
  clientId: string;
  scopes: string[];
  identityProvider?: string;
}

export class AccessTokenIssuer {
  constructor(
    private readonly keys: SigningKeys,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
    private readonly clock: Clock,
  ) {}

  /** familyId: the grant the token belongs to (its refresh family), named in the `grant` claim. */
  async issue(request: IssueRequest, familyId: string): Promise<{ token: string; issuedAt: number; expiresAt: number }> {
    const issuedAtMs = this.clock.now().getTime();
    const issuedAt = Math.floor(issuedAtMs / 1000);
    const expiresAt = issuedAt + this.ttlSeconds;
    const token = await this.keys.sign(
      {
        iss: this.issuer,
        aud: ACCESS_TOKEN_AUDIENCE,
        sub: request.userId,
        org: request.orgId,
        client_id: request.clientId,
        scope: request.scopes.join(' '),
        idp: request.identityProvider ?? 'local',
        grant: familyId,
        // iat has whole seconds; a revocation and a new token often share one.
        iat_ms: issuedAtMs,
        jti: randomUUID(),
      },
      issuedAt,
      expiresAt,
    );
    return { token, issuedAt, expiresAt };
  }
}

const MAX_CACHED_TOKENS = 50_000;
const REVOCATION_TTL_MS = 1000;

interface PrincipalStatus {
  checkedAt: number;
  active: boolean;
  /** Milliseconds: tokens issued before this instant are refused. */
  notBefore: number;
}

interface GrantStatus {
  checkedAt: number;
  /** The client application still exists and the grant's family is not revoked. */
  valid: boolean;
  /** The application's grants_not_before in milliseconds: its tokens issued earlier are refused. */
  notBefore: number;
}

/**
 * Verifies bearer tokens. A signature check costs tens of microseconds, so a verified token is
 * kept until it expires; revocation (a deactivated user, a deleted application, a "not before")
 * is re-read at most once a second per principal, so it still bites within a second.
 */
export class AccessTokenVerifier {
  private readonly verified = new Map<string, Principal>();
  private readonly statuses = new Map<string, PrincipalStatus>();
  private readonly grants = new Map<string, GrantStatus>();
  /** Organizations' regions: fixed when an organization is made, so kept once read. */
  private readonly orgRegions = new Map<string, Region>();

  constructor(
    private readonly getKey: JWTVerifyGetKey,
    private readonly issuer: string,
    private readonly directory: DirectoryRepository,
    private readonly tokens: TokenRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Verifies with the published key set: fetched from RDP_AUTH_JWKS_URL when the authorization
   * server runs apart and that is set; otherwise read from the global store, starting from `keys`.
   */
  static open(options: {
    authJwksUrl: string | undefined;
    keys: { keys: JWK[] };
    issuer: string;
    directory: DirectoryRepository;
    tokens: TokenRepository;
    clock: Clock;
    /** This process's changes to principals: their verified tokens are forgotten at once. */
    principalChanges: Pick<PrincipalChanges, 'subscribe'>;
  }) {
    const { authJwksUrl, keys, issuer, directory, tokens, clock } = options;
    const keySet = authJwksUrl ? remoteKeySet(authJwksUrl) : publishedKeySet(tokens, keys, clock);
    const verifier = new AccessTokenVerifier(keySet, issuer, directory, tokens, clock);
    options.principalChanges.subscribe((userId) => verifier.forgetPrincipal(userId));
    return verifier;
  }

  /** The principal behind an Authorization header, or a 401 ApiError. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = authorization ? /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization) : null;
    const token = match?.[1];
    if (!token) throw new ApiError('not_authenticated');
    const nowMs = this.clock.now().getTime();

    let principal = this.verified.get(token);
    if (principal && principal.expiresAt * 1000 <= nowMs) {
      this.verified.delete(token);
      throw new ApiError('invalid_token', 'The access token has expired');
    }
    if (!principal) {
      principal = await this.verify(token);
      if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.clear();
      this.verified.set(token, principal);
    }
    // Both read within the second (nearly every request): no promise. Otherwise re-read together.
    let status = this.freshStatus(principal.userId, principal.orgId, nowMs);
    let grant = this.freshGrant(principal.clientId, principal.grantId, nowMs);
    if (!status || !grant) {
      [status, grant] = await Promise.all([
        status ?? this.status(principal.userId, principal.orgId, nowMs),
        grant ?? this.grantStatus(principal.clientId, principal.grantId, nowMs),
      ]);
    }
    const facts = {
      active: status.active,
      userNotBefore: status.notBefore,
      appNotBefore: grant.notBefore,
      familyRevoked: !grant.valid,
    };
    if (isRevoked(principal.issuedAtMs, facts)) {
      throw new ApiError('invalid_token', 'The access token has been revoked');
    }
    return principal;
  }

  /**
   * Whether a user's tokens issued at `issuedAtMs` are ended now (a deactivation, a "not before"):
   * the embed tokens a user made follow the user's own (src/oauth/embed-tokens.ts), from the
   * same status re-read at most once a second.
   */
  async userRevoked(userId: string, orgId: string, issuedAtMs: number): Promise<boolean> {
    const status = await this.status(userId, orgId, this.clock.now().getTime());
    return isRevoked(issuedAtMs, {
      active: status.active,
      userNotBefore: status.notBefore,
      appNotBefore: 0,
      familyRevoked: false,
    });
  }

  private async verify(token: string): Promise<Principal> {
    const claims = await this.verifyClaims(token);
    // Read once per organization and process, with the token's first use: no request pays for it after.
    const orgRegion = await this.regionOf(claims.orgId);
    if (!orgRegion) throw new ApiError('invalid_token', 'The token names an unknown organization');
    return { ...claims, orgRegion };
  }

  private async verifyClaims(token: string): Promise<Omit<Principal, 'orgRegion'>> {
    try {
      decodeProtectedHeader(token);
    } catch {
      throw new ApiError('not_authenticated', 'The bearer token is not a parseable token');
    }
    try {
      const { payload } = await jwtVerify(token, this.getKey, {
        issuer: this.issuer,
        audience: ACCESS_TOKEN_AUDIENCE,
        currentDate: this.clock.now(),
      });
      const { sub, org, client_id, scope, iat, iat_ms, exp, idp, grant } = payload as Record<string, unknown>;
      if (typeof sub !== 'string' || typeof org !== 'string' || typeof client_id !== 'string') throw new Error();
      return {
        userId: sub,
        orgId: org,
        clientId: client_id,
        scopes: new Set(typeof scope === 'string' ? scope.split(' ') : []),
        issuedAt: Number(iat),
        issuedAtMs: typeof iat_ms === 'number' ? iat_ms : Number(iat) * 1000,
        expiresAt: Number(exp),
        identityProvider: typeof idp === 'string' ? idp : 'local',
        grantId: typeof grant === 'string' ? grant : undefined,
      };
    } catch {
      throw new ApiError('invalid_token');
    }
  }

  private async regionOf(orgId: string): Promise<Region | undefined> {
    const known = this.orgRegions.get(orgId);
    if (known) return known;
    const region = (await this.directory.findOrganization(orgId))?.region;
    if (region === undefined || !isRegion(region)) return undefined;
    if (this.orgRegions.size >= MAX_CACHED_TOKENS) this.orgRegions.clear();
    this.orgRegions.set(orgId, region);
    return region;
  }

  /** The principal's status when read less than REVOCATION_TTL_MS ago. */
  private freshStatus(userId: string, orgId: string, nowMs: number): PrincipalStatus | undefined {
    const cached = this.statuses.get(`${userId} ${orgId}`);
    return cached && nowMs - cached.checkedAt < REVOCATION_TTL_MS ? cached : undefined;
  }

  private async status(userId: string, orgId: string, nowMs: number): Promise<PrincipalStatus> {
    const key = `${userId} ${orgId}`;
    const cached = this.freshStatus(userId, orgId, nowMs);
    if (cached) return cached;
    const row = await this.directory.principalStatus(userId, orgId);
    const status: PrincipalStatus = {
      checkedAt: nowMs,
      active: row?.active ?? false,
      notBefore: notBeforeMs(row?.tokensNotBefore),
    };
    if (this.statuses.size >= MAX_CACHED_TOKENS) this.statuses.clear();
    this.statuses.set(key, status);
    return status;
  }

  /**
   * Drops what this process keeps of a principal's status: a change made here (a deactivation)
   * bites on the next request, not a second later. Other processes see it within the second.
   */
  forgetPrincipal(userId: string): void {
    for (const key of this.statuses.keys()) if (key.startsWith(`${userId} `)) this.statuses.delete(key);
  }

  /** The grant's status when read less than REVOCATION_TTL_MS ago. */
  private freshGrant(clientId: string, grantId: string | undefined, nowMs: number): GrantStatus | undefined {
    const cached = this.grants.get(`${clientId} ${grantId ?? ''}`);
    return cached && nowMs - cached.checkedAt < REVOCATION_TTL_MS ? cached : undefined;
  }

  /** A deleted application or a revoked family ends its tokens; re-read at most once a second per grant. */
  private async grantStatus(clientId: string, grantId: string | undefined, nowMs: number): Promise<GrantStatus> {
    const key = `${clientId} ${grantId ?? ''}`;
    const cached = this.freshGrant(clientId, grantId, nowMs);
    if (cached) return cached;
    const [application, revoked] = await Promise.all([
      this.directory.findApplication(clientId),
      grantId ? this.tokens.familyRevoked(grantId) : false,
    ]);
    const status: GrantStatus = {
      checkedAt: nowMs,
      valid: application !== undefined && !revoked,
      notBefore: notBeforeMs(application?.grants_not_before),
    };
    if (this.grants.size >= MAX_CACHED_TOKENS) this.grants.clear();
    this.grants.set(key, status);
    return status;
  }
}
