import { randomUUID } from 'node:crypto';
import type { BundleRow, ProcessingRow } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { processingCost } from '../../domain/processing/cost.js';
import type { Region } from '../../domain/regions.js';
import type { Platform, RegionContext } from '../../platform.js';
import { CapacityExceededError, defineJob } from '../../ports/job-queue.js';
import type { BundleService } from '../uploads/bundle-service.js';
import type { UploadService } from '../uploads/upload-service.js';
import { processingView } from './processing-view.js';

/** The job the worker runs for a processing: version 1 of its payload. */
export const PROCESS_BUNDLE = defineJob<{ region: Region; processingId: string }>('process-bundle', 1);

/** A submission with an Idempotency-Key that an earlier one (committed while this one waited) used. */
class ReplayedSubmission extends Error {}

/**
 * Processing a bundle (spec: states and transitions): the cost estimate, and the submission
 * that checks cost, input and capacity, records the processing and launches its job.
 */
export class ProcessingService {
  constructor(
    private readonly platform: Platform,
    private readonly region: RegionContext,
    private readonly bundles: BundleService,
    private readonly uploads: UploadService,
  ) {}

  /** The current cost: a function of the finalized input only. */
  async cost(principal: Principal, bundleId: string) {
    const { bundle } = await this.bundles.authorized(principal, bundleId, 'read');
    return this.costOf(bundle);
  }

  private async costOf(bundle: BundleRow) {
    const bundleId = bundle.node_id;
    if (!bundle.input_session_id) throw new ApiError('NoInputDataFoundForProcessing', 'Finalize an upload session first');
    const files = await this.uploads.uploads.objectsOfSession(bundle.input_session_id);
    const input = { inputBytes: bundle.input_bytes, fileCount: files.length, format: bundle.input_format };
    return {
      bundleId,
      cost: processingCost(input),
      unit: 'credits',
      inputBytes: input.inputBytes,
      fileCount: input.fileCount,
      format: input.format,
    };
  }

  /**
   * Starts processing. With an Idempotency-Key, a repeated submission answers with the
   * processing the first one started, and never starts or bills a second job.
   */
  async submit(principal: Principal, bundleId: string, submittedCost: number, idempotencyKey: string | undefined) {
    const { node, bundle } = await this.bundles.authorized(principal, bundleId, 'process');
    if (idempotencyKey) {
      const earlier = await this.bundles.bundles.processingByKey(this.bundles.bundles.db, node.id, idempotencyKey);
      if (earlier) return { replayed: true, processing: processingView(earlier) };
    }
    const { cost } = await this.costOf(bundle);
    if (submittedCost !== cost)
      throw new ApiError('ProcessingCostMismatch', `The current cost is ${cost}; fetch a fresh estimate`);
    const { clock, jobs } = this.platform;

    const now = clock.now().toISOString();
    const row: ProcessingRow = {
      id: randomUUID(),
      org_id: node.org_id,
      bundle_id: node.id,
      state: 'queued',
      cost,
      idempotency_key: idempotencyKey ?? null,
      failure_reason: null,
      derivative_node_id: null,
      georeference: null,
      job_id: null,
      bounds: null,
      created_by: principal.userId,
      created_at: now,
      started_at: null,
      finished_at: null,
    };
    const org = await this.platform.directory.findOrganization(node.org_id);
    const { tree } = this.region;
    try {
      await tree.transaction(async (tx) => {
        // The organization's row orders its submissions: two cannot both take its last slot.
        await tree.lock(tx, node.org_id);
        if (idempotencyKey && (await this.bundles.bundles.processingByKey(tx, node.id, idempotencyKey)))
          throw new ReplayedSubmission();
        const current = await this.bundles.bundles.find(node.id, tx);
        if (current?.state === 'processing') throw new ApiError('ProcessingAlreadyRunning');
        const slots = org?.processing_slots ?? null;
        if (slots !== null && (await this.bundles.bundles.activeProcessings(tx, node.org_id)) >= slots) {
          throw new ApiError(
            'InsufficientProcessingCapacity',
            `The organization's ${slots} processing slots are taken; retry later`,
          );
        }
        await this.bundles.bundles.insertProcessing(tx, row);
        await this.bundles.bundles.setState(tx, node.id, { state: 'processing', isProcessing: 1, isFailed: 0, at: now });
      });
    } catch (error) {
      if (idempotencyKey && (error instanceof ReplayedSubmission || isUniqueViolation(error))) {
        const earlier = await this.bundles.bundles.processingByKey(this.bundles.bundles.db, node.id, idempotencyKey);
        if (earlier) return { replayed: true, processing: processingView(earlier) };
      }
      throw error;
    }

    try {
      // The deployment's capacity (the slots of the workers alive) is checked with the insert, atomically.
      await jobs.enqueue(
        PROCESS_BUNDLE,
        { region: this.region.region, processingId: row.id },
        { singletonKey: row.id, withinCapacity: true },
      );
    } catch (error) {
      // The job did not launch: the submission is undone, so that it can be retried as is.
      await tree.transaction(async (tx) => {
        await this.bundles.bundles.deleteProcessing(tx, row.id);
        await this.bundles.bundles.setState(tx, node.id, {
          state: bundle.state,
          isProcessing: node.is_processing,
          isFailed: node.is_failed,
          at: bundle.updated_at,
          nodeAt: node.updated_at,
        });
      });
      if (error instanceof CapacityExceededError) {
        throw new ApiError(
          'InsufficientProcessingCapacity',
          error.slots === 0
            ? 'No processing worker is running; retry later, or ask the operator to start one'
            : 'Every processing slot of the deployment is taken; retry later',
        );
      }
      throw new ApiError('FailedToLaunchProcessing', 'The processing job could not be queued; retry');
    }
    return { replayed: false, processing: processingView(row) };
  }
}
