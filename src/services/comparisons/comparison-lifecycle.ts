import type { Transaction } from 'kysely';
import type { BundleRepository } from '../../adapters/db/repositories/bundle-repository.js';
import type { ComparisonRepository } from '../../adapters/db/repositories/comparison-repository.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { ComparisonRow, RegionalSchema, StoredObjectRow } from '../../adapters/db/schema.js';
import type { ComparisonHistogram, ComparisonStats } from '../../domain/comparisons/comparison-figures.js';
import { isFinished } from '../../domain/comparisons/comparison-lifecycle.js';
import { comparisonBlobPrefix } from '../../domain/comparisons/comparison-outputs.js';
import { ApiError } from '../../domain/errors.js';
import { ProcessingInputGone } from '../../domain/processing/bundle-lifecycle.js';
import { COMPARE_BUNDLES } from '../../domain/processing/jobs.js';
import type { Region } from '../../domain/regions.js';
import type { Clock } from '../../ports/clock.js';
import { CapacityExceededError, type JobQueue } from '../../ports/job-queue.js';
import { organizationSlotsTaken } from '../processing/processing-lifecycle.js';
import { mainInputFile } from '../uploads/bundle-service.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';

export interface ComparisonLifecycleOptions {
  region: Region;
  clock: Clock;
  /** Where a comparison's job is queued, and its progress read. */
  jobs: Pick<JobQueue, 'enqueue' | 'get'>;
  comparisons: ComparisonRepository;
  /** The bundles' rows; what holds the organization's processing slots (its processings and comparisons). */
  bundles: Pick<BundleRepository, 'find' | 'activeProcessings'>;
  /** The organization's row lock, which orders its submissions: two cannot both take its last slot. */
  tree: Pick<NodeTreeRepository, 'lock'>;
  /** The bundles' input files; a failed comparison's files go to the deletion queue. */
  uploads: Pick<UploadRepository, 'objectsOfSession' | 'queueDeletions'>;
  outbox: Pick<WebhookOutbox, 'record'>;
}

/** What a comparison's job stored: its figures and its tiles' frame and attributes. */
export interface ComparisonOutput {
  stats: ComparisonStats;
  histogram: ComparisonHistogram;
  georeference: unknown;
  bounds: { min: unknown; max: unknown };
  attributes: string[];
  /** The bytes stored under the comparison's prefix (tiles and CSV): its share of the storage use. */
  bytes: number;
}

/**
 * The lifecycle of a comparison (docs/comparisons.md, "States"): start (the row and its job),
 * markRunning, succeed and fail. The routes start comparisons (ComparisonService); the worker's
 * job (jobs/compare-bundles.ts) does the rest. Each step is one transaction with its webhook event.
 */
export class ComparisonLifecycle {
  constructor(private readonly options: ComparisonLifecycleOptions) {}

  private now(): string {
    return this.options.clock.now().toISOString();
  }

  /**
   * Records the comparison (queued) and queues its job; a job that could not be queued undoes the
   * row. It takes one of the organization's processing slots (`orgSlots`, null: no limit of its
   * own) as a processing does: refused as a processing is when they are all taken.
   */
  async start(
    row: ComparisonRow,
    orgSlots: number | null,
    audit: (tx: Transaction<RegionalSchema>) => Promise<void>,
  ): Promise<void> {
    const { comparisons, jobs, bundles, tree } = this.options;
    await comparisons.transaction(async (tx) => {
      await tree.lock(tx, row.org_id);
      if (orgSlots !== null && (await bundles.activeProcessings(tx, row.org_id)) >= orgSlots)
        throw organizationSlotsTaken(orgSlots);
      await comparisons.insert(tx, row);
      await audit(tx);
    });
    try {
      await jobs.enqueue(
        COMPARE_BUNDLES,
        { region: this.options.region, comparisonId: row.id },
        { singletonKey: row.id, withinCapacity: true },
      );
    } catch (error) {
      // The job did not launch: nothing of the submission stays, so that it can be retried as is.
      await comparisons.transaction((tx) => comparisons.delete(tx, row.id));
      if (error instanceof CapacityExceededError) {
        throw new ApiError(
          'InsufficientProcessingCapacity',
          error.slots === 0
            ? 'No processing worker is running; retry later, or ask the operator to start one'
            : 'Every processing slot of the deployment is taken; retry later',
        );
      }
      throw new ApiError('FailedToLaunchProcessing', 'The comparison job could not be queued; retry');
    }
  }

