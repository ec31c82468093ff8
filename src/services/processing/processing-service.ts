import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { BundleRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { processingCost } from '../../domain/processing/cost.js';
import type { BundleService } from '../uploads/bundle-service.js';
import type { ProcessingLifecycle } from './processing-lifecycle.js';
import { processingView } from './processing-view.js';

export interface ProcessingServiceOptions {
  /** The bundle node the caller may act on, and its row. */
  bundles: Pick<BundleService, 'authorized'>;
  /** The input's files, for the cost. */
  uploads: Pick<UploadRepository, 'objectsOfSession'>;
  /** The organization's own processing slots. */
  organizations: Pick<DirectoryRepository, 'findOrganization'>;
  lifecycle: Pick<ProcessingLifecycle, 'earlier' | 'start'>;
}

/**
 * Processing a bundle, as the routes ask for it: the cost estimate, and the submission that
 * checks access, input and cost and starts the processing (ProcessingLifecycle.start checks the
 * capacity, records it and launches its job).
 */
export class ProcessingService {
  constructor(private readonly options: ProcessingServiceOptions) {}

  /** The current cost: a function of the finalized input only. */
  async cost(principal: Principal, bundleId: string) {
    const { bundle } = await this.options.bundles.authorized(principal, bundleId, 'read');
    return this.costOf(bundle);
  }

  private async costOf(bundle: BundleRow) {
    const bundleId = bundle.node_id;
    if (!bundle.input_session_id) throw new ApiError('NoInputDataFoundForProcessing', 'Finalize an upload session first');
    const files = await this.options.uploads.objectsOfSession(bundle.input_session_id);
    const input = {
      inputBytes: bundle.input_bytes,
      fileCount: files.length,
      format: bundle.input_format,
      triangles: bundle.input_triangles,
    };
    return {
      bundleId,
      cost: processingCost(input),
      unit: 'credits',
      inputBytes: input.inputBytes,
      fileCount: input.fileCount,
      format: input.format,
      triangles: input.triangles,
    };
  }

  /**
   * Starts processing. With an Idempotency-Key, a repeated submission answers with the
   * processing the first one started, and never starts or bills a second job.
   */
  async submit(principal: Principal, bundleId: string, submittedCost: number, idempotencyKey: string | undefined) {
    const { bundles, organizations, lifecycle } = this.options;
    const { node, bundle } = await bundles.authorized(principal, bundleId, 'process');
    if (idempotencyKey) {
      const earlier = await lifecycle.earlier(node.id, idempotencyKey);
      if (earlier) return { replayed: true, processing: processingView(earlier) };
    }
    const { cost } = await this.costOf(bundle);
    if (submittedCost !== cost)
      throw new ApiError('ProcessingCostMismatch', `The current cost is ${cost}; fetch a fresh estimate`);
    const org = await organizations.findOrganization(node.org_id);
    const started = await lifecycle.start({
      node,
      bundle,
      cost,
      idempotencyKey,
      createdBy: principal.userId,
      orgSlots: org?.processing_slots ?? null,
    });
    return { replayed: started.replayed, processing: processingView(started.processing) };
  }
}
