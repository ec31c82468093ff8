import type { Region } from '../../domain/regions.js';
import { defineJob } from '../../ports/job-queue.js';

/**
 * The job the worker runs for a finalized, previewable library model: it converts the original
 * into a GLB preview and a PNG thumbnail (docs/asset-library.md). Version 1 of its payload.
 */
export const PREVIEW_LIBRARY_MODEL = defineJob<{ region: Region; modelId: string }>('preview-library-model', 1);
