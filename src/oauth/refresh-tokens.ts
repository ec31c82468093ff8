import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * What a refresh token says about its grant. The token carries it, sealed with the
 * authorization server's key, so issuing one writes nothing; the store learns of a token only
 * when it is used (rotation and reuse detection) or its family is revoked. See
 * docs/oauth-browser-flows.md, "Refresh tokens".
 */
export interface RefreshTokenClaims {
  /** Unique per token: two tokens of one family never share it. */
  id: string;
  familyId: string;
  clientId: string;
  userId: string;
  orgId: string;
  scopes: string[];
  identityProvider: string;
  /** Milliseconds since the epoch; compared with an application's grants_not_before. */
  issuedAtMs: number;
  expiresAtMs: number;
}

const VERSION = 'rt1';

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(VERSION).update('.').update(payload).digest();
}

/** `rt1.<claims, base64url JSON>.<HMAC-SHA-256, base64url>`: 256 random bits of id inside. */
export function sealRefreshToken(key: Buffer, claims: Omit<RefreshTokenClaims, 'id'>): string {
  const body = {
    j: randomBytes(16).toString('base64url'),
    f: claims.familyId,
    c: claims.clientId,
    u: claims.userId,
    o: claims.orgId,
    s: claims.scopes.join(' '),
    p: claims.identityProvider,
    i: claims.issuedAtMs,
    e: claims.expiresAtMs,
  };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${VERSION}.${payload}.${mac(key, payload).toString('base64url')}`;
}

const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** The claims of a token sealed with this key, or undefined for anything else (forged, altered, foreign). */
export function openRefreshToken(key: Buffer, token: string): RefreshTokenClaims | undefined {
  const [version, payload, signature, extra] = token.split('.');
  if (version !== VERSION || !payload || !signature || extra !== undefined) return undefined;
  // Compared as text: base64url decoding ignores the spare bits of the last character, and a
  // second spelling of one token would get past reuse detection (it keys on the token's hash).
  const expected = Buffer.from(mac(key, payload).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { j, f, c, u, o, s, p, i, e } = body;
  if (![j, f, c, u, o, p].every(isString) || typeof s !== 'string' || !Number.isSafeInteger(i) || !Number.isSafeInteger(e)) {
    return undefined;
  }
  return {
    id: j as string,
    familyId: f as string,
    clientId: c as string,
    userId: u as string,
    orgId: o as string,
    scopes: s === '' ? [] : s.split(' '),
    identityProvider: p as string,
    issuedAtMs: i as number,
    expiresAtMs: e as number,
  };
}
