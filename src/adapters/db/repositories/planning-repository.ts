import { type Kysely, sql, type Transaction } from 'kysely';
import type { TwinObject } from '../../../domain/twins/twin-objects.js';
import type { Dialect } from '../database.js';
import type { NodeLinkRow, PlanningLayoutRow, RegionalSchema } from '../schema.js';
import { layoutRowOfObject, objectOfLayoutRow } from './layout-model-asset-rows.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;
type Tx = Transaction<RegionalSchema>;

/** The layout a model asset is placed in, with its project and organization (columns of its row). */
type LayoutIds = Pick<PlanningLayoutRow, 'id' | 'org_id' | 'project_id'>;

/**
 * Planning projects' layouts and the model assets placed in them (docs/planning.md), these read
 * and written as the domain's objects (their columns and JSON: layout-model-asset-rows.ts). No
 * rules here.
 */
export class PlanningRepository {
  constructor(
    private readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  /** One write transaction of the planning services (the regional store's). */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insertLink(tx: Db, link: NodeLinkRow): Promise<void> {
    await tx.insertInto('node_links').values(link).execute();
  }

  async insertLayout(tx: Db, row: PlanningLayoutRow): Promise<void> {
    await tx.insertInto('planning_layouts').values(row).execute();
  }

  /** The organization's layout with that id: another organization's answers like a missing one. */
  async findLayout(orgId: string, id: string, db: Db = this.db): Promise<PlanningLayoutRow | undefined> {
    return db.selectFrom('planning_layouts').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The layout's row for a write into it: on PostgreSQL held FOR SHARE until the commit, so the
   * removal of its project (which deletes the layouts first, then their model assets) waits for
   * the write and then deletes what it wrote too. Writes into one layout never wait on each other.
   */
  async holdLayout(tx: Tx, id: string): Promise<PlanningLayoutRow | undefined> {
    const query = tx.selectFrom('planning_layouts').selectAll().where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forShare() : query).executeTakeFirst();
  }

  /** A page of the project's layouts, oldest first (the default one is the first made), with the total. */
  async layoutsOf(projectId: string, limit: number, offset: number): Promise<{ rows: PlanningLayoutRow[]; total: number }> {
    const rows = await this.db
      .selectFrom('planning_layouts')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await this.db
      .selectFrom('planning_layouts')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.count) };
  }

  /** How many model assets each layout holds (0 for one holding none). */
  async modelAssetCounts(layoutIds: string[]): Promise<Map<string, number>> {
    const counts = new Map(layoutIds.map((id) => [id, 0]));
    if (layoutIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('planning_model_assets')
      .select(['layout_id', sql<string | number>`count(*)`.as('count')])
      .where('layout_id', 'in', layoutIds)
      .groupBy('layout_id')
      .execute();
    for (const row of rows) counts.set(row.layout_id, Number(row.count));
    return counts;
  }

  /** A page of the layout's model assets along (layout_id, created_at, id). */
  async listModelAssets(layoutId: string, limit: number, offset: number): Promise<TwinObject<'modelAsset'>[]> {
    const rows = await this.db
      .selectFrom('planning_model_assets')
      .selectAll()
      .where('layout_id', '=', layoutId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(objectOfLayoutRow);
  }

  /** The layout's model asset with that id; with forUpdate on PostgreSQL held for a change. */
  async findModelAsset(
    layoutId: string,
    id: string,
    db: Db = this.db,
    forUpdate = false,
  ): Promise<TwinObject<'modelAsset'> | undefined> {
    const query = db.selectFrom('planning_model_assets').selectAll().where('layout_id', '=', layoutId).where('id', '=', id);
    const row = await (forUpdate && this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    return row && objectOfLayoutRow(row);
  }

  /** Where a layout's model asset is stored: the layout, its project and organization. */
  async insertModelAsset(tx: Db, layout: LayoutIds, object: TwinObject<'modelAsset'>): Promise<void> {
    await tx.insertInto('planning_model_assets').values(layoutRowOfObject(object, layout)).execute();
  }

  /** The model asset's row rewritten from its fields (its layout and library model stay). */
  async replaceModelAsset(tx: Db, layout: LayoutIds, object: TwinObject<'modelAsset'>): Promise<void> {
    const row = layoutRowOfObject(object, layout);
    const { id, org_id: _org, project_id: _project, layout_id: _layout, library_model_id: _model, ...fields } = row;
    await tx.updateTable('planning_model_assets').set(fields).where('id', '=', id).execute();
  }

  async deleteModelAsset(tx: Db, id: string): Promise<void> {
    await tx.deleteFrom('planning_model_assets').where('id', '=', id).execute();
  }

  /** The ids of a project's layouts. */
  async layoutIdsOf(projectId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('planning_layouts').select('id').where('project_id', '=', projectId).execute();
    return rows.map((row) => row.id);
  }

  /** The derivatives of the bundle a project was made from (its point clouds): what a plan shows as layers. */
  async derivativeIdsOfProject(projectId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('node_links as dependant')
      .innerJoin('node_links as derivative', 'derivative.from_id', 'dependant.from_id')
      .select('derivative.to_id as id')
      .where('dependant.to_id', '=', projectId)
      .where('dependant.kind', '=', 'dependant')
      .where('derivative.kind', '=', 'derivative')
      .execute();
    return rows.map((row) => row.id);
  }

  /** The bundle a project was made from (the source of its dependant link). */
  async bundleIdOfProject(projectId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('node_links')
      .select('from_id')
      .where('to_id', '=', projectId)
      .where('kind', '=', 'dependant')
      .executeTakeFirst();
    return row?.from_id;
  }
}
