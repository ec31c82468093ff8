import type { Kysely } from 'kysely';
import type { GlobalSchema, RefreshTokenRow, SigningKeyRow } from '../schema.js';
import { GroupCommit } from './group-commit.js';

/** Signing keys and refresh tokens: the authorization server's own records. */
export class TokenRepository {
  /** The token endpoint inserts a refresh token per request: concurrent ones share a statement. */
  private readonly refreshTokens = new GroupCommit<RefreshTokenRow>(async (rows) => {
    await this.db.insertInto('refresh_tokens').values(rows).execute();
  });

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

  /** Resolves once the row has committed, batched with the rows of concurrent calls (inside a transaction: at once). */
  async insertRefreshToken(row: RefreshTokenRow): Promise<void> {
    if (this.db.isTransaction) await this.db.insertInto('refresh_tokens').values(row).execute();
    else await this.refreshTokens.add(row);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | undefined> {
    return this.db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }
}
