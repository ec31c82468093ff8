import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { newNodeRow } from '../adapters/db/repositories/node-rows.js';
import { parentPath } from '../adapters/db/repositories/node-tree-repository.js';
import type { NodeRow } from '../adapters/db/schema.js';
import { NAME_MAX_LENGTH } from '../domain/nodes/hierarchy.js';
import { nodeBlobPrefix } from '../domain/uploads/blob-key.js';
import { inputKind } from '../domain/uploads/file-formats.js';
import type { Platform } from '../platform.js';
import type { JobPayload, JobSummary } from '../ports/job-queue.js';
import { processInput } from '../processing/process-input.js';
import { ProcessingError } from '../processing/processing-error.js';
import { PROCESS_BUNDLE } from '../services/processing/processing-service.js';
import { mainInputFile } from '../services/uploads/bundle-service.js';
import { handleJob, type JobContext, JobLostError } from './job-handler.js';

type Payload = JobPayload<typeof PROCESS_BUNDLE>;

/** The derivative takes the processing's id: its bytes can be found (and removed) even if the job dies half-way. */
function derivativePrefix(orgId: string, processingId: string): string {
  return nodeBlobPrefix(orgId, processingId);
}

function derivativeName(bundleName: string, suffix: string): string {
  const chars = [...bundleName];
  const room = NAME_MAX_LENGTH - [...suffix].length;
  return `${chars.length > room ? chars.slice(0, room).join('') : bundleName}${suffix}`;
}

/**
 * Runs one processing: fetches the bundle's input from the blob store, processes it (point
 * clouds to 3D Tiles, video checked and reconstructed), stores the output under a derivative
 * node beside the bundle, linked to it (DESIGN.md section 6), and marks the bundle ready.
 */
async function runProcessing(platform: Platform, payload: Payload, context: JobContext): Promise<void> {
  const region = platform.region(payload.region);
  const { bundles, uploads } = region;
  const processing = await bundles.findProcessing(payload.processingId);
  if (!processing || processing.state === 'succeeded' || processing.state === 'failed') return;
  const startedAt = platform.clock.now().toISOString();
  const ids = { bundleId: processing.bundle_id, processingId: processing.id };
  await region.tree.transaction(async (tx) => {
    await bundles.updateProcessing(tx, processing.id, { state: 'running', started_at: startedAt, job_id: context.jobId });
    await region.outbox.record(tx, processing.org_id, 'bundle.processing.started', ids);
  });
  const bundle = await bundles.find(processing.bundle_id);
  if (!bundle?.input_session_id) throw new ProcessingError('input-gone', 'The bundle has no finalized input');
  const files = await uploads.objectsOfSession(bundle.input_session_id);
  const input = mainInputFile(files);
  if (!input) throw new ProcessingError('input-gone', 'The bundle has no finalized input');

  // The worker removes the job's folder when the job ends (and a later start, if the worker is killed).
  const workDir = await context.workDir();
  const inputPath = path.join(workDir, 'input');
  await pipeline(await platform.blobs.read(input.blob_key), (await fs.open(inputPath, 'w')).createWriteStream());
  await context.heartbeat(0.05);
  const outputDir = path.join(workDir, 'output');
  await fs.mkdir(outputDir);
  const kind = inputKind(input.format) ?? undefined;
  const result = await processInput({ path: inputPath, kind }, outputDir, {
    onProgress: (fraction: number) => void context.heartbeat(0.05 + fraction * 0.85).catch(() => undefined),
    reconstructionCommand: platform.config.jobs.reconstructionCommand,
  });
  context.signal.throwIfAborted();

  const prefix = derivativePrefix(processing.org_id, processing.id);
  let bytes = 0;
  for (const file of result.files) {
    const stored = await platform.blobs.write(`${prefix}${file}`, createReadStream(path.join(outputDir, file)));
    bytes += stored.size;
    await context.heartbeat(0.9);
  }
  const thumbnail = await fs.readFile(path.join(outputDir, result.thumbnailPath));
  const thumbnailType = result.thumbnailPath.endsWith('.png') ? 'image/png' : 'image/jpeg';

  const now = platform.clock.now().toISOString();
  const derivativeKind = result.kind === 'point-cloud' ? 'pointCloud' : 'mesh';
  const source = await region.nodes.findById(processing.bundle_id);
  if (!source?.parent_id) throw new ProcessingError('input-gone', 'The bundle is gone');
  await region.tree.transaction(async (tx) => {
    const parent = await region.tree.lockForChild(tx, { id: source.parent_id as string, path: parentPath(source.path) });
    if (!parent || parent.trashed_at) throw new ProcessingError('input-gone', "The bundle's folder is in the trash");
    const suffix = result.kind === 'point-cloud' ? ' (point cloud)' : ' (mesh)';
    const row: NodeRow = {
      ...newNodeRow(parent, { id: processing.id, kind: derivativeKind, name: derivativeName(source.name, suffix), now }),
      size_bytes: bytes,
    };
    await region.nodes.insert(row, tx);
    await tx
      .insertInto('node_links')
      .values({ kind: 'derivative', from_id: source.id, to_id: row.id, created_at: now })
      .execute();
    await uploads.insertObject(tx, {
      id: processing.id,
      org_id: processing.org_id,
      purpose: 'derivative',
      node_id: row.id,
      parent_id: null,
      session_id: null,
      object_id: null,
      name: result.kind === 'point-cloud' ? result.tilesetPath : 'output',
      name_key: 'output',
      declared_bytes: bytes,
      reserved_bytes: 0,
      stored_bytes: bytes,
      blob_key: prefix,
      multipart_upload_id: null,
      etag: null,
      format: result.kind === 'point-cloud' ? '3d-tiles' : 'reconstruction',
      state: 'finalized',
      created_by: processing.created_by,
      created_at: now,
      expires_at: now,
      finalized_at: now,
    });
    await bundles.updateProcessing(tx, processing.id, {
      state: 'succeeded',
      derivative_node_id: row.id,
      finished_at: now,
      // Where the point cloud sits (on the globe, or local and why): for the twin's layers.
      georeference: result.kind === 'point-cloud' ? JSON.stringify(result.georeference) : null,
      bounds: result.kind === 'point-cloud' ? JSON.stringify({ min: result.bounds.min, max: result.bounds.max }) : null,
    });
    await bundles.setState(tx, source.id, { state: 'ready', isProcessing: 0, isFailed: 0, at: now });
    await region.outbox.record(tx, processing.org_id, 'bundle.processing.succeeded', { ...ids, derivativeNodeId: row.id });
    // In the same transaction: a bundle is never seen ready without its thumbnail.
    await region.nodes.putThumbnail(row.id, thumbnailType, thumbnail, `"${processing.id}"`, now, tx);
    if (!(await region.nodes.getThumbnail(source.id, tx))) {
      await region.nodes.putThumbnail(source.id, thumbnailType, thumbnail, `"${processing.id}"`, now, tx);
    }
  });
}

