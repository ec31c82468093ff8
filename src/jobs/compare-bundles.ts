import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ComparisonRow, StoredObjectRow } from '../adapters/db/schema.js';
import { comparisonBlobPrefix, comparisonCsvKey, comparisonTilesPrefix } from '../domain/comparisons/comparison-outputs.js';
import { ProcessingInputGone } from '../domain/processing/bundle-lifecycle.js';
import { COMPARE_BUNDLES } from '../domain/processing/jobs.js';
import { tileAttributesOf } from '../domain/processing/tile-attributes.js';
import { GZIP_SUFFIX, storedGzipped } from '../domain/processing/tileset-files.js';
import type { Region } from '../domain/regions.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobPayload } from '../ports/job-queue.js';
import type { CompareResult } from '../processing/comparisons/compare-clouds.js';
import type { PointCloudResult } from '../processing/point-cloud-processor.js';
import { ProcessingError } from '../processing/processing-error.js';
import { gzipTile } from '../processing/tiles/tile-encoding.js';
import type { ComparisonLifecycle, ComparisonOutput } from '../services/comparisons/comparison-lifecycle.js';
import { handleJob, type JobContext, type JobErrorLog, JobLostError, type JobRegistration } from './job-handler.js';

type Payload = JobPayload<typeof COMPARE_BUNDLES>;

export interface CompareBundlesJobOptions {
  /** The comparison lifecycle of a region: its running, success and failure steps. */
  comparisons: (region: Region) => Pick<ComparisonLifecycle, 'markRunning' | 'inputsOf' | 'succeed' | 'fail' | 'gone'>;
  /** Where the inputs are read and the outputs written (and removed again when the comparison went meanwhile). */
  blobs: Pick<BlobStore, 'read' | 'write' | 'deletePrefix'>;
  log?: JobErrorLog;
}

/** Where each share of the progress goes: the download, the distances, the tiles, the store. */
const DOWNLOADED = 0.05;
const COMPARED = 0.55;
const TILED = 0.9;

/** Step 1: both bundles' inputs (full resolution, as their processings read them) into the job's folder. */
async function download(
  options: CompareBundlesJobOptions,
  inputs: { reference: StoredObjectRow; compared: StoredObjectRow },
  workDir: string,
  context: JobContext,
): Promise<{ reference: string; compared: string }> {
  const fetch = async (file: StoredObjectRow, to: string) => {
    await pipeline(await options.blobs.read(file.blob_key), (await fs.open(to, 'w')).createWriteStream());
    return to;
  };
  const reference = await fetch(inputs.reference, path.join(workDir, 'reference'));
  await context.heartbeat(DOWNLOADED / 2);
  const compared = await fetch(inputs.compared, path.join(workDir, 'compared'));
  await context.heartbeat(DOWNLOADED);
  return { reference, compared };
}

/** Step 2: the distances (compareClouds), then the compared points with them as 3D Tiles. */
async function compare(
  row: ComparisonRow,
  files: { reference: string; compared: string },
  workDir: string,
  context: JobContext,
): Promise<{ compared: CompareResult; tiles: PointCloudResult; outputDir: string; tilesDir: string }> {
  const outputDir = path.join(workDir, 'output');
  const tilesDir = path.join(workDir, 'tiles');
  await fs.mkdir(outputDir);
  await fs.mkdir(tilesDir);
  const progress = (from: number, to: number) => (fraction: number) =>
    void context.heartbeat(from + fraction * (to - from)).catch(() => undefined);
  // Imported on the first job, not at start-up: the processing libraries took about half a second
  // of every start (docs/performance.md#start-up-the-causes-of-7-s).
  const [{ compareClouds }, { processPointCloud }] = await Promise.all([
    import('../processing/comparisons/compare-clouds.js'),
    import('../processing/point-cloud-processor.js'),
  ]);
  const compared = await compareClouds(
    { ...files, method: row.method, maxDistance: row.max_distance, tolerance: row.tolerance },
    outputDir,
    { onProgress: progress(DOWNLOADED, COMPARED), signal: context.signal },
  );
  context.signal.throwIfAborted();
  const tiles = await processPointCloud(path.join(outputDir, compared.plyPath), tilesDir, {
    distance: true,
    onProgress: progress(COMPARED, TILED),
  });
  context.signal.throwIfAborted();
  return { compared, tiles, outputDir, tilesDir };
}

