import { randomUUID } from 'node:crypto';
import type { BundleRepository } from '../../adapters/db/repositories/bundle-repository.js';
import type { NodeRepository } from '../../adapters/db/repositories/node-repository.js';
import { newNodeRow } from '../../adapters/db/repositories/node-rows.js';
import { type NodeTreeRepository, parentPath } from '../../adapters/db/repositories/node-tree-repository.js';
import { derivativeObjectRow, type UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { BundleRow, NodeRow, ProcessingRow, StoredObjectRow } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import { ApiError } from '../../domain/errors.js';
import {
  fail,
  INTERRUPTED_LAUNCH_MS,
  isFinished,
  ProcessingInputGone,
  RUNNING,
  submit,
  succeed,
  undoSubmission,
} from '../../domain/processing/bundle-lifecycle.js';
import { derivativeBlobPrefix, derivativeName, derivativeOf, type ProcessorOutput } from '../../domain/processing/derivatives.js';
import { PROCESS_BUNDLE } from '../../domain/processing/jobs.js';
import type { Region } from '../../domain/regions.js';
import type { Clock } from '../../ports/clock.js';
import { CapacityExceededError, type JobQueue } from '../../ports/job-queue.js';
import { mainInputFile } from '../uploads/bundle-service.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';

export interface ProcessingLifecycleOptions {
  region: Region;
  clock: Clock;
  /** Where the submission's job is queued. */
  jobs: Pick<JobQueue, 'enqueue'>;
  bundles: BundleRepository;
  uploads: Pick<UploadRepository, 'objectsOfSession' | 'insertObject' | 'queueDeletions'>;
  nodes: Pick<NodeRepository, 'findById' | 'insert' | 'getThumbnail' | 'putThumbnail'>;
  tree: Pick<NodeTreeRepository, 'transaction' | 'lock' | 'lockForChild' | 'insertLink'>;
  outbox: Pick<WebhookOutbox, 'record'>;
}

/** A submission the caller checked (access, input, cost): what start() records and queues. */
export interface Submission {
  /** The bundle's node and row as read with the access check: an undo puts them back. */
  node: NodeRow;
  bundle: BundleRow;
  cost: number;
  idempotencyKey: string | undefined;
  createdBy: string;
  /** The organization's own processing slots; null: no limit of its own. */
  orgSlots: number | null;
}

/** What a processing's job stored under the derivative's prefix (derivativeBlobPrefix), for succeed(). */
export interface ProcessingOutput {
  kind: ProcessorOutput;
  /** The stored object's name: a point cloud's tileset file. */
  name: string;
  bytes: number;
  /** Where a point cloud sits (on the globe, or local and why) and its extent: for the twin's layers. */
  georeference: unknown | null;
  bounds: { min: unknown; max: unknown } | null;
  /** What a point cloud's tiles carry beside positions (a subset of rgb, intensity, classification); null for other outputs. */
  attributes: string[] | null;
  /** The points a point cloud's tiles hold (they price a comparison); null for other outputs. */
  pointCount: number | null;
  thumbnail: { bytes: Buffer; contentType: string };
}

/** The refusal of a processing or a comparison when the organization's own slots are all taken. */
export function organizationSlotsTaken(slots: number): ApiError {
  return new ApiError('InsufficientProcessingCapacity', `The organization's ${slots} processing slots are taken; retry later`);
}

/** A submission with an Idempotency-Key that an earlier one (committed while this one waited) used. */
class ReplayedSubmission extends Error {}

/**
 * The lifecycle of a bundle's processing, one method per step of domain/processing/bundle-lifecycle.ts:
 * start (the submission, with its job), markRunning, succeed and fail. The routes start
 * processings (ProcessingService); the worker's job (jobs/process-bundle.ts) does the rest. Each
 * step is one transaction with its webhook event.
 */
export class ProcessingLifecycle {
  constructor(private readonly options: ProcessingLifecycleOptions) {}

  private now(): string {
    return this.options.clock.now().toISOString();
  }

  /**
   * The processing an Idempotency-Key already started on the bundle, if any. One whose job is not
   * queued yet may still be undone (start() below): its repeat is refused with IdempotencyKeyInUse
   * rather than answered with a success that may not last.
   */
  async earlier(bundleId: string, idempotencyKey: string): Promise<ProcessingRow | undefined> {
    const earlier = await this.options.bundles.processingByKey(bundleId, idempotencyKey);
    if (earlier?.launch_pending) throw new ApiError('IdempotencyKeyInUse');
    return earlier;
  }

  /**
   * Records the processing (queued, its launch pending) and the bundle (processing) in one
   * transaction, then queues its job within the deployment's capacity and marks the launch done.
   * A submission whose key an earlier one used answers that one (`replayed`) once its launch is
   * done; a job that could not be queued undoes the submission.
   */
  async start(submission: Submission): Promise<{ replayed: boolean; processing: ProcessingRow }> {
    const { node, bundle, idempotencyKey } = submission;
    const { bundles, tree, jobs } = this.options;
    const now = this.now();
    const id = randomUUID();
    let row: ProcessingRow;
    try {
      row = await tree.transaction(async (tx) => {
        // The organization's row orders its submissions: two cannot both take its last slot.
        await tree.lock(tx, node.org_id);
        if (idempotencyKey && (await bundles.processingByKey(node.id, idempotencyKey, tx))) throw new ReplayedSubmission();
        const step = submit((await bundles.find(node.id, tx))?.state);
        const slots = submission.orgSlots;
        if (slots !== null && (await bundles.activeProcessings(tx, node.org_id)) >= slots) throw organizationSlotsTaken(slots);
        const processing: ProcessingRow = {
          id,
          org_id: node.org_id,
          bundle_id: node.id,
          state: step.processing,
          cost: submission.cost,
          idempotency_key: idempotencyKey ?? null,
          failure_reason: null,
          derivative_node_id: null,
          georeference: null,
          job_id: null,
          bounds: null,
          attributes: null,
          point_count: null,
          launch_pending: 1,
          created_by: submission.createdBy,
          created_at: now,
          started_at: null,
          finished_at: null,
        };
        await bundles.insertProcessing(tx, processing);
        await bundles.setState(tx, node.id, { ...step.bundle, at: now });
        return processing;
      });
    } catch (error) {
      if (idempotencyKey && (error instanceof ReplayedSubmission || isUniqueViolation(error))) {
        const earlier = await this.earlier(node.id, idempotencyKey);
        if (earlier) return { replayed: true, processing: earlier };
      }
      throw error;
    }

    try {
      // The deployment's capacity (the slots of the workers alive) is checked with the insert, atomically.
      await jobs.enqueue(
        PROCESS_BUNDLE,
        { region: this.options.region, processingId: row.id },
        { singletonKey: row.id, withinCapacity: true },
      );
    } catch (error) {
      // The job did not launch: the submission is undone, so that it can be retried as is.
      await tree.transaction(async (tx) => {
        await bundles.deleteProcessing(tx, row.id);
        await bundles.setState(tx, node.id, { ...undoSubmission(bundle.state), at: bundle.updated_at, nodeAt: node.updated_at });
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
    await this.launched(row.id);
    return { replayed: false, processing: { ...row, launch_pending: 0 } };
  }

  /** From now on a repeat of the key is answered with this processing: its job is queued, it stays. */
  private async launched(processingId: string): Promise<void> {
    await this.options.tree.transaction((tx) => this.options.bundles.updateProcessing(tx, processingId, { launch_pending: 0 }));
  }

  /**
   * Finishes the launches a stopped process left pending (INTERRUPTED_LAUNCH_MS after their
   * submission): each job is queued by the processing's id, which finds the one the process may
   * have queued before it stopped, and without the capacity check, which the submission passed at
   * its commit. Returns how many were finished; the housekeeper calls it (docs/uploads.md).
   */
  async finishInterruptedLaunches(limit = 100): Promise<number> {
    const before = new Date(this.options.clock.now().getTime() - INTERRUPTED_LAUNCH_MS).toISOString();
    const pending = await this.options.bundles.pendingLaunches(before, limit);
    for (const processing of pending) {
      await this.options.jobs.enqueue(
        PROCESS_BUNDLE,
        { region: this.options.region, processingId: processing.id },
        { singletonKey: processing.id },
      );
      await this.launched(processing.id);
    }
    return pending.length;
  }

  /**
   * A worker runs the processing's job: the processing as it was before, or undefined when there
   * is nothing to run (gone, or finished already).
   */
  async markRunning(processingId: string, jobId: string): Promise<ProcessingRow | undefined> {
    const { bundles, tree, outbox } = this.options;
    const processing = await bundles.findProcessing(processingId);
    if (!processing || isFinished(processing.state)) return undefined;
    const startedAt = this.now();
    await tree.transaction(async (tx) => {
      // A job that runs was queued: its launch is done, even if start() did not get to say so.
      await bundles.updateProcessing(tx, processing.id, {
        state: RUNNING,
        started_at: startedAt,
        job_id: jobId,
        launch_pending: 0,
      });
      const ids = { bundleId: processing.bundle_id, processingId: processing.id };
      await outbox.record(tx, processing.org_id, 'bundle.processing.started', ids);
    });
    return processing;
  }

  /**
   * What the processing works on: the main file of the bundle's finalized input, and every file of
   * its session (a mesh's materials, buffers and textures beside it).
   */
  async inputOf(processing: ProcessingRow): Promise<{ main: StoredObjectRow; files: StoredObjectRow[] }> {
    const bundle = await this.options.bundles.find(processing.bundle_id);
    if (!bundle?.input_session_id) throw new ProcessingInputGone('The bundle has no finalized input');
    const files = await this.options.uploads.objectsOfSession(bundle.input_session_id);
    const main = mainInputFile(files);
    if (!main) throw new ProcessingInputGone('The bundle has no finalized input');
    return { main, files };
  }

  /**
   * The output is stored: in one transaction the derivative node beside the bundle (under the
   * parent's branch lock), its link, its stored object and thumbnail, the processing succeeded
   * and the bundle ready, and the event.
   */
  async succeed(processing: ProcessingRow, output: ProcessingOutput): Promise<void> {
    const { bundles, uploads, nodes, tree, outbox } = this.options;
    const now = this.now();
    const derivative = derivativeOf(output.kind);
    const source = await nodes.findById(processing.bundle_id);
    if (!source?.parent_id) throw new ProcessingInputGone('The bundle is gone');
    const step = succeed();
    await tree.transaction(async (tx) => {
      const parent = await tree.lockForChild(tx, { id: source.parent_id as string, path: parentPath(source.path) });
      if (!parent || parent.trashed_at) throw new ProcessingInputGone("The bundle's folder is in the trash");
      const name = derivativeName(source.name, derivative.nameSuffix);
      const row: NodeRow = {
        ...newNodeRow(parent, { id: processing.id, kind: derivative.nodeKind, name, now }),
        size_bytes: output.bytes,
      };
      await nodes.insert(row, tx);
      await tree.insertLink(tx, { kind: 'derivative', from_id: source.id, to_id: row.id, created_at: now });
      const stored = derivativeObjectRow({
        id: row.id,
        orgId: processing.org_id,
        name: output.name,
        bytes: output.bytes,
        blobPrefix: derivativeBlobPrefix(processing.org_id, processing.id),
        format: derivative.format,
        createdBy: processing.created_by,
        at: now,
      });
      await uploads.insertObject(tx, stored);
      await bundles.updateProcessing(tx, processing.id, {
        state: step.processing,
        derivative_node_id: row.id,
        finished_at: now,
        georeference: output.georeference === null ? null : JSON.stringify(output.georeference),
        bounds: output.bounds === null ? null : JSON.stringify({ min: output.bounds.min, max: output.bounds.max }),
        attributes: output.attributes === null ? null : JSON.stringify(output.attributes),
        point_count: output.pointCount,
      });
      await bundles.setState(tx, source.id, { ...step.bundle, at: now });
      const ids = { bundleId: processing.bundle_id, processingId: processing.id, derivativeNodeId: row.id };
      await outbox.record(tx, processing.org_id, 'bundle.processing.succeeded', ids);
      // In the same transaction: a bundle is never seen ready without its thumbnail.
      const { bytes, contentType } = output.thumbnail;
      await nodes.putThumbnail(row.id, contentType, bytes, `"${processing.id}"`, now, tx);
      if (!(await nodes.getThumbnail(source.id, tx))) {
        await nodes.putThumbnail(source.id, contentType, bytes, `"${processing.id}"`, now, tx);
      }
    });
  }

  /**
   * The processing's job failed (its handler threw, or the watchdog saw no heartbeat): the
   * processing records why, the bundle is failed and its node's isFailed set; whatever output
   * the job wrote goes to the deletion queue. A finished processing is left as it is.
   */
  async fail(processingId: string, reason: string): Promise<void> {
    const { bundles, uploads, tree, outbox } = this.options;
    const processing = await bundles.findProcessing(processingId);
    if (!processing || isFinished(processing.state)) return;
    const now = this.now();
    const step = fail();
    await tree.transaction(async (tx) => {
      await bundles.updateProcessing(tx, processing.id, { state: step.processing, failure_reason: reason, finished_at: now });
      await bundles.setState(tx, processing.bundle_id, { ...step.bundle, at: now });
      await uploads.queueDeletions(tx, [{ key: derivativeBlobPrefix(processing.org_id, processing.id) }], now);
      const ids = { bundleId: processing.bundle_id, processingId: processing.id, reason };
      await outbox.record(tx, processing.org_id, 'bundle.processing.failed', ids);
    });
  }
}
