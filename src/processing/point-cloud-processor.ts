import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Georeference, georeferenceOf } from '../domain/georeferencing/georeference.js';
import { TILE_CONTENT_DIR, TILESET_FILE } from '../domain/processing/tileset-files.js';
import { decodeLazChunk } from './point-clouds/laz-chunks.js';
import { openPointCloud } from './point-clouds/open-point-cloud.js';
import {
  BATCH_POINTS,
  type Bounds,
  emptyBounds,
  extendBounds,
  type PointAttribute,
  type PointBatch,
  type PointCloudFormat,
  type PointCloudReader,
} from './point-clouds/point-cloud.js';
import { ReservoirSample } from './point-clouds/reservoir-sample.js';
import { notCompatible } from './processing-error.js';
import { DEFAULT_THREADS } from './thread-pool.js';
import { renderThumbnail } from './thumbnail.js';
import { boxOfBounds } from './tiles/octree-box.js';
import { buildOctree } from './tiles/octree-builder.js';
import { type OctreeSettings, type OctreeTask, StreamSplitter, type TaskResult } from './tiles/octree-task.js';
import { PointRecords, SEGMENT_POINTS, SpillWriter } from './tiles/spill-file.js';
import { createSpillMeter, spillPeak } from './tiles/spill-meter.js';
import { TileWorkers } from './tiles/tile-workers.js';
import { tilesetOf } from './tiles/tileset.js';

export interface PointCloudOptions {
  /** Called with 0..1 as the work advances, so a worker can heartbeat. */
  onProgress?: (fraction: number) => void;
  /** Refuse content whose real format is not this one (FileNotCompatible). */
  expectedFormat?: PointCloudFormat;
  /** Most points in one tile (default 50,000). */
  tilePoints?: number;
  /** Most points of one box held in memory while tiling, per thread (default 250,000). */
  memoryPoints?: number;
  /**
   * Most points in one spill file (default 1,048,576, 32 MB): a pass over a box's points removes
   * each file once read, so the spills hold about one copy of the points (docs/performance.md, "Scale").
   */
  segmentPoints?: number;
  /**
   * Worker threads that tile (default: the machine's cores, at most 4). A cloud that fits in
   * `memoryPoints`, or 0 threads, is tiled on the calling thread. The tiles are the same either way.
   */
  threads?: number;
  /**
   * Tile a comparison's distances PLY (docs/comparisons-viewer.md): each point's float `distance`
   * becomes the tiles' `_DISTANCE` (metres as they are, -1 beyond maxDistance, NaN as
   * DISTANCE_NOT_COMPUTABLE) in place of `_INTENSITY`. An input without distances is refused.
   */
  distance?: boolean;
}

export interface PointCloudResult {
  format: PointCloudFormat;
  pointCount: number;
  bounds: Bounds;
  attributes: PointAttribute[];
  /** Every file written, relative to the output directory: tileset.json, the tiles (tiles/*.glb), thumbnail.png. */
  files: string[];
  tilesetPath: string;
  thumbnailPath: string;
  /** On the globe (the tileset's root transform) or in the file's own frame, and why. */
  georeference: Georeference;
  /** The most bytes the spill files held at once: the disk the tiling needs beside its input and tiles. */
  spillPeakBytes: number;
}

const THUMBNAIL_SAMPLE = 40_000;
/** Share of the progress given to the decoding pass; the tiling writes and takes longer. */
const FIRST_PASS = 0.25;

/**
 * A point cloud to an OGC 3D Tiles 1.1 tileset of glTF point tiles plus a PNG thumbnail. The
 * input is decoded once: that pass counts, bounds and samples it and parks the decoded points
 * in a spill file, from which the octree is built (on worker threads for a large cloud).
 */
