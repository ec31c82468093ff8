import type { Kysely } from 'kysely';
import type { GlobalSchema, SessionRow } from '../schema.js';

/** Browser sessions, by the hash of their id: the cookie's value is never stored. */
export class SessionRepository {
  constructor(private readonly db: Kysely<GlobalSchema>) {}

  async insert(row: SessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  async find(idHash: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
