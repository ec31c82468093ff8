import { type FetchLike, requestToken, type TokenSet } from './token-endpoint.js';

/**
 * Where a client gets its bearer token. `refresh` is called after a 401 with the token that was
 * refused (the spec: any 401 means request a new token); it is single-flight, so many calls
 * refused at once share one token request, and a call refused with a token already replaced
 * gets the new one without another request.
 */
export interface TokenSource {
  /** A token believed valid: cached until shortly before it expires. */
  getAccessToken(): Promise<string>;
  /** A new token after `rejected` was refused with 401. */
  refresh(rejected: string): Promise<string>;
}

/** A fixed token (a test, a token obtained elsewhere): a 401 is final. */
export class StaticToken implements TokenSource {
  constructor(private readonly token: string) {}
  async getAccessToken(): Promise<string> {
    return this.token;
  }
  async refresh(): Promise<string> {
    throw new Error('The access token was refused (401) and this client has no way to get another');
  }
}

/**
 * The caching and single-flight shared by the token sources: `obtain` gets a fresh TokenSet,
 * `current` is the one in use (persisted by the subclass when it changes).
 */
abstract class CachingTokenSource implements TokenSource {
  protected current: TokenSet | undefined;
  private inFlight: Promise<TokenSet> | undefined;

  constructor(
    /** Renew this long before the stated expiry, so a token does not lapse in flight. */
    protected readonly marginMs: number,
    protected readonly now: () => number,
  ) {}

  protected abstract obtain(): Promise<TokenSet>;

  /** The tokens held now (for a caller that stores them itself), undefined before the first. */
  get tokens(): TokenSet | undefined {
    return this.current;
  }

  async getAccessToken(): Promise<string> {
    const held = this.current;
    if (held && this.stillGood(held)) return held.accessToken;
    return (await this.renew()).accessToken;
  }

  /**
   * Good until the margin before its expiry; the margin is at most half the lifetime left when
   * it was obtained, so a short-lived token (a deployment with 10-second tokens) is still used.
   */
  private stillGood(held: TokenSet): boolean {
    if (held.accessTokenExpiresAt === undefined) return true;
    const margin = Math.min(this.marginMs, Math.max(0, (held.accessTokenExpiresAt - (held.obtainedAt ?? 0)) / 2));
    return held.accessTokenExpiresAt - margin > this.now();
  }

  async refresh(rejected: string): Promise<string> {
    if (this.current && this.current.accessToken !== rejected) return this.current.accessToken;
    return (await this.renew()).accessToken;
  }

  private renew(): Promise<TokenSet> {
    this.inFlight ??= this.obtain()
      .then((tokens) => {
        this.current = tokens;
        return tokens;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }
}

export interface ClientCredentialsOptions {
  /** The authorization server's address, e.g. `https://rdp.example.com/auth`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for (default: all the application has). */
  scopes?: string[];
  /** Renew this many seconds before expiry (default 30). */
  expiryMarginSeconds?: number;
  fetch?: FetchLike;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

/** Client credentials (a service application): a token is fetched, cached, and fetched again the same way on 401. */
export class ClientCredentials extends CachingTokenSource {
  constructor(private readonly options: ClientCredentialsOptions) {
    super((options.expiryMarginSeconds ?? 30) * 1000, options.now ?? Date.now);
  }

  protected obtain(): Promise<TokenSet> {
    const form: Record<string, string> = { grant_type: 'client_credentials' };
    if (this.options.scopes?.length) form.scope = this.options.scopes.join(' ');
    return requestToken(this.options.authUrl, form, this.options);
  }
}

export interface RefreshingTokensOptions {
  authUrl: string;
  clientId: string;
  /** Only when the application was created with a secret. */
  clientSecret?: string;
  /** The tokens of the code exchange (or as stored after an earlier run). */
  tokens: TokenSet;
  /**
   * Called with every new TokenSet after a refresh, before it is used: store it (the refresh
   * token rotates, so the stored one is spent once the new one exists).
   */
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  expiryMarginSeconds?: number;
  fetch?: FetchLike;
  now?: () => number;
}

/**
 * The tokens of an authorization-code (PKCE) sign-in: the access token is used until it
 * expires or is refused, then the refresh token gets a new pair (grant_type=refresh_token).
 * A refused refresh (expired or revoked: 400 invalid_grant) throws RdpApiError: sign in again.
 */
export class RefreshingTokens extends CachingTokenSource {
  constructor(private readonly options: RefreshingTokensOptions) {
    super((options.expiryMarginSeconds ?? 30) * 1000, options.now ?? Date.now);
    this.current = options.tokens;
  }

  protected async obtain(): Promise<TokenSet> {
    const refreshToken = this.current?.refreshToken;
    if (!refreshToken) throw new Error('The access token expired and there is no refresh token: sign in again');
    const fresh = await requestToken(
      this.options.authUrl,
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      this.options,
    );
    // A server that does not rotate answers no new refresh token: the old one stays good.
    const tokens: TokenSet = fresh.refreshToken
      ? fresh
      : { ...fresh, refreshToken, refreshTokenExpiresAt: this.current?.refreshTokenExpiresAt };
    await this.options.onTokens?.(tokens);
    return tokens;
  }
}
