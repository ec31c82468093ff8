import type { Kysely, Transaction } from 'kysely';
import type { BundleStatus } from '../../../domain/processing/bundle-lifecycle.js';
import type { ChangeVersions, Dialect } from '../database.js';
import type { BundleRow, ProcessingRow, RegionalSchema } from '../schema.js';
import {
  type BundleExpansion,
  type BundleViewStatement,
  type BundleWithExpansions,
  bundleViewStatement,
  toBundleWithExpansions,
} from './bundle-view-rows.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

export type ProcessingWithDerivative = ProcessingRow & {
  derivative_kind: string | null;
  /** The derivative's stored format: whether it is a tileset (domain/processing/tileset-files.ts servesTileset). */
  derivative_format: string | null;
  derivative_trashed_at: string | null;
};

/** Data bundles and their processings in one region. */
export class BundleRepository {
  /** The view's statement per set of expansions (at most eight), compiled on first use. */
  private readonly viewStatements = new Map<string, BundleViewStatement>();

  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
    private readonly versions: ChangeVersions = {},
  ) {}

  /** The bundle, its node's state and the expansions asked for, in one statement (bundle-view-rows.ts). */
  async findWithExpansions(
    orgId: string,
    nodeId: string,
    expand: ReadonlySet<BundleExpansion>,
  ): Promise<BundleWithExpansions | undefined> {
    const key = `${expand.has('processings')} ${expand.has('components')} ${expand.has('thumbnail')}`;
    let statement = this.viewStatements.get(key);
    if (!statement) {
      statement = bundleViewStatement(this.db, this.dialect, expand);
      this.viewStatements.set(key, statement);
    }
    const query = statement(orgId, nodeId);
    // SQLite: the access version read in the same snapshot (PostgreSQL's statement selects it).
    const { readAtChangeVersion } = this.versions;
    if (readAtChangeVersion) {
      const { rows, version } = readAtChangeVersion<Record<string, unknown>>(query);
      return toBundleWithExpansions(rows[0], version);
    }
    const { rows } = await this.db.executeQuery<Record<string, unknown>>(query);
    return toBundleWithExpansions(rows[0]);
  }

  async insert(tx: Db, row: BundleRow): Promise<void> {
    await tx.insertInto('bundles').values(row).execute();
  }

  async find(nodeId: string, db: Db = this.db): Promise<BundleRow | undefined> {
    return db.selectFrom('bundles').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
  }

  /**
   * The bundle with its node's processing flags, size and time, read in one statement: setState
   * writes the state and the flags together, and a reader must not see one without the other.
   */
  async findWithNodeState(nodeId: string, db: Db = this.db) {
    return db
      .selectFrom('bundles as b')
      .innerJoin('nodes as n', 'n.id', 'b.node_id')
      .selectAll('b')
      .select(['n.is_processing', 'n.is_failed', 'n.size_bytes', 'n.updated_at as node_updated_at'])
      .where('b.node_id', '=', nodeId)
      .executeTakeFirst();
  }

  async update(tx: Db, nodeId: string, fields: Partial<Omit<BundleRow, 'node_id' | 'org_id'>>): Promise<void> {
    await tx.updateTable('bundles').set(fields).where('node_id', '=', nodeId).execute();
  }

  /**
   * A finalized session becomes the bundle's input; the bundle's size is its input, 360-degree
   * videos included. Returns the bundle's row as it is now (its node's size and updated_at follow the input).
   */
  async recordInput(
    tx: Db,
    bundle: BundleRow,
    input: { sessionId: string; bytes: number; format: string | null; triangles: number | null; at: string },
  ): Promise<BundleRow> {
    const fields = {
      state: 'uploaded',
      input_session_id: input.sessionId,
      input_bytes: input.bytes,
      input_format: input.format,
      input_triangles: input.triangles,
      updated_at: input.at,
    } satisfies Partial<BundleRow>;
    await this.update(tx, bundle.node_id, fields);
    await tx
      .updateTable('nodes')
      .set({ size_bytes: input.bytes, updated_at: input.at })
      .where('id', '=', bundle.node_id)
      .execute();
    return { ...bundle, ...fields };
  }

  /**
   * A bundle's state and its node's isProcessing and isFailed, which move together (the domain's
   * bundleStatus). `nodeAt` (default `at`) is the node's updated_at: an undo puts back what was there.
   */
  async setState(tx: Db, bundleId: string, change: BundleStatus & { at: string; nodeAt?: string }): Promise<void> {
    await tx.updateTable('bundles').set({ state: change.state, updated_at: change.at }).where('node_id', '=', bundleId).execute();
    await tx
      .updateTable('nodes')
      .set({ is_processing: change.isProcessing, is_failed: change.isFailed, updated_at: change.nodeAt ?? change.at })
      .where('id', '=', bundleId)
      .execute();
  }

  async insertProcessing(tx: Db, row: ProcessingRow): Promise<void> {
    await tx.insertInto('processings').values(row).execute();
  }

  async findProcessing(id: string, db: Db = this.db): Promise<ProcessingRow | undefined> {
    return db.selectFrom('processings').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The processing that made a derivative node (its georeference, for the twin). */
  async processingOfDerivative(derivativeNodeId: string, db: Db = this.db): Promise<ProcessingRow | undefined> {
    return db.selectFrom('processings').selectAll().where('derivative_node_id', '=', derivativeNodeId).executeTakeFirst();
  }

  /** The processing an Idempotency-Key started on this bundle: in `db` (a transaction), or outside any. */
  async processingByKey(bundleId: string, idempotencyKey: string, db: Db = this.db): Promise<ProcessingRow | undefined> {
    return db
      .selectFrom('processings')
      .selectAll()
      .where('bundle_id', '=', bundleId)
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
  }

  /** A bundle's processings, oldest first, each with the kind, stored format and trash time of its derivative node, if any. */
  async processingsOf(bundleId: string): Promise<ProcessingWithDerivative[]> {
    return this.db
      .selectFrom('processings as p')
      .leftJoin('nodes as d', 'd.id', 'p.derivative_node_id')
      .leftJoin('stored_objects as o', 'o.id', 'p.derivative_node_id')
      .selectAll('p')
      .select(['d.kind as derivative_kind', 'o.format as derivative_format', 'd.trashed_at as derivative_trashed_at'])
      .where('p.bundle_id', '=', bundleId)
      .orderBy('p.created_at')
      .orderBy('p.id')
      .execute();
  }

  /**
   * What holds an organization's processing slots: its queued or running processings and
   * comparisons together (docs/comparisons.md, "Limits").
   */
  async activeProcessings(tx: Db, orgId: string): Promise<number> {
    const count = async (table: 'processings' | 'comparisons') =>
      Number(
        (
          await tx
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('state', 'in', ['queued', 'running'])
            .where('org_id', '=', orgId)
            .executeTakeFirst()
        )?.n ?? 0,
      );
    return (await count('processings')) + (await count('comparisons'));
  }

  /** Processings whose launch is still pending, submitted before `before`, oldest first (a partial index holds only these). */
  async pendingLaunches(before: string, limit: number): Promise<ProcessingRow[]> {
    return this.db
      .selectFrom('processings')
      .selectAll()
      .where('launch_pending', '=', 1)
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }

  async deleteProcessing(tx: Db, id: string): Promise<void> {
    await tx.deleteFrom('processings').where('id', '=', id).execute();
  }

  async updateProcessing(tx: Db, id: string, fields: Partial<Omit<ProcessingRow, 'id' | 'org_id' | 'bundle_id'>>): Promise<void> {
    await tx.updateTable('processings').set(fields).where('id', '=', id).execute();
  }
}