/** Step 3: the tiles under the comparison's prefix (gzip-encoded as a derivative's: tileset-files.ts) and the CSV. */
async function store(
  options: CompareBundlesJobOptions,
  row: ComparisonRow,
  made: Awaited<ReturnType<typeof compare>>,
  context: JobContext,
): Promise<ComparisonOutput> {
  const tilesPrefix = comparisonTilesPrefix(row.org_id, row.id);
  // What it stores counts toward the organization's storage use, as a derivative's bytes do.
  let bytes = 0;
  // The thumbnail is no part of a comparison's outputs.
  for (const file of made.tiles.files.filter((name) => name !== made.tiles.thumbnailPath)) {
    const written = path.join(made.tilesDir, file);
    const stored = storedGzipped(file)
      ? await options.blobs.write(`${tilesPrefix}${file}${GZIP_SUFFIX}`, await gzipTile(await fs.readFile(written)))
      : await options.blobs.write(`${tilesPrefix}${file}`, createReadStream(written));
    bytes += stored.size;
    await context.heartbeat(TILED);
  }
  const csv = await options.blobs.write(
    comparisonCsvKey(row.org_id, row.id),
    createReadStream(path.join(made.outputDir, made.compared.csvPath)),
  );
  bytes += csv.size;
  const { stats, histogram } = made.compared;
  const { georeference, bounds } = made.tiles;
  return { stats, histogram, georeference, bounds, attributes: tileAttributesOf(made.tiles.attributes), bytes };
}

/**
 * Runs one comparison: marks it running, downloads both inputs, computes the distances, tiles the
 * compared points with them and stores it all; the lifecycle's success records the figures. A
 * comparison deleted meanwhile keeps nothing, whether the job then succeeds or fails: what it
 * wrote after the delete's own removal is removed here (a failure of a comparison still there
 * queues its files for deletion: ComparisonLifecycle.fail).
 */
async function runComparison(options: CompareBundlesJobOptions, payload: Payload, context: JobContext): Promise<void> {
  const comparisons = options.comparisons(payload.region);
  const row = await comparisons.markRunning(payload.comparisonId, context.jobId);
  if (!row) return;
  const removeOutputs = () => options.blobs.deletePrefix(comparisonBlobPrefix(row.org_id, row.id));
  try {
    const inputs = await comparisons.inputsOf(row);
    const workDir = await context.workDir();
    const files = await download(options, inputs, workDir, context);
    const made = await compare(row, files, workDir, context);
    const output = await store(options, row, made, context);
    if (!(await comparisons.succeed(row, output))) await removeOutputs();
  } catch (error) {
    // Deleted meanwhile, the failure finds no comparison to record on: nothing else removes these files.
    if (await comparisons.gone(row.id).catch(() => false)) await removeOutputs().catch(() => undefined);
    throw error;
  }
}

/**
 * The comparison job: its handler and, when a job fails (the handler threw, or the watchdog saw
 * no heartbeat), the comparison's failure. The reason is shown to API callers: a processing error
 * says what is wrong with an input; anything else is logged and shown without its details.
 */
export function compareBundlesJob(options: CompareBundlesJobOptions): JobRegistration<Payload> {
  return handleJob(
    COMPARE_BUNDLES,
    async (payload, context) => {
      try {
        await runComparison(options, payload, context);
      } catch (error) {
        if (error instanceof ProcessingError || error instanceof ProcessingInputGone || error instanceof JobLostError)
          throw error;
        options.log?.error({ err: error, comparisonId: payload.comparisonId }, 'comparison failed');
        throw new Error('The comparison failed on an internal error; retry, or ask the operator to look at the worker log');
      }
    },
    {
      onFailed: (payload, reason) => options.comparisons(payload.region).fail(payload.comparisonId, reason),
      logFields: (payload) => ({ comparisonId: payload.comparisonId, region: payload.region }),
    },
  );
}
