import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ProcessingRow, StoredObjectRow } from '../adapters/db/schema.js';
import { ProcessingInputGone } from '../domain/processing/bundle-lifecycle.js';
import { derivativeBlobPrefix } from '../domain/processing/derivatives.js';
import { PROCESS_BUNDLE } from '../domain/processing/jobs.js';
import { tileAttributesOf } from '../domain/processing/tile-attributes.js';
import { GZIP_SUFFIX, storedGzipped } from '../domain/processing/tileset-files.js';
import type { Region } from '../domain/regions.js';
import { inputKind } from '../domain/uploads/file-formats.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobPayload } from '../ports/job-queue.js';
import type { ProcessResult } from '../processing/process-input.js';
import { ProcessingError } from '../processing/processing-error.js';
import { gzipTile } from '../processing/tiles/tile-encoding.js';
import type { ProcessingLifecycle, ProcessingOutput } from '../services/processing/processing-lifecycle.js';
import { handleJob, type JobContext, type JobErrorLog, JobLostError, type JobRegistration } from './job-handler.js';

type Payload = JobPayload<typeof PROCESS_BUNDLE>;

export interface ProcessBundleJobOptions {
  /** The processing lifecycle of a region: its running, success and failure steps. */
  processings: (region: Region) => Pick<ProcessingLifecycle, 'markRunning' | 'inputOf' | 'succeed' | 'fail'>;
  /** Where the input is read and the output written. */
  blobs: Pick<BlobStore, 'read' | 'write'>;
  /** RDP_RECONSTRUCTION_COMMAND: what reconstructs a video. */
  reconstructionCommand: string | undefined;
  log?: JobErrorLog;
}

/** What the processor reads: the main file's path, and for a mesh every file of the session by its name. */
interface DownloadedInput {
  path: string;
  format: string | null;
  byName?: Map<string, string>;
}

/**
 * A file name as it may be written in the job's folder: one path segment, not `.` or `..`, no
 * NUL, at most 255 bytes. Names are the client's own (any 1 to 255 characters).
 */
export function safeFileName(name: string): boolean {
  return name !== '.' && name !== '..' && !/[/\\\0]/.test(name) && Buffer.byteLength(name) <= 255 && name.trim().length > 0;
}

/**
 * Step 1: the input from the blob store into the job's folder: the main file, and for a mesh
 * every file of its session, each in a folder of its own under its name (a name that is not safe
 * for a path keeps only its extension), so no two collide and references resolve by name.
 */
async function download(
  options: ProcessBundleJobOptions,
  input: { main: StoredObjectRow; files: StoredObjectRow[] },
  workDir: string,
  context: JobContext,
): Promise<DownloadedInput> {
  const fetch = async (file: StoredObjectRow, to: string) =>
    pipeline(await options.blobs.read(file.blob_key), (await fs.open(to, 'w')).createWriteStream());
  if (inputKind(input.main.format) !== 'mesh') {
    const inputPath = path.join(workDir, 'input');
    await fetch(input.main, inputPath);
    await context.heartbeat(0.05);
    return { path: inputPath, format: input.main.format };
  }
  const byName = new Map<string, string>();
  let mainPath = '';
  for (const [index, file] of input.files.entries()) {
    const folder = path.join(workDir, 'input', String(index));
    await fs.mkdir(folder, { recursive: true });
    const extension = /\.[A-Za-z0-9]{1,10}$/.exec(file.name)?.[0] ?? '';
    const filePath = path.join(folder, safeFileName(file.name) ? file.name : `file${extension}`);
    await fetch(file, filePath);
    byName.set(file.name, filePath);
    if (file.id === input.main.id) mainPath = filePath;
    await context.heartbeat(0.05 * ((index + 1) / input.files.length));
  }
  return { path: mainPath, format: input.main.format, byName };
}

/** Step 2: the processor (point clouds and meshes to 3D Tiles, video checked and reconstructed), with heartbeats. */
async function processFile(
  options: ProcessBundleJobOptions,
  input: DownloadedInput,
  workDir: string,
  context: JobContext,
): Promise<{ result: ProcessResult; outputDir: string }> {
  // Imported on the first job, not at start-up: the processing libraries took about half a second
  // of every start (docs/performance.md#start-up-the-causes-of-7-s).
  const outputDir = path.join(workDir, 'output');
  await fs.mkdir(outputDir);
  const kind = inputKind(input.format) ?? undefined;
  const { processInput } = await import('../processing/process-input.js');
  const result = await processInput({ path: input.path, kind, byName: input.byName }, outputDir, {
    onProgress: (fraction: number) => void context.heartbeat(0.05 + fraction * 0.85).catch(() => undefined),
    signal: context.signal,
    reconstructionCommand: options.reconstructionCommand,
  });
  context.signal.throwIfAborted();
  return { result, outputDir };
}