export async function processPointCloud(
  inputPath: string,
  outputDir: string,
  options: PointCloudOptions = {},
): Promise<PointCloudResult> {
  let workers: TileWorkers | undefined;
  // LAZ chunks are decompressed on the tiling threads while they have nothing else to do.
  const reader = await openPointCloud(inputPath, options.expectedFormat, {
    decodeLazChunk: (chunk) => (workers ? workers.decodeLazChunk(chunk) : decodeLazChunk(chunk)),
  });
  const withDistance = options.distance === true;
  if (withDistance && !reader.header.attributes.includes('distance'))
    throw notCompatible('The point cloud has no distance property to tile as _DISTANCE');
  const report = options.onProgress ?? (() => {});
  const tilePoints = options.tilePoints ?? 50_000;
  const memoryPoints = options.memoryPoints ?? 250_000;
  const threads = options.threads ?? DEFAULT_THREADS;
  let placed = 0;
  let pointCount = 0;
  const onPoints = (count: number) => {
    placed += count;
    report(FIRST_PASS + ((1 - FIRST_PASS) * placed) / pointCount);
  };
  const declared = reader.header.pointCount;
  // Started now, so that their start-up overlaps the decoding pass.
  if (threads > 0 && (declared === undefined || declared > memoryPoints)) workers = new TileWorkers(threads, onPoints);
  const spillDir = path.join(outputDir, '.spill');
  const settings: OctreeSettings = {
    tilePoints,
    memoryPoints,
    maxDepth: 16,
    withColors: reader.header.attributes.includes('color'),
    withClassification: false,
    withDistance,
    // Content URIs are relative to the tileset (its folder is served as is: docs/processing.md).
    contentDir: path.join(outputDir, TILE_CONTENT_DIR),
    contentRoot: outputDir,
    spillDir,
    spillMeter: createSpillMeter(),
    segmentPoints: options.segmentPoints,
  };
  try {
    await mkdir(settings.contentDir, { recursive: true });
    await mkdir(path.join(spillDir, 'decoded'), { recursive: true });
    report(0);
    const pass = await decodeOnce(reader, settings, (count) => {
      pointCount = count;
      if (declared) report((FIRST_PASS * count) / declared);
    });
    const { bounds, sample, hasColors } = pass;
    settings.withColors = hasColors;
    settings.withClassification = pass.splitSettings.withClassification;
    if (pass.splitSettings.intensityRange && !withDistance) settings.intensityRange = pass.splitSettings.intensityRange;
    if (pointCount === 0) throw notCompatible('The point cloud holds no points');
    if (![...bounds.min, ...bounds.max].every(Number.isFinite))
      throw notCompatible('The point cloud has coordinates that are not finite');
    const georeference = georeferenceOf(
      reader.header.crs,
      [0, 1, 2].map((axis) => (bounds.min[axis]! + bounds.max[axis]!) / 2) as [number, number, number],
    );
    // Georeferenced: tiles relative to the cloud's centre, which the root transform puts on the globe.
    const origin = georeference.georeferenced ? georeference.origin : undefined;
    if (origin) {
      settings.origin = origin;
      pass.splitSettings.origin = origin;
    }
    if (pointCount <= memoryPoints) {
      await workers?.close();
      workers = undefined;
    } else if (!workers && threads > 0) {
      workers = new TileWorkers(threads, onPoints);
    }
    const root = await buildOctree(await rootOf(pass, pointCount, bounds, spillDir, onPoints), {
      ...settings,
      onPoints,
      workers,
    });
    const tileset = tilesetOf(root, tilePoints, {
      origin,
      transform: georeference.georeferenced ? georeference.transform : undefined,
      extras: { georeference: georeferenceRecord(georeference) },
    });
    await writeFile(path.join(outputDir, TILESET_FILE), JSON.stringify(tileset));
    await writeFile(path.join(outputDir, 'thumbnail.png'), renderThumbnail(sample, bounds));
    const contents: string[] = [];
    const collect = (node: typeof root) => {
      contents.push(node.content);
      for (const child of node.children) collect(child);
    };
    collect(root);
    report(1);
    const attributes: PointAttribute[] = ['position'];
    if (hasColors) attributes.push('color');
    if (settings.intensityRange) attributes.push('intensity');
    if (settings.withClassification) attributes.push('classification');
    if (withDistance) attributes.push('distance');
    return {
      format: reader.header.format,
      pointCount,
      bounds,
      attributes,
      files: [TILESET_FILE, ...contents, 'thumbnail.png'],
      tilesetPath: TILESET_FILE,
      thumbnailPath: 'thumbnail.png',
      georeference,
      spillPeakBytes: spillPeak(settings.spillMeter!),
    };
  } finally {
    await workers?.close();
    await rm(spillDir, { recursive: true, force: true });
  }
}

/** What tileset.json says of its frame: the georeference without the matrix, which is the root's transform. */
function georeferenceRecord(georeference: Georeference): Record<string, unknown> {
  if (!georeference.georeferenced) return { ...georeference };
  const { transform: _transform, ...rest } = georeference;
  return rest;
}

interface DecodedPass {
  bounds: Bounds;
  /** The settings the root split while decoding writes its tile with. */
  splitSettings: OctreeSettings;
  sample: ReservoirSample;
  hasColors: boolean;
  /** The decoded points' files, when the root box was not known while decoding. */
  decoded?: string[];
  /** The root box already split while decoding, in the box the file declares. */
  splitter?: StreamSplitter;
}

/**
 * The one decoding pass: bounds, count and thumbnail sample, and the points parked for the
 * tiling. A file that declares its count and bounds (LAS, LAZ) and is larger than one box in
 * memory has its root box split right here, saving the tiling a pass over every point.
 */
