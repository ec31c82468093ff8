import { createLocalJWKSet, createRemoteJWKSet, type JWK, type JWTVerifyGetKey } from 'jose';
import type { TokenRepository } from '../adapters/db/repositories/token-repository.js';
import type { Clock } from '../ports/clock.js';

const RELOAD_INTERVAL_MS = 10_000;

/**
 * The key set regions verify tokens with: the document published at {auth_url}/oauth/jwks.
 * In one process it is read from the global store, and read again (at most every ten seconds)
 * when a token names a key it does not hold, so a key added by another copy of the
 * authorization server is picked up. Regions deployed apart fetch it over HTTP instead.
 */
export function publishedKeySet(tokens: TokenRepository, initial: { keys: JWK[] }, clock: Clock): JWTVerifyGetKey {
  let current = createLocalJWKSet(initial);
  // None yet (an api process started before any authorization server): the first token reloads.
  let loadedAt = initial.keys.length > 0 ? clock.now().getTime() : Number.NEGATIVE_INFINITY;
  return async (header, token) => {
    try {
      return await current(header, token);
    } catch (error) {
      if (
        (error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' ||
        clock.now().getTime() - loadedAt < RELOAD_INTERVAL_MS
      ) {
        throw error;
      }
      current = createLocalJWKSet(await publishedKeys(tokens));
      loadedAt = clock.now().getTime();
      return current(header, token);
    }
  };
}

/** The public halves of the signing keys in the global store: what {auth_url}/oauth/jwks publishes. */
export async function publishedKeys(tokens: TokenRepository): Promise<{ keys: JWK[] }> {
  const rows = await tokens.activeSigningKeys();
  return { keys: rows.map((row) => JSON.parse(row.public_jwk) as JWK) };
}

export function remoteKeySet(jwksUrl: string): JWTVerifyGetKey {
  return createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: RELOAD_INTERVAL_MS });
}
