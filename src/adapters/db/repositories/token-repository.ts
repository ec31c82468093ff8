import type { Kysely } from 'kysely';
import type { GlobalSchema, RefreshTokenRow, SigningKeyRow } from '../schema.js';

/** Signing keys and refresh tokens: the authorization server's own records. */
export class TokenRepository {
  constructor(readonly db: Kysely<GlobalSchema>) {}

  async activeSigningKeys(): Promise<SigningKeyRow[]> {
    return this.db.selectFrom('signing_keys').selectAll().where('retired_at', 'is', null).orderBy('created_at', 'desc').execute();
  }

  async insertSigningKey(row: SigningKeyRow): Promise<void> {
    await this.db
      .insertInto('signing_keys')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async insertRefreshToken(row: RefreshTokenRow): Promise<void> {
    await this.db.insertInto('refresh_tokens').values(row).execute();
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | undefined> {
    return this.db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }
}
