import type { Kysely, Transaction } from 'kysely';
import type { LayerCandidate } from '../../../domain/twins/twin-layers.js';
import type { RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/**
 * A twin's layers: node_links of kind `twin` from a data bundle to its site, and the processed
 * derivatives that can serve them. Which derivative a layer shows is the domain's choice
 * (domain/twins/twin-layers.ts); this reads the rows.
 */
export class TwinLayerRepository {
  constructor(private readonly db: Kysely<RegionalSchema>) {}

  /** A consistent snapshot for several reads (a site's links and their candidates). */
  readTransaction<T>(work: (tx: Transaction<RegionalSchema>) => Promise<T>): Promise<T> {
    return this.db.transaction().setAccessMode('read only').execute(work);
  }

  /** Links the bundle to the site's twin; false when it already was. */
  async link(tx: Db, bundleId: string, siteId: string, at: string): Promise<boolean> {
    const inserted = await tx
      .insertInto('node_links')
      .values({ kind: 'twin', from_id: bundleId, to_id: siteId, created_at: at })
      .onConflict((conflict) => conflict.columns(['from_id', 'kind', 'to_id']).doNothing())
      .returning('from_id')
      .execute();
    return inserted.length > 0;
  }

  /** Removes the link; false when there was none. */
  async unlink(tx: Db, bundleId: string, siteId: string): Promise<boolean> {
    const result = await tx
      .deleteFrom('node_links')
      .where('kind', '=', 'twin')
      .where('from_id', '=', bundleId)
      .where('to_id', '=', siteId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The bundles linked to the site's twin that are not in the trash, in the order they were linked. */
  async linkedBundles(siteId: string, db: Db = this.db): Promise<string[]> {
    const rows = await db
      .selectFrom('node_links as l')
      .innerJoin('nodes as b', 'b.id', 'l.from_id')
      .select('l.from_id')
      .where('l.kind', '=', 'twin')
      .where('l.to_id', '=', siteId)
      .where('b.trashed_at', 'is', null)
      .orderBy('l.created_at')
      .orderBy('l.from_id')
      .execute();
    return rows.map((row) => row.from_id);
  }

  /** The bundles' succeeded processings whose derivative is not in the trash, newest first. */
  async candidates(bundleIds: string[], db: Db = this.db): Promise<LayerCandidate[]> {
    if (bundleIds.length === 0) return [];
    const rows = await db
      .selectFrom('processings as p')
      .innerJoin('nodes as d', 'd.id', 'p.derivative_node_id')
      // The derivative's stored object has the node's id: its format says whether it is a tileset.
      .leftJoin('stored_objects as o', 'o.id', 'd.id')
      .select(['p.bundle_id', 'p.derivative_node_id', 'd.kind', 'o.format', 'p.georeference', 'p.bounds', 'p.attributes'])
      .where('p.bundle_id', 'in', bundleIds)
      .where('p.state', '=', 'succeeded')
      .where('d.trashed_at', 'is', null)
      .orderBy('p.finished_at', 'desc')
      .orderBy('p.created_at', 'desc')
      .orderBy('p.id', 'desc')
      .execute();
    return rows.map((row) => ({
      bundleId: row.bundle_id,
      derivativeId: row.derivative_node_id as string,
      derivativeKind: row.kind,
      derivativeFormat: row.format,
      georeference: row.georeference,
      bounds: row.bounds,
      attributes: row.attributes,
    }));
  }

  async touchTwin(tx: Db, siteId: string, at: string): Promise<void> {
    await tx.updateTable('twins').set({ updated_at: at }).where('site_id', '=', siteId).execute();
  }
}
