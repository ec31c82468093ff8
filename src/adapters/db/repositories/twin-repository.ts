import { type Kysely, sql, type Transaction } from 'kysely';
import type {
  AnyDraftChange,
  AnyTwinObject,
  DraftChange,
  FoldedChange,
  TwinObject,
  TwinObjectType,
} from '../../../domain/twins/twin-objects.js';
import type { Dialect } from '../database.js';
import type { RegionalSchema, TwinDraftRow, TwinObjectRow, TwinRow } from '../schema.js';
import { precompiled } from './access-statements.js';
import {
  anyChangeOfRow,
  anyObjectOfRow,
  changeFieldsText,
  changeOfRow,
  type ObjectSite,
  objectOfRow,
  rowOfObject,
} from './twin-object-rows.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;
type Tx = Transaction<RegionalSchema>;

/** Named, never `*`: the hot reads below are prepared statements on PostgreSQL. */
const OBJECT_COLUMNS = [
  'id',
  'org_id',
  'site_id',
  'object_type',
  'name',
  'name_key',
  'description',
  'body',
  'parent_zone_id',
  'zone_id',
  'metadata_type_id',
  'metadata',
  'library_model_id',
  'created_by',
  'updated_by',
  'created_at',
  'updated_at',
] as const;

const DRAFT_COLUMNS = [
  'id',
  'org_id',
  'site_id',
  'twin_id',
  'name',
  'status',
  'created_by',
  'created_at',
  'updated_at',
  'published_at',
] as const;

/**
 * Twins, drafts, their changes and the live objects, read and written as the domain's objects
 * and changes (their columns and JSON: twin-object-rows.ts). No rules here: the twin services
 * apply them.
 */
export class TwinRepository {
  /** Every twin read starts with the draft lookup and a list reads a page: both compiled once (Kysely's build cost more than SQLite's run). */
  private readonly draftQuery;
  private readonly pageQuery;

