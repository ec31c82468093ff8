import type { Kysely, Transaction } from 'kysely';
import type { EmbedSessionRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** Embed sessions' rows (regional-0022): by id for the API and the viewer page, by token hash for each embedded request. */
export class EmbedSessionRepository {
  constructor(private readonly db: Kysely<RegionalSchema>) {}

  /** One write transaction of the embed sessions' service (the regional store's). */
  transaction<T>(work: (tx: Transaction<RegionalSchema>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insert(db: Db, row: EmbedSessionRow): Promise<void> {
    await db.insertInto('embed_sessions').values(row).execute();
  }

  /** Any session with this id, revoked or expired too (the viewer page says which). */
  async findById(id: string): Promise<EmbedSessionRow | undefined> {
    return this.db.selectFrom('embed_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByTokenHash(tokenHash: string): Promise<EmbedSessionRow | undefined> {
    return this.db.selectFrom('embed_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /**
   * A site's sessions made for embedding (not a reader's own viewer's), neither revoked nor ended
   * at `now`, newest first, and how many there are.
   */
  async listOpen(
    siteId: string,
    now: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: EmbedSessionRow[]; total: number }> {
    const open = this.db
      .selectFrom('embed_sessions')
      .where('site_id', '=', siteId)
      .where('purpose', '=', 'embed')
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now);
    const [rows, count] = await Promise.all([
      open.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
      open.select((eb) => eb.fn.countAll<string | number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.total) };
  }

  /** The site of an organization's twin, by the twin's id. */
  async twinSite(orgId: string, twinId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('twins')
      .select('site_id')
      .where('id', '=', twinId)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return row?.site_id;
  }

  /** Marks the session revoked; false when it was already (or does not exist). */
  async revoke(db: Db, id: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('embed_sessions')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Removes up to `limit` sessions that ended (expired; a revoked one too) before `cutoff`: the ids
   * found through embed_sessions_expiry, then those rows by primary key.
   */
  async deleteExpiredBefore(cutoff: string, limit: number): Promise<number> {
    const rows = await this.db.selectFrom('embed_sessions').select('id').where('expires_at', '<', cutoff).limit(limit).execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.id);
    const result = await this.db.deleteFrom('embed_sessions').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