  /** A running comparison's progress (0..1) as its job last reported it; null otherwise. */
  async progress(row: ComparisonRow): Promise<number | null> {
    if (row.state !== 'running' || !row.job_id) return null;
    return (await this.options.jobs.get(row.job_id))?.progress ?? null;
  }

  /** A worker runs the comparison's job: the row, or undefined when there is nothing to run (gone, or finished). */
  async markRunning(comparisonId: string, jobId: string): Promise<ComparisonRow | undefined> {
    const { comparisons } = this.options;
    const row = await comparisons.find(comparisonId);
    if (!row || isFinished(row.state)) return undefined;
    const startedAt = this.now();
    await comparisons.transaction((tx) =>
      comparisons.update(tx, row.id, { state: 'running', started_at: startedAt, job_id: jobId }),
    );
    return row;
  }

  /** The main input file of each bundle (full resolution, what their processings read). */
  async inputsOf(row: ComparisonRow): Promise<{ reference: StoredObjectRow; compared: StoredObjectRow }> {
    const input = async (bundleId: string) => {
      const bundle = await this.options.bundles.find(bundleId);
      const main = bundle?.input_session_id
        ? mainInputFile(await this.options.uploads.objectsOfSession(bundle.input_session_id))
        : undefined;
      if (!main) throw new ProcessingInputGone('A compared bundle has no finalized input any more');
      return main;
    };
    return { reference: await input(row.reference_bundle_id), compared: await input(row.compared_bundle_id) };
  }

  /** Whether the comparison was deleted: its job then removes what it wrote, whether it succeeds or fails. */
  async gone(comparisonId: string): Promise<boolean> {
    return (await this.options.comparisons.find(comparisonId)) === undefined;
  }

  /** The outputs are stored: the figures and ready, with the event. False when the comparison went meanwhile. */
  async succeed(row: ComparisonRow, output: ComparisonOutput): Promise<boolean> {
    const { comparisons, outbox } = this.options;
    const now = this.now();
    return comparisons.transaction(async (tx) => {
      const current = await comparisons.find(row.id, tx);
      if (!current || isFinished(current.state)) return false;
      await comparisons.update(tx, row.id, {
        state: 'ready',
        stats: JSON.stringify(output.stats),
        histogram: JSON.stringify(output.histogram),
        georeference: JSON.stringify(output.georeference),
        bounds: JSON.stringify({ min: output.bounds.min, max: output.bounds.max }),
        attributes: JSON.stringify(output.attributes),
        size_bytes: output.bytes,
        finished_at: now,
      });
      await outbox.record(tx, row.org_id, 'comparison.succeeded', this.eventIds(row));
      return true;
    });
  }

  /**
   * The comparison's job failed (its handler threw, or the watchdog saw no heartbeat): it records
   * why; whatever files the job wrote go to the deletion queue. A finished one is left as it is.
   */
  async fail(comparisonId: string, reason: string): Promise<void> {
    const { comparisons, uploads, outbox } = this.options;
    const row = await comparisons.find(comparisonId);
    if (!row || isFinished(row.state)) return;
    const now = this.now();
    await comparisons.transaction(async (tx) => {
      await comparisons.update(tx, row.id, { state: 'failed', failure_reason: reason, finished_at: now });
      await uploads.queueDeletions(tx, [{ key: comparisonBlobPrefix(row.org_id, row.id) }], now);
      await outbox.record(tx, row.org_id, 'comparison.failed', { ...this.eventIds(row), reason });
    });
  }

  private eventIds(row: ComparisonRow) {
    return {
      comparisonId: row.id,
      siteId: row.site_id,
      referenceBundleId: row.reference_bundle_id,
      comparedBundleId: row.compared_bundle_id,
    };
  }
}
