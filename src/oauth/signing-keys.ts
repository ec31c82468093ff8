import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';
import type { TokenRepository } from '../adapters/db/repositories/token-repository.js';
import type { Clock } from '../ports/clock.js';

const ALGORITHM = 'EdDSA';

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

/**
 * The authorization server's signing keys. Ed25519: small tokens, fast signatures. The first
 * start generates a key and keeps it in the global store, so restarts and copies share it.
 */
export class SigningKeys {
  private constructor(
    private readonly kid: string,
    private readonly privateKey: SigningKey,
    private readonly publicJwks: JWK[],
  ) {}

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
    const privateKey = await importJWK(JSON.parse(newest.private_jwk) as JWK, ALGORITHM);
    return new SigningKeys(
      newest.kid,
      privateKey,
      rows.map((row) => JSON.parse(row.public_jwk) as JWK),
    );
  }

  sign(claims: JWTPayload, issuedAt: number, expiresAt: number): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, kid: this.kid, typ: 'at+jwt' })
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.privateKey);
  }

  /** The published key set (RFC 7517): what every region verifies tokens with. */
  jwks(): { keys: JWK[] } {
    return { keys: this.publicJwks };
  }
}
