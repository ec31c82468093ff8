import type { Kysely, Transaction } from 'kysely';
import type { LibraryTagWithCount } from '../../../domain/library/tags.js';
import type { Dialect } from '../database.js';
import type { LibraryTagRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** Tags of a region's asset libraries. No rules here: LibraryTagService applies them. */
export class LibraryTagRepository {
  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  /** The tags with their model counts, counted along library_model_tags' (tag_id, model_id) index. */
  private withCount(db: Db, orgId: string) {
    return db
      .selectFrom('library_tags')
      .selectAll('library_tags')
      .select((eb) =>
        eb
          .selectFrom('library_model_tags')
          .select(eb.fn.countAll().as('count'))
          .whereRef('library_model_tags.tag_id', '=', 'library_tags.id')
          .as('model_count'),
      )
      .where('library_tags.org_id', '=', orgId);
  }

  /** The organization's tag with that id: another organization's answers like a missing one. */
  async find(orgId: string, id: string, db: Db = this.db): Promise<LibraryTagWithCount | undefined> {
    const row = await this.withCount(db, orgId).where('library_tags.id', '=', id).executeTakeFirst();
    return row && { ...row, model_count: Number(row.model_count ?? 0) };
  }

  /** A page in name order (then id), along the unique (org_id, name_key) index. */
  async list(orgId: string, limit: number, offset: number): Promise<LibraryTagWithCount[]> {
    const rows = await this.withCount(this.db, orgId)
      .orderBy('library_tags.name_key')
      .orderBy('library_tags.id')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((row) => ({ ...row, model_count: Number(row.model_count ?? 0) }));
  }

  /**
   * The tag's row for a change in the caller's transaction: on PostgreSQL held FOR UPDATE, so
   * changes of one tag take turns (SQLite has one writer anyway).
   */
  async lock(tx: Transaction<RegionalSchema>, orgId: string, id: string): Promise<LibraryTagRow | undefined> {
    const query = tx.selectFrom('library_tags').selectAll().where('org_id', '=', orgId).where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  /** The id of the tag holding a lower-cased name in the organization, if any. */
  async idOfNameKey(db: Db, orgId: string, nameKey: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('library_tags')
      .select('id')
      .where('org_id', '=', orgId)
      .where('name_key', '=', nameKey)
      .executeTakeFirst();
    return row?.id;
  }

  async insert(tx: Db, row: LibraryTagRow): Promise<void> {
    await tx.insertInto('library_tags').values(row).execute();
  }

  async update(
    tx: Db,
    id: string,
    fields: Partial<Pick<LibraryTagRow, 'name' | 'name_key' | 'color' | 'updated_by' | 'updated_at'>>,
  ): Promise<void> {
    await tx.updateTable('library_tags').set(fields).where('id', '=', id).execute();
  }

  /** Deletes the tag and unassigns it from every model; answers how many models carried it. */
  async delete(tx: Db, id: string): Promise<number> {
    const unassigned = await tx.deleteFrom('library_model_tags').where('tag_id', '=', id).executeTakeFirst();
    await tx.deleteFrom('library_tags').where('id', '=', id).execute();
    return Number(unassigned.numDeletedRows);
  }
}
