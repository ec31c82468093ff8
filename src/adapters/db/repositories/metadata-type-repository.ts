import { type Kysely, sql, type Transaction } from 'kysely';
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

  /**
   * The type's row for an object that is given it, in the write's transaction: on PostgreSQL held
   * FOR SHARE, so a deletion (which holds it FOR UPDATE, then counts the objects that use it) takes
   * turns with the assignment and never misses it (SQLite has one writer).
   */
  async hold(tx: Transaction<RegionalSchema>, orgId: string, id: string): Promise<MetadataTypeRow | undefined> {
    const query = tx.selectFrom('metadata_types').selectAll().where('org_id', '=', orgId).where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forShare() : query).executeTakeFirst();
  }

  /**
   * How many objects use the type (each once): live twin objects, model assets of planning layouts, and the
   * changes of open drafts that give it (added or modified; a published or discarded draft's
   * changes are never written). A draft change keeps the type in its JSON fields: read with the
   * store's JSON function, over the organization's open drafts only (a deletion is rare).
   */
  async countUses(orgId: string, id: string, db: Db = this.db): Promise<number> {
    const live = db
      .selectFrom('twin_objects')
      .select('id as object_id')
      .where('org_id', '=', orgId)
      .where('metadata_type_id', '=', id);
    const planned = db
      .selectFrom('planning_model_assets')
      .select('id as object_id')
      .where('org_id', '=', orgId)
      .where('metadata_type_id', '=', id);
    const typeOfChange =
      this.dialect === 'postgres'
        ? sql<string>`(change.fields::json ->> 'metadataTypeId')`
        : sql<string>`json_extract(change.fields, '$.metadataTypeId')`;
    const drafted = db
      .selectFrom('twin_draft_changes as change')
      .innerJoin('twin_drafts as draft', 'draft.id', 'change.draft_id')
      .select('change.object_id')
      .where('draft.org_id', '=', orgId)
      .where('draft.status', '=', 'open')
      .where('change.kind', 'in', ['added', 'modified'])
      .where(typeOfChange, '=', id);
    // UNION, not UNION ALL: a live object a draft gives the type again (a metadata PATCH through
    // the draft copies it into the change) is one object.
    const row = await db
      .selectFrom(live.union(planned).union(drafted).as('use'))
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
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