  constructor(
    private readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {
    const postgres = dialect === 'postgres';
    this.draftQuery = precompiled(
      (orgId: string, id: string) =>
        db.selectFrom('twin_drafts').select(DRAFT_COLUMNS).where('org_id', '=', orgId).where('id', '=', id).compile(),
      ['\u0000org', '\u0000id'],
      postgres,
    );
    this.pageQuery = precompiled(
      (siteId: string, objectType: string, limit: number, offset: number) =>
        db
          .selectFrom('twin_objects')
          .select(OBJECT_COLUMNS)
          .where('site_id', '=', siteId)
          .where('object_type', '=', objectType)
          .orderBy('created_at')
          .orderBy('id')
          .limit(limit)
          .offset(offset)
          .compile(),
      ['\u0000site', '\u0000type', -101, -102],
      postgres,
    );
  }

  /** One write transaction of the twin services (the regional store's). */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * The site's twin, made unless it exists: read first (the common case writes nothing); two first
   * uses at once both insert, the unique site_id keeps one, and both read that row.
   */
  async ensureTwin(row: TwinRow): Promise<TwinRow> {
    const existing = await this.findTwin(row.site_id);
    if (existing) return existing;
    await this.db
      .insertInto('twins')
      .values(row)
      .onConflict((conflict) => conflict.column('site_id').doNothing())
      .execute();
    return (await this.findTwin(row.site_id)) as TwinRow;
  }

  async findTwin(siteId: string): Promise<TwinRow | undefined> {
    return this.db.selectFrom('twins').selectAll().where('site_id', '=', siteId).executeTakeFirst();
  }

  /** The site's twin row held FOR UPDATE on PostgreSQL (SQLite runs one write at a time): zone moves and publishes take turns. */
  async lockTwin(tx: Tx, siteId: string): Promise<void> {
    const query = tx.selectFrom('twins').select('id').where('site_id', '=', siteId);
    await (this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  async touchTwin(tx: Db, siteId: string, at: string): Promise<void> {
    await tx.updateTable('twins').set({ published_at: at, updated_at: at }).where('site_id', '=', siteId).execute();
  }

  /** The organization's draft with that id: another organization's answers like a missing one. */
  async findDraft(orgId: string, id: string, db: Db = this.db): Promise<TwinDraftRow | undefined> {
    return (await db.executeQuery<TwinDraftRow>(this.draftQuery(orgId, id))).rows[0];
  }

  /** The draft's row for a change: on PostgreSQL held FOR UPDATE, so a write and a publish take turns. */
  async lockDraft(tx: Tx, id: string): Promise<TwinDraftRow | undefined> {
    const query = tx.selectFrom('twin_drafts').selectAll().where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  async listDrafts(siteId: string, limit: number, offset: number): Promise<TwinDraftRow[]> {
    return this.db
      .selectFrom('twin_drafts')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  async insertDraft(tx: Db, row: TwinDraftRow): Promise<void> {
    await tx.insertInto('twin_drafts').values(row).execute();
  }

  async updateDraft(tx: Db, id: string, fields: Partial<Pick<TwinDraftRow, 'status' | 'updated_at' | 'published_at'>>) {
    await tx.updateTable('twin_drafts').set(fields).where('id', '=', id).execute();
  }

  /** How many changes of each kind every draft holds. */
  async changeCounts(draftIds: string[]): Promise<Map<string, Record<string, number>>> {
    const counts = new Map<string, Record<string, number>>();
    if (draftIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('twin_draft_changes')
      .select(['draft_id', 'kind', sql<number>`count(*)`.as('count')])
      .where('draft_id', 'in', draftIds)
      .groupBy(['draft_id', 'kind'])
      .execute();
    for (const row of rows) {
      const byKind = counts.get(row.draft_id) ?? {};
      byKind[row.kind] = Number(row.count);
      counts.set(row.draft_id, byKind);
    }
    return counts;
  }

  /** The draft's changes in creation order. */
  async changes(draftId: string, db: Db = this.db): Promise<AnyDraftChange[]> {
    const rows = await db
      .selectFrom('twin_draft_changes')
      .selectAll()
      .where('draft_id', '=', draftId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(anyChangeOfRow);
  }

  /** The draft's changes to objects of one kind, in creation order. */
  async changesOf<K extends TwinObjectType>(draftId: string, objectType: K, db: Db = this.db): Promise<DraftChange<K>[]> {
    const rows = await db
      .selectFrom('twin_draft_changes')
      .selectAll()
      .where('draft_id', '=', draftId)
      .where('object_type', '=', objectType)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => changeOfRow<K>(row));
  }

  /** The draft's change to the object, of whatever kind. */
  async change(draftId: string, objectId: string, db: Db = this.db): Promise<AnyDraftChange | undefined> {
    const row = await db
      .selectFrom('twin_draft_changes')
      .selectAll()
      .where('draft_id', '=', draftId)
      .where('object_id', '=', objectId)
      .executeTakeFirst();
    return row && anyChangeOfRow(row);
  }

  /** The draft's change to the object, if the object is of that kind. */
  async changeOf<K extends TwinObjectType>(
    draftId: string,
    objectType: K,
    objectId: string,
    db: Db = this.db,
  ): Promise<DraftChange<K> | undefined> {
    const row = await db
      .selectFrom('twin_draft_changes')
      .selectAll()
      .where('draft_id', '=', draftId)
      .where('object_id', '=', objectId)
      .where('object_type', '=', objectType)
      .executeTakeFirst();
    return row && changeOfRow<K>(row);
  }

  /** A change of the draft's, new: `at` is its first and last change. */
  async insertChange<K extends TwinObjectType>(tx: Db, draftId: string, change: DraftChange<K>, at: string): Promise<void> {
    await tx
      .insertInto('twin_draft_changes')
      .values({
        id: change.id,
        draft_id: draftId,
        object_id: change.objectId,
        object_type: change.objectType,
        kind: change.kind,
        fields: changeFieldsText(change),
        library_model_id: change.libraryModelId,
        created_at: at,
        updated_at: at,
      })
      .execute();
  }

  async updateChange<K extends TwinObjectType>(tx: Db, id: string, change: FoldedChange<K>, at: string): Promise<void> {
    await tx
      .updateTable('twin_draft_changes')
      .set({ kind: change.kind, fields: changeFieldsText(change), updated_at: at })
      .where('id', '=', id)
      .execute();
  }

  async deleteChange(tx: Db, id: string): Promise<void> {
    await tx.deleteFrom('twin_draft_changes').where('id', '=', id).execute();
  }

  /** A page of the site's live objects of one kind, along (site_id, object_type, created_at, id). */
  async listObjects<K extends TwinObjectType>(
    siteId: string,
    objectType: K,
    limit: number,
    offset: number,
  ): Promise<TwinObject<K>[]> {
    const { rows } = await this.db.executeQuery<TwinObjectRow>(this.pageQuery(siteId, objectType, limit, offset));
    return rows.map((row) => objectOfRow<K>(row));
  }

  /** Every live object of the given ids, of whatever kind (a draft's view reads the ones its changes touch). */
  async objectsByIds(siteId: string, ids: string[], db: Db = this.db): Promise<AnyTwinObject[]> {
    if (ids.length === 0) return [];
    const rows = await db.selectFrom('twin_objects').selectAll().where('site_id', '=', siteId).where('id', 'in', ids).execute();
    return rows.map(anyObjectOfRow);
  }

  async allObjects<K extends TwinObjectType>(siteId: string, objectType: K, db: Db = this.db): Promise<TwinObject<K>[]> {
    const rows = await db
      .selectFrom('twin_objects')
      .selectAll()
      .where('site_id', '=', siteId)
      .where('object_type', '=', objectType)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => objectOfRow<K>(row));
  }

  /** The site's live object of that kind and id; with forUpdate on PostgreSQL held for a change. */
  async findObject<K extends TwinObjectType>(
    siteId: string,
    objectType: K,
    id: string,
    db: Db = this.db,
    forUpdate = false,
  ): Promise<TwinObject<K> | undefined> {
    const query = db
      .selectFrom('twin_objects')
      .selectAll()
      .where('site_id', '=', siteId)
      .where('object_type', '=', objectType)
      .where('id', '=', id);
    const row = await (forUpdate && this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    return row && objectOfRow<K>(row);
  }

  async insertObject<K extends TwinObjectType>(tx: Db, site: ObjectSite, object: TwinObject<K>): Promise<void> {
    await tx.insertInto('twin_objects').values(rowOfObject(object, site)).execute();
  }

  /** The object's row rewritten whole from its fields (its site and kind stay). */
  async replaceObject<K extends TwinObjectType>(tx: Db, site: ObjectSite, object: TwinObject<K>): Promise<void> {
    const { id, org_id: _org, site_id: _site, object_type: _type, ...fields } = rowOfObject(object, site);
    await tx.updateTable('twin_objects').set(fields).where('id', '=', id).execute();
  }

  /**
   * A live zone's delete (or a published removal): its children move to its parent and its
   * points of interest leave it, stamped as changed by `by` at `at`.
   */
  async detachZone(tx: Db, siteId: string, zoneId: string, parentId: string | null, by: string, at: string): Promise<void> {
    await tx
      .updateTable('twin_objects')
      .set({ parent_zone_id: parentId, updated_by: by, updated_at: at })
      .where('site_id', '=', siteId)
      .where('parent_zone_id', '=', zoneId)
      .execute();
    await tx
      .updateTable('twin_objects')
      .set({ zone_id: null, updated_by: by, updated_at: at })
      .where('site_id', '=', siteId)
      .where('zone_id', '=', zoneId)
      .execute();
  }

  async deleteObject(tx: Db, id: string): Promise<void> {
    await tx.deleteFrom('twin_objects').where('id', '=', id).execute();
  }
}
