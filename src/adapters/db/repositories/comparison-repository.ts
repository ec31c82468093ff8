import { type Kysely, sql, type Transaction } from 'kysely';
import type { ComparisonRow, ProcessingRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** The newest processing of a bundle that made a point cloud, with its input's bytes (for the cost). */
export type PointCloudProcessing = Pick<ProcessingRow, 'id' | 'point_count' | 'derivative_node_id'> & { input_bytes: number };

/** Comparisons of a region (docs/comparisons.md): their rows, and what a submission reads of its bundles. */
export class ComparisonRepository {
  constructor(private readonly db: Kysely<RegionalSchema>) {}

  transaction<T>(work: (tx: Transaction<RegionalSchema>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insert(tx: Db, row: ComparisonRow): Promise<void> {
    await tx.insertInto('comparisons').values(row).execute();
  }

  async find(id: string, db: Db = this.db): Promise<ComparisonRow | undefined> {
    return db.selectFrom('comparisons').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The site's comparisons, oldest first (createdAt, then id). */
  async ofSite(siteId: string, limit: number, offset: number): Promise<ComparisonRow[]> {
    return this.db
      .selectFrom('comparisons')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The ready comparisons the site's twin shows as layers, in the order they were linked. */
  async layersOfSite(siteId: string, db: Db = this.db): Promise<ComparisonRow[]> {
    return db
      .selectFrom('comparisons')
      .selectAll()
      .where('site_id', '=', siteId)
      .where('layer_linked_at', 'is not', null)
      .where('state', '=', 'ready')
      .orderBy('layer_linked_at')
      .orderBy('id')
      .execute();
  }

  async update(tx: Db, id: string, fields: Partial<Omit<ComparisonRow, 'id' | 'org_id' | 'site_id'>>): Promise<number> {
    const result = await tx.updateTable('comparisons').set(fields).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Links the comparison to its site's twin (at) or unlinks it (null); false when it already was so. */
  async setLayer(tx: Db, id: string, at: string | null): Promise<boolean> {
    const result = await tx
      .updateTable('comparisons')
      .set({ layer_linked_at: at })
      .where('id', '=', id)
      .where('layer_linked_at', at === null ? 'is not' : 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The bytes of the organization's comparisons' outputs: what they add to its storage use (docs/comparisons.md, "Limits"). */
  async bytesInUse(db: Db, orgId: string): Promise<number> {
    const row = await db
      .selectFrom('comparisons')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), sql<number>`0`).as('bytes'))
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  async delete(tx: Db, id: string): Promise<boolean> {
    const result = await tx.deleteFrom('comparisons').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * The bundle's newest succeeded processing whose derivative is a point cloud not in the trash:
   * what a comparison reads of the bundle (its input, its point count). Undefined when none.
   */
  async pointCloudProcessing(bundleId: string, db: Db = this.db): Promise<PointCloudProcessing | undefined> {
    return db
      .selectFrom('processings as p')
      .innerJoin('nodes as d', 'd.id', 'p.derivative_node_id')
      .innerJoin('bundles as b', 'b.node_id', 'p.bundle_id')
      .select(['p.id', 'p.point_count', 'p.derivative_node_id', 'b.input_bytes'])
      .where('p.bundle_id', '=', bundleId)
      .where('p.state', '=', 'succeeded')
      .where('d.kind', '=', 'pointCloud')
      .where('d.trashed_at', 'is', null)
      .orderBy('p.finished_at', 'desc')
      .orderBy('p.id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }
}
