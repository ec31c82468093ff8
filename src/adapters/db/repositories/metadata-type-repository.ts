import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../database.js';
import type { MetadataTypeRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** Metadata types of a region's organizations. No rules here: MetadataTypeService applies them. */
export class MetadataTypeRepository {
  constructor(
    private readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  /** One write transaction of the metadata types' service (the regional store's). */
  transaction<T>(work: (tx: Transaction<RegionalSchema>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** The organization's type with that id: another organization's answers like a missing one. */
  async find(orgId: string, id: string, db: Db = this.db): Promise<MetadataTypeRow | undefined> {
    return db.selectFrom('metadata_types').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The type's row for a change in the caller's transaction: on PostgreSQL held FOR UPDATE, so
   * changes of one type take turns (SQLite has one writer anyway).
   */
  async lock(tx: Transaction<RegionalSchema>, orgId: string, id: string): Promise<MetadataTypeRow | undefined> {
    const query = tx.selectFrom('metadata_types').selectAll().where('org_id', '=', orgId).where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  /** The id of the type holding a lower-cased name in the organization, if any. */
  async idOfNameKey(db: Db, orgId: string, nameKey: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('metadata_types')
      .select('id')
      .where('org_id', '=', orgId)
      .where('name_key', '=', nameKey)
      .executeTakeFirst();
    return row?.id;
  }

  /** A page in name order (then id), along the unique (org_id, name_key) index. */
  async list(orgId: string, limit: number, offset: number): Promise<MetadataTypeRow[]> {
    return this.db
      .selectFrom('metadata_types')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('name_key')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  async insert(tx: Db, row: MetadataTypeRow): Promise<void> {
    await tx.insertInto('metadata_types').values(row).execute();
  }

  async update(
    tx: Db,
    id: string,
    fields: Partial<Pick<MetadataTypeRow, 'name' | 'name_key' | 'applies_to' | 'properties' | 'updated_by' | 'updated_at'>>,
  ): Promise<void> {
    await tx.updateTable('metadata_types').set(fields).where('id', '=', id).execute();
  }

  async delete(tx: Db, id: string): Promise<void> {
    await tx.deleteFrom('metadata_types').where('id', '=', id).execute();
  }
}