/** Step 3: the output's files under the derivative's prefix (tiles gzip-encoded: tileset-files.ts); what they are, for the lifecycle's success. */
async function store(
  options: ProcessBundleJobOptions,
  processing: ProcessingRow,
  { result, outputDir }: { result: ProcessResult; outputDir: string },
  context: JobContext,
): Promise<ProcessingOutput> {
  const prefix = derivativeBlobPrefix(processing.org_id, processing.id);
  let bytes = 0;
  for (const file of result.files) {
    const written = path.join(outputDir, file);
    const stored = storedGzipped(file)
      ? await options.blobs.write(`${prefix}${file}${GZIP_SUFFIX}`, await gzipTile(await fs.readFile(written)))
      : await options.blobs.write(`${prefix}${file}`, createReadStream(written));
    bytes += stored.size;
    await context.heartbeat(0.9);
  }
  const thumbnail = {
    bytes: await fs.readFile(path.join(outputDir, result.thumbnailPath)),
    contentType: result.thumbnailPath.endsWith('.png') ? 'image/png' : 'image/jpeg',
  };
  if (result.kind === 'mesh') {
    // A mesh's frame: a .prj's system beside an OBJ, else its own (docs/processing.md, "Meshes").
    const { bounds, georeference } = result;
    return {
      kind: result.kind,
      name: result.tilesetPath,
      bytes,
      georeference,
      bounds,
      attributes: null,
      pointCount: null,
      thumbnail,
    };
  }
  if (result.kind !== 'point-cloud')
    return {
      kind: result.kind,
      name: 'output',
      bytes,
      georeference: null,
      bounds: null,
      attributes: null,
      pointCount: null,
      thumbnail,
    };
  const { georeference, bounds } = result;
  const attributes = tileAttributesOf(result.attributes);
  const { pointCount } = result;
  return { kind: result.kind, name: result.tilesetPath, bytes, georeference, bounds, attributes, pointCount, thumbnail };
}

/**
 * Runs one processing: marks it running, then downloads the bundle's input, processes it and
 * stores the output; the lifecycle's success makes the derivative node beside the bundle, linked
 * to it (docs/design/hierarchy.md#derivatives), and marks the bundle ready.
 */
async function runProcessing(options: ProcessBundleJobOptions, payload: Payload, context: JobContext): Promise<void> {
  const processings = options.processings(payload.region);
  const processing = await processings.markRunning(payload.processingId, context.jobId);
  if (!processing) return;
  const input = await processings.inputOf(processing);
  // The worker removes the job's folder when the job ends (and a later start, if the worker is killed).
  const workDir = await context.workDir();
  const downloaded = await download(options, input, workDir, context);
  const processed = await processFile(options, downloaded, workDir, context);
  const output = await store(options, processing, processed, context);
  await processings.succeed(processing, output);
}

/**
 * The processing job: its handler and, when a job fails (the handler threw, or the watchdog saw
 * no heartbeat), the processing's failure. The failure reason is shown to API callers: a
 * processing error says what is wrong with the input; anything else (a store or disk error) is
 * logged and shown without its details.
 */
export function processBundleJob(options: ProcessBundleJobOptions): JobRegistration<Payload> {
  return handleJob(
    PROCESS_BUNDLE,
    async (payload, context) => {
      try {
        await runProcessing(options, payload, context);
      } catch (error) {
        if (error instanceof ProcessingError || error instanceof ProcessingInputGone || error instanceof JobLostError)
          throw error;
        options.log?.error({ err: error, processingId: payload.processingId }, 'processing failed');
        throw new Error('The processing failed on an internal error; retry, or ask the operator to look at the worker log');
      }
    },
    {
      onFailed: (payload, reason) => options.processings(payload.region).fail(payload.processingId, reason),
      logFields: (payload) => ({ processingId: payload.processingId, region: payload.region }),
    },
  );
}
