import type { Kysely } from 'kysely';
import type { AuthorizationCodeRow, GlobalSchema, RefreshTokenRow, SigningKeyRow } from '../schema.js';
import { GroupCommit } from './group-commit.js';

/** Signing keys, refresh tokens and authorization codes: the authorization server's own records. */
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

  /** Marks a refresh token used; false when another request marked it first (a race is a reuse). */
  async markRefreshTokenUsed(id: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('refresh_tokens')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Revokes every refresh token of a grant; the access tokens of the family stop with it (see familyRevoked). */
  async revokeFamily(familyId: string, now: string): Promise<void> {
    await this.db
      .updateTable('refresh_tokens')
      .set({ revoked_at: now })
      .where('family_id', '=', familyId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async familyRevoked(familyId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('refresh_tokens')
      .select('id')
      .where('family_id', '=', familyId)
      .where('revoked_at', 'is not', null)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Removes refresh tokens and authorization codes that expired before the cutoff; returns how many. */
  async deleteExpired(cutoff: string): Promise<number> {
    const tokens = await this.db.deleteFrom('refresh_tokens').where('expires_at', '<', cutoff).executeTakeFirst();
    const codes = await this.db.deleteFrom('authorization_codes').where('expires_at', '<', cutoff).executeTakeFirst();
    return Number(tokens.numDeletedRows) + Number(codes.numDeletedRows);
  }

  async insertAuthorizationCode(row: AuthorizationCodeRow): Promise<void> {
    await this.db.insertInto('authorization_codes').values(row).execute();
  }

  async findAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRow | undefined> {
    return this.db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  }

  /** Marks a code used; false when it already was, so two concurrent exchanges cannot both succeed. */
  async consumeAuthorizationCode(codeHash: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('authorization_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