/**
 * A processing whose job failed (the handler threw, or the watchdog saw no heartbeat): the
 * processing records why, the bundle is failed and its node's isFailed is set; whatever output
 * the job wrote goes to the deletion queue.
 */
export async function failProcessing(platform: Platform, job: JobSummary, reason: string): Promise<void> {
  const payload = job.payload as Payload;
  const { bundles, uploads, tree, outbox } = platform.region(payload.region);
  const processing = await bundles.findProcessing(payload.processingId);
  if (!processing || processing.state === 'succeeded' || processing.state === 'failed') return;
  const now = platform.clock.now().toISOString();
  await tree.transaction(async (tx) => {
    await bundles.updateProcessing(tx, processing.id, { state: 'failed', failure_reason: reason, finished_at: now });
    await bundles.setState(tx, processing.bundle_id, { state: 'failed', isProcessing: 0, isFailed: 1, at: now });
    await uploads.queueDeletions(tx, [{ key: derivativePrefix(processing.org_id, processing.id) }], now);
    const ids = { bundleId: processing.bundle_id, processingId: processing.id, reason };
    await outbox.record(tx, processing.org_id, 'bundle.processing.failed', ids);
  });
}

/**
 * The failure reason is shown to API callers: a processing error says what is wrong with the
 * input; anything else (a store or disk error) is logged and shown without its details.
 */
export function processBundleJob(platform: Platform, log?: { error(object: object, message: string): void }) {
  return handleJob(
    PROCESS_BUNDLE,
    async (payload, context) => {
      try {
        await runProcessing(platform, payload, context);
      } catch (error) {
        if (error instanceof ProcessingError || error instanceof JobLostError) throw error;
        log?.error({ err: error, processingId: payload.processingId }, 'processing failed');
        throw new Error('The processing failed on an internal error; retry, or ask the operator to look at the worker log');
      }
    },
    { logFields: (payload) => ({ processingId: payload.processingId, region: payload.region }) },
  );
}
