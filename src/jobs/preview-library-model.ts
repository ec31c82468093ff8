import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LibraryModelRepository } from '../adapters/db/repositories/library-model-repository.js';
import type { LibraryModelRow } from '../adapters/db/schema.js';
import { MODEL_FORMATS, type ModelFormat } from '../domain/library/model-formats.js';
import type { Platform } from '../platform.js';
import type { JobPayload, JobSummary } from '../ports/job-queue.js';
import { convertModel } from '../processing/models/convert-model.js';
import { ProcessingError } from '../processing/processing-error.js';
import { PREVIEW_LIBRARY_MODEL } from '../services/library/preview-job.js';
import { handleJob, type JobContext, JobLostError } from './job-handler.js';

type Payload = JobPayload<typeof PREVIEW_LIBRARY_MODEL>;

/**
 * The model's folder in the blob store, where its original lives: the preview and thumbnail go
 * beside it, so removing the model's prefix removes them too.
 */
function modelPrefix(model: LibraryModelRow): string {
  return model.blob_key.slice(0, model.blob_key.lastIndexOf('/') + 1);
}

export function previewKeys(model: LibraryModelRow): { preview: string; thumbnail: string } {
  const prefix = modelPrefix(model);
  return { preview: `${prefix}preview.glb`, thumbnail: `${prefix}thumbnail.png` };
}

function libraryModels(platform: Platform, payload: Payload): LibraryModelRepository {
  const { store } = platform.region(payload.region);
  return new LibraryModelRepository(store.db, store.dialect);
}

/**
 * Makes a model's preview: copies the original to the job's folder, converts it (with
 * heartbeats) into a GLB and a PNG, stores both beside the original and sets the model ready.
 * A model gone or no longer `processing` is left alone; one deleted while this ran is not
 * brought back, and the blobs written for it are removed.
 */
async function runPreview(platform: Platform, payload: Payload, context: JobContext): Promise<void> {
  const region = platform.region(payload.region);
  const models = libraryModels(platform, payload);
  const model = await models.findForPreview(payload.modelId);
  if (model?.status !== 'processing') return;
  const format = model.format as ModelFormat | null;
  if (!format || !MODEL_FORMATS.includes(format))
    throw new ProcessingError('unsupported-content', 'The model has no format to preview');

  const workDir = await context.workDir();
  const originalPath = path.join(workDir, 'original');
  try {
    await pipeline(await platform.blobs.read(model.blob_key), (await fs.open(originalPath, 'w')).createWriteStream());
  } catch (error) {
    if (!(await models.findForPreview(model.id))) return; // deleted while it was fetched
    throw error;
  }
  await context.heartbeat(0.05);
  const outputDir = path.join(workDir, 'output');
  await fs.mkdir(outputDir);
  const preview = await convertModel({ path: originalPath, format }, outputDir, {
    signal: context.signal,
    onProgress: (fraction) => void context.heartbeat(0.05 + fraction * 0.85).catch(() => undefined),
  });
  context.signal.throwIfAborted();

  const keys = previewKeys(model);
  try {
    const glb = await platform.blobs.write(keys.preview, createReadStream(preview.previewPath));
    await context.heartbeat(0.95);
    const png = await platform.blobs.write(keys.thumbnail, createReadStream(preview.thumbnailPath));
    const stored = await region.tree.transaction(async (tx) => {
      const marked = await models.markPreviewReady(
        model.id,
        { previewBlobKey: keys.preview, previewBytes: glb.size, thumbnailBlobKey: keys.thumbnail, thumbnailBytes: png.size },
        platform.clock.now().toISOString(),
        tx,
      );
      if (marked) await region.outbox.record(tx, model.org_id, 'libraryModel.ready', { libraryModelId: model.id, preview: true });
      return marked;
    });
    if (!stored) await removeBlobs(platform, keys);
  } catch (error) {
    await removeBlobs(platform, keys);
    throw error;
  }
}

async function removeBlobs(platform: Platform, keys: { preview: string; thumbnail: string }): Promise<void> {
  await Promise.all([platform.blobs.delete(keys.preview), platform.blobs.delete(keys.thumbnail)]);
}

/**
 * A preview job that failed (the handler threw, or the watchdog saw no heartbeat): the model,
 * if still `processing`, becomes `failed` with the reason, and whatever preview blobs the job
 * wrote are removed (through the deletion queue, in the same transaction).
 */
export async function failLibraryModelPreview(platform: Platform, job: JobSummary, reason: string): Promise<void> {
  const payload = job.payload as Payload;
  const region = platform.region(payload.region);
  const models = libraryModels(platform, payload);
  const model = await models.findForPreview(payload.modelId);
  if (model?.status !== 'processing') return;
  const now = platform.clock.now().toISOString();
  const keys = previewKeys(model);
  await region.tree.transaction(async (tx) => {
    if (await models.markPreviewFailed(model.id, reason, now, tx)) {
      await region.uploads.queueDeletions(tx, [{ key: keys.preview }, { key: keys.thumbnail }], now);
    }
  });
}

/**
 * The failure reason is shown to API callers: a conversion error says what is wrong with the
 * model; anything else (a store or disk error) is logged and shown without its details.
 */
export function previewLibraryModelJob(platform: Platform, log?: { error(object: object, message: string): void }) {
  return handleJob(
    PREVIEW_LIBRARY_MODEL,
    async (payload, context) => {
      try {
        await runPreview(platform, payload, context);
      } catch (error) {
        if (error instanceof ProcessingError || error instanceof JobLostError) throw error;
        log?.error({ err: error, modelId: payload.modelId }, 'library model preview failed');
        throw new Error('The preview failed on an internal error; retry, or ask the operator to look at the worker log');
      }
    },
    { logFields: (payload) => ({ modelId: payload.modelId, region: payload.region }) },
  );
}
