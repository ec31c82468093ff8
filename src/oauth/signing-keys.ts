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
   * A compact JWS (RFC 7515) of the claims with iat and exp, signed with node:crypto and the key
   * imported once at start. Synchronous on purpose: an Ed25519 signature is about 25 us, and
   * jose's SignJWT (WebCrypto) or crypto.sign's thread-pool variant cost more CPU per token in
   * all (hops between threads, promises); bench/token.ts measured 110 against 124 us of server
   * CPU per request for the thread-pool variant.
   */
  sign(claims: JWTPayload, issuedAt: number, expiresAt: number): Promise<string> {
    const payload = Buffer.from(JSON.stringify({ ...claims, iat: issuedAt, exp: expiresAt })).toString('base64url');
    const input = `${this.header}.${payload}`;
    return Promise.resolve(`${input}.${signBytes(null, Buffer.from(input), this.privateKey).toString('base64url')}`);
  }

  /** The published key set (RFC 7517): what every region verifies tokens with. */
  jwks(): { keys: JWK[] } {
    return { keys: this.publicJwks };
  }
}
