import { defineJob } from '../jobs/job-kind.js';
import type { Region } from '../regions.js';

/**
 * The jobs the worker runs, as both sides see them: the API side enqueues one of these with its
 * payload, the worker (src/jobs/start-worker.ts) runs it with the handler declared beside it in
 * src/jobs/. Changing a payload's shape means a new version (docs/jobs.md, "Kinds and payloads").
 */

/** A bundle's processing (docs/uploads.md, "Processing"): version 1 of its payload. */
export const PROCESS_BUNDLE = defineJob<{ region: Region; processingId: string }>('process-bundle', 1);

/**
 * A finalized, previewable library model: the original converted into a GLB preview and a PNG
 * thumbnail (docs/asset-library.md). Version 1 of its payload.
 */
export const PREVIEW_LIBRARY_MODEL = defineJob<{ region: Region; modelId: string }>('preview-library-model', 1);

/** A comparison of two processed point clouds (docs/comparisons.md): version 1 of its payload. */
export const COMPARE_BUNDLES = defineJob<{ region: Region; comparisonId: string }>('compare-bundles', 1);

/** Every kind the platform defines: a worker refuses to start without a handler for each. */
export const JOB_KINDS = [PROCESS_BUNDLE, PREVIEW_LIBRARY_MODEL, COMPARE_BUNDLES] as const;