async function decodeOnce(reader: PointCloudReader, settings: OctreeSettings, onCount: (count: number) => void) {
  const { pointCount: declared, declaredBounds } = reader.header;
  const declaredBox =
    declared !== undefined &&
    declared > settings.memoryPoints &&
    declaredBounds &&
    [...declaredBounds.min, ...declaredBounds.max].every(Number.isFinite) &&
    declaredBounds.min.every((min, axis) => min <= declaredBounds.max[axis]!)
      ? boxOfBounds(declaredBounds)
      : undefined;
  const splitDir = path.join(settings.spillDir, 'decoded');
  // Its own folder: should the declaration prove wrong, its spills become a root task's inputs.
  const splitSettings = { ...settings, spillDir: splitDir };
  const splitter = declaredBox
    ? await StreamSplitter.create({ count: declared!, box: declaredBox, address: 'r', depth: 0 }, splitSettings)
    : undefined;
  const decoded = splitter
    ? undefined
    : await SpillWriter.create(path.join(splitDir, 'decoded.bin'), {
        meter: settings.spillMeter,
        segmentPoints: settings.segmentPoints ?? SEGMENT_POINTS,
      });
  const pass: DecodedPass = {
    bounds: emptyBounds(),
    splitSettings,
    sample: new ReservoirSample(THUMBNAIL_SAMPLE),
    hasColors: true,
    splitter,
  };
  pass.hasColors = reader.header.attributes.includes('color');
  const seen = new AttributesSeen(reader.header.attributes);
  let records = new PointRecords(BATCH_POINTS);
  let count = 0;
  try {
    for await (const batch of reader.batches()) {
      extendBounds(pass.bounds, batch.positions, batch.count);
      pass.sample.add(batch);
      if (!batch.colors) pass.hasColors = false;
      seen.add(batch);
      if (batch.count > records.capacity) records = new PointRecords(batch.count);
      records.setBatch(batch, settings.withDistance ? 'distance' : 'intensity');
      if (splitter) await splitter.add(records, batch.count);
      else await addAll(decoded!, records, batch.count);
      count += batch.count;
      onCount(count);
    }
  } finally {
    await decoded?.close();
  }
  if (decoded) pass.decoded = decoded.paths;
  splitSettings.withColors = pass.hasColors;
  splitSettings.withClassification = seen.classification;
  const intensityRange =
    seen.intensity && !settings.withDistance ? (reader.header.intensityRange ?? seen.intensityRange) : undefined;
  if (intensityRange) splitSettings.intensityRange = intensityRange;
  return pass;
}

/**
 * Whether every point has an intensity and a class code, and whether they say anything: a
 * file whose intensities or classes are all 0 (LAS writes 0 where nothing was measured or
 * classified) has none (docs/processing.md, "Intensity and classification"). Also the
 * intensities' own range, for formats that declare none.
 */
class AttributesSeen {
  private hasIntensity: boolean;
  private hasClassification: boolean;
  private intensityNonZero = false;
  private classNonZero = false;
  private low = Infinity;
  private high = -Infinity;

  /** Class codes are known from the points alone: LAS has the field in every point format. */
  constructor(declared: PointAttribute[]) {
    this.hasIntensity = declared.includes('intensity');
    this.hasClassification = true;
  }

  add(batch: PointBatch): void {
    const { intensity, classification, count } = batch;
    if (!intensity) this.hasIntensity = false;
    if (!classification) this.hasClassification = false;
    if (this.hasIntensity && intensity) {
      for (let i = 0; i < count; i += 1) {
        const value = intensity[i]!;
        if (value < this.low) this.low = value;
        if (value > this.high) this.high = value;
      }
      if (this.low !== 0 || this.high !== 0) this.intensityNonZero = true;
    }
    if (this.hasClassification && classification && !this.classNonZero) {
      for (let i = 0; i < count && !this.classNonZero; i += 1) if (classification[i] !== 0) this.classNonZero = true;
    }
  }

  get intensity(): boolean {
    return this.hasIntensity && this.intensityNonZero && Number.isFinite(this.low) && Number.isFinite(this.high);
  }

  get classification(): boolean {
    return this.hasClassification && this.classNonZero;
  }

  /** The points' own min..max, for a format with no fixed range. */
  get intensityRange(): [number, number] {
    return [this.low, this.high];
  }
}

async function addAll(writer: SpillWriter, records: PointRecords, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) if (writer.add(records, i)) await writer.flush();
}

/**
 * Where the octree starts: the root split while decoding, when every point fell inside the
 * declared box and the count matched; otherwise a root task over the decoded points (after a
 * wrong declaration: the kept points and the child spills, which hold every point).
 */
async function rootOf(
  pass: DecodedPass,
  count: number,
  bounds: Bounds,
  spillDir: string,
  onPoints: (count: number) => void,
): Promise<{ task: OctreeTask } | { result: TaskResult }> {
  const { splitter } = pass;
  const root = { count, box: boxOfBounds(bounds), address: 'r', depth: 0 };
  if (!splitter) return { task: { ...root, inputs: pass.decoded! } };
  const declared = splitter.box;
  const inside = [0, 1, 2].every(
    (axis) =>
      bounds.min[axis]! >= declared.center[axis]! - declared.half[axis]! &&
      bounds.max[axis]! <= declared.center[axis]! + declared.half[axis]!,
  );
  if (inside && splitter.seen === splitter.count) {
    const result = await splitter.finish();
    onPoints(result.node.pointCount);
    return { result };
  }
  return { task: { ...root, inputs: await splitter.abandon(path.join(spillDir, 'decoded', 'kept.bin')) } };
}
