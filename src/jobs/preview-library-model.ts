import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { LibraryModelRow } from '../adapters/db/schema.js';
import { MODEL_FORMATS, type ModelFormat } from '../domain/library/model-formats.js';
import { modelPreviewKeys } from '../domain/library/models.js';
import { PREVIEW_LIBRARY_MODEL } from '../domain/processing/jobs.js';
import type { Region } from '../domain/regions.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobPayload } from '../ports/job-queue.js';
import type { ModelPreview } from '../processing/models/convert-model.js';
import { ProcessingError } from '../processing/processing-error.js';
import type { ModelPreviewLifecycle } from '../services/library/model-preview-lifecycle.js';
import { handleJob, type JobContext, type JobErrorLog, JobLostError, type JobRegistration } from './job-handler.js';

type Payload = JobPayload<typeof PREVIEW_LIBRARY_MODEL>;

export interface PreviewLibraryModelJobOptions {
  /** The preview lifecycle of a region's library models: the job's success and failure. */
  previews: (region: Region) => Pick<ModelPreviewLifecycle, 'pending' | 'exists' | 'succeed' | 'fail'>;
  /** Where the original is read and the preview written (and removed again when it is not wanted). */
  blobs: Pick<BlobStore, 'read' | 'write' | 'delete'>;
  log?: JobErrorLog;
}

type Previews = ReturnType<PreviewLibraryModelJobOptions['previews']>;

/** Step 1: the original into the job's folder; undefined when the model was deleted meanwhile. */
async function download(
  options: PreviewLibraryModelJobOptions,
  previews: Previews,
  model: LibraryModelRow,
  workDir: string,
  context: JobContext,
): Promise<string | undefined> {
  const originalPath = path.join(workDir, 'original');
  try {
    await pipeline(await options.blobs.read(model.blob_key), (await fs.open(originalPath, 'w')).createWriteStream());
  } catch (error) {
    if (!(await previews.exists(model.id))) return undefined; // deleted while it was fetched
    throw error;
  }
  await context.heartbeat(0.05);
  return originalPath;
}

/** Step 2: the conversion into a GLB and a PNG, with heartbeats. */
async function convert(
  original: { path: string; format: ModelFormat },
  workDir: string,
  context: JobContext,
): Promise<ModelPreview> {
  const outputDir = path.join(workDir, 'output');
  await fs.mkdir(outputDir);
  // Imported on the first job, not at start-up: the processing libraries took about half a second
  // of every start (docs/performance.md#start-up-the-causes-of-7-s).
  const { convertModel } = await import('../processing/models/convert-model.js');
  const preview = await convertModel(original, outputDir, {
    signal: context.signal,
    onProgress: (fraction) => void context.heartbeat(0.05 + fraction * 0.85).catch(() => undefined),
  });
  context.signal.throwIfAborted();
  return preview;
}

/**
 * Step 3: both files beside the original, then the model ready. A model deleted (or changed)
 * while this ran is not brought back, and the blobs written for it are removed.
 */
async function store(
  options: PreviewLibraryModelJobOptions,
  previews: Previews,
  model: LibraryModelRow,
  preview: ModelPreview,
  context: JobContext,
): Promise<void> {
  const keys = modelPreviewKeys(model.blob_key);
  const removeBlobs = () => Promise.all([options.blobs.delete(keys.preview), options.blobs.delete(keys.thumbnail)]);
  try {
    const glb = await options.blobs.write(keys.preview, createReadStream(preview.previewPath));
    await context.heartbeat(0.95);
    const png = await options.blobs.write(keys.thumbnail, createReadStream(preview.thumbnailPath));
    const stored = await previews.succeed(model, {
      previewBlobKey: keys.preview,
      previewBytes: glb.size,
      thumbnailBlobKey: keys.thumbnail,
      thumbnailBytes: png.size,
    });
    if (!stored) await removeBlobs();
  } catch (error) {
    await removeBlobs();
    throw error;
  }
}

/**
 * Makes a model's preview: downloads the original, converts it, stores the GLB and the PNG beside
 * the original and sets the model ready. A model gone or no longer `processing` is left alone.
 */
async function runPreview(options: PreviewLibraryModelJobOptions, payload: Payload, context: JobContext): Promise<void> {
  const previews = options.previews(payload.region);
  const model = await previews.pending(payload.modelId);
  if (!model) return;
  const format = model.format as ModelFormat | null;
  if (!format || !MODEL_FORMATS.includes(format))
    throw new ProcessingError('unsupported-content', 'The model has no format to preview');
  const workDir = await context.workDir();
  const originalPath = await download(options, previews, model, workDir, context);
  if (originalPath === undefined) return;
  const preview = await convert({ path: originalPath, format }, workDir, context);
  await store(options, previews, model, preview, context);
}

/**
 * The preview job: its handler and, when a job fails (the handler threw, or the watchdog saw no
 * heartbeat), the model's failure. The failure reason is shown to API callers: a conversion error
 * says what is wrong with the model; anything else (a store or disk error) is logged and shown
 * without its details.
 */
export function previewLibraryModelJob(options: PreviewLibraryModelJobOptions): JobRegistration<Payload> {
  return handleJob(
    PREVIEW_LIBRARY_MODEL,
    async (payload, context) => {
      try {
        await runPreview(options, payload, context);
      } catch (error) {
        if (error instanceof ProcessingError || error instanceof JobLostError) throw error;
        options.log?.error({ err: error, modelId: payload.modelId }, 'library model preview failed');
        throw new Error('The preview failed on an internal error; retry, or ask the operator to look at the worker log');
      }
    },
    {
      onFailed: (payload, reason) => options.previews(payload.region).fail(payload.modelId, reason),
      logFields: (payload) => ({ modelId: payload.modelId, region: payload.region }),
    },
  );
}
