import type { Region } from '../regions.js';

/** Who is calling, as a verified access token says. */
export interface Principal {
  userId: string;
  orgId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** Seconds since the epoch. */
  issuedAt: number;
  /** Milliseconds since the epoch (the iat_ms claim): revocation compares at this precision. */
  issuedAtMs: number;
  expiresAt: number;
  /** How the session was authenticated: "local" now; an SSO sign-in sets its provider. */
  identityProvider: string;
  /** The grant (refresh family) the token belongs to; revoking the family revokes the token. */
  grantId: string | undefined;
  /** The region the organization lives in: a regional API serves only its own (authenticate.ts). */
  orgRegion: Region;
}
