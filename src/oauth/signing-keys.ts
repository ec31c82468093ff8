import { createPrivateKey, type KeyObject, randomUUID, sign as signBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import type { TokenRepository } from '../adapters/db/repositories/token-repository.js';
import type { Clock } from '../ports/clock.js';

const ALGORITHM = 'EdDSA';

/**
 * The authorization server's signing keys. Ed25519: small tokens, fast signatures. The first
 * start generates a key and keeps it in the global store, so restarts and copies share it.
 */
export class SigningKeys {
  /** The encoded protected header, the same for every token. */
  private readonly header: string;

  private constructor(
    kid: string,
    private readonly privateKey: KeyObject,
    private readonly publicJwks: JWK[],
  ) {
    this.header = Buffer.from(JSON.stringify({ alg: ALGORITHM, kid, typ: 'at+jwt' })).toString('base64url');
  }

  static async load(tokens: TokenRepository, clock: Clock): Promise<SigningKeys> {
    let rows = await tokens.activeSigningKeys();
    if (rows.length === 0) {
      const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true });
      const kid = randomUUID();
      await tokens.insertSigningKey({
        kid,
        algorithm: ALGORITHM,
        private_jwk: JSON.stringify(await exportJWK(privateKey)),
        public_jwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: 'sig' }),
        created_at: clock.now().toISOString(),
        retired_at: null,
      });
      rows = await tokens.activeSigningKeys();
    }
    const newest = rows[0];
    if (!newest) throw new Error('no signing key could be stored');
    const privateKey = createPrivateKey({ key: JSON.parse(newest.private_jwk), format: 'jwk' });
    return new SigningKeys(
      newest.kid,
      privateKey,
      rows.map((row) => JSON.parse(row.public_jwk) as JWK),
    );
  }

  /**
   * A compact JWS (RFC 7515) of the claims with iat and exp. Signed with node:crypto's
   * asynchronous sign and the key imported once at start: the signature runs in the thread pool
   * and the event loop spends about 10 us per token, against 35 us or more for jose's SignJWT
   * (bench/token.ts; docs/performance.md).
   */
  sign(claims: JWTPayload, issuedAt: number, expiresAt: number): Promise<string> {
    const payload = Buffer.from(JSON.stringify({ ...claims, iat: issuedAt, exp: expiresAt })).toString('base64url');
    const input = `${this.header}.${payload}`;
    return new Promise((resolve, reject) => {
      signBytes(null, Buffer.from(input), this.privateKey, (error, signature) => {
        if (error) reject(error);
        else resolve(`${input}.${signature.toString('base64url')}`);
      });
    });
  }

  /** The published key set (RFC 7517): what every region verifies tokens with. */
  jwks(): { keys: JWK[] } {
    return { keys: this.publicJwks };
  }
}
