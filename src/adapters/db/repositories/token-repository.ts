import type { Kysely } from 'kysely';
import type { AuthorizationCodeRow, GlobalSchema, RefreshTokenUseRow, RevokedGrantRow, SigningKeyRow } from '../schema.js';

/** Signing keys, used refresh tokens, revoked grants and authorization codes: the authorization server's own records. */
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

  /** When a refresh token was used, or undefined if it never was. */
  async findRefreshTokenUse(tokenHash: string): Promise<RefreshTokenUseRow | undefined> {
    return this.db.selectFrom('refresh_token_uses').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Records a refresh token's use; false when another request recorded it first (a race is a reuse). */
  async recordRefreshTokenUse(row: RefreshTokenUseRow): Promise<boolean> {
    const result = await this.db
      .insertInto('refresh_token_uses')
      .values(row)
      .onConflict((oc) => oc.column('token_hash').doNothing())
      .executeTakeFirst();
    return BigInt(result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  /** Ends a grant: its refresh tokens are refused, and its access tokens stop with it (see familyRevoked). */
  async revokeFamily(row: RevokedGrantRow): Promise<void> {
    await this.db
      .insertInto('revoked_grants')
      .values(row)
      .onConflict((oc) => oc.column('family_id').doNothing())
      .execute();
  }

  async familyRevoked(familyId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('revoked_grants')
      .select('family_id')
      .where('family_id', '=', familyId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Removes records of used refresh tokens, revoked grants and authorization codes that expired before the cutoff. */
  async deleteExpired(cutoff: string): Promise<number> {
    let removed = 0;
    for (const table of ['refresh_token_uses', 'revoked_grants', 'authorization_codes'] as const) {
      const result = await this.db.deleteFrom(table).where('expires_at', '<', cutoff).executeTakeFirst();
      removed += Number(result.numDeletedRows);
    }
    return removed;
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
