import type { LibraryModelRepository } from '../../adapters/db/repositories/library-model-repository.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { LibraryModelRow } from '../../adapters/db/schema.js';
import { ApiError } from '../../domain/errors.js';
import { modelPreviewKeys } from '../../domain/library/models.js';
import { PREVIEW_LIBRARY_MODEL } from '../../domain/processing/jobs.js';
import type { Region } from '../../domain/regions.js';
import type { Clock } from '../../ports/clock.js';
import type { JobQueue } from '../../ports/job-queue.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';

export interface ModelPreviewLifecycleOptions {
  region: Region;
  clock: Clock;
  /** Where the preview job is queued. */
  jobs: Pick<JobQueue, 'enqueue'>;
  models: Pick<LibraryModelRepository, 'findForPreview' | 'markPreviewReady' | 'markPreviewFailed'>;
  tree: Pick<NodeTreeRepository, 'transaction'>;
  outbox: Pick<WebhookOutbox, 'record'>;
  /** The blob deletion queue. */
  deletions: Pick<UploadRepository, 'queueDeletions'>;
}

/** What the job stored beside the original. */
export interface StoredPreview {
  previewBlobKey: string;
  previewBytes: number;
  thumbnailBlobKey: string;
  thumbnailBytes: number;
}

/**
 * The lifecycle of a library model's preview (docs/asset-library.md, "Previews"): start (finalize
 * queues the job), then the worker's job (jobs/preview-library-model.ts) succeeds or fails it.
 * A model deleted or changed meanwhile is never brought back.
 */
export class ModelPreviewLifecycle {
  constructor(private readonly options: ModelPreviewLifecycleOptions) {}

  /**
   * Queues the preview job of a model finalized `processing`, keyed by the model: a failure to
   * queue is 409 FailedToLaunchProcessing, and a repeat queues it never twice.
   */
  async start(modelId: string): Promise<void> {
    try {
      await this.options.jobs.enqueue(PREVIEW_LIBRARY_MODEL, { region: this.options.region, modelId }, { singletonKey: modelId });
    } catch {
      throw new ApiError('FailedToLaunchProcessing', 'The preview job could not be queued; finalize again to retry');
    }
  }

  /** The model to preview; undefined when it is gone or no longer `processing`. */
  async pending(modelId: string): Promise<LibraryModelRow | undefined> {
    const model = await this.options.models.findForPreview(modelId);
    return model?.status === 'processing' ? model : undefined;
  }

  /** Whether the model still exists (in any state). */
  async exists(modelId: string): Promise<boolean> {
    return (await this.options.models.findForPreview(modelId)) !== undefined;
  }

  /**
   * The model `ready` with its preview, and its event, in one transaction: false when it was
   * deleted or changed meanwhile (the job then removes what it wrote).
   */
  async succeed(model: LibraryModelRow, preview: StoredPreview): Promise<boolean> {
    const { models, tree, outbox, clock } = this.options;
    return tree.transaction(async (tx) => {
      const marked = await models.markPreviewReady(model.id, preview, clock.now().toISOString(), tx);
      if (marked) await outbox.record(tx, model.org_id, 'libraryModel.ready', { libraryModelId: model.id, preview: true });
      return marked;
    });
  }

  /**
   * A preview job that failed (the handler threw, or the watchdog saw no heartbeat): the model, if
   * still `processing`, becomes `failed` with the reason, and whatever preview blobs the job wrote
   * are removed (through the deletion queue, in the same transaction).
   */
  async fail(modelId: string, reason: string): Promise<void> {
    const { models, tree, deletions, clock } = this.options;
    const model = await this.pending(modelId);
    if (!model) return;
    const now = clock.now().toISOString();
    const keys = modelPreviewKeys(model.blob_key);
    await tree.transaction(async (tx) => {
      if (await models.markPreviewFailed(model.id, reason, now, tx)) {
        await deletions.queueDeletions(tx, [{ key: keys.preview }, { key: keys.thumbnail }], now);
      }
    });
  }
}
