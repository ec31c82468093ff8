import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openPointCloud } from './point-clouds/open-point-cloud.js';
import {
  type Bounds,
  emptyBounds,
  extendBounds,
  type PointAttribute,
  type PointCloudFormat,
} from './point-clouds/point-cloud.js';
import { ReservoirSample } from './point-clouds/reservoir-sample.js';
import { notCompatible } from './processing-error.js';
import { renderThumbnail } from './thumbnail.js';
import { boxOfBounds } from './tiles/octree-box.js';
import { buildOctree } from './tiles/octree-builder.js';
import { tilesetOf } from './tiles/tileset.js';

export interface PointCloudOptions {
  /** Called with 0..1 as the work advances, so a worker can heartbeat. */
  onProgress?: (fraction: number) => void;
  /** Refuse content whose real format is not this one (FileNotCompatible). */
  expectedFormat?: PointCloudFormat;
  /** Most points in one tile (default 50,000). */
  tilePoints?: number;
  /** Most points of one box held in memory while tiling (default 250,000). */
  memoryPoints?: number;
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
}

const THUMBNAIL_SAMPLE = 40_000;
/** Share of the progress given to the first pass (bounds); the tiling pass writes and takes longer. */
const FIRST_PASS = 0.25;

/**
 * A point cloud to an OGC 3D Tiles 1.1 tileset of glTF point tiles plus a PNG thumbnail, in two
 * streaming passes: the first counts, bounds and samples; the second builds the octree.
 */
export async function processPointCloud(
  inputPath: string,
  outputDir: string,
  options: PointCloudOptions = {},
): Promise<PointCloudResult> {
  const reader = await openPointCloud(inputPath, options.expectedFormat);
  const report = options.onProgress ?? (() => {});
  const bounds = emptyBounds();
  const sample = new ReservoirSample(THUMBNAIL_SAMPLE);
  let pointCount = 0;
  let hasColors = reader.header.attributes.includes('color');
  report(0);
  for await (const batch of reader.batches()) {
    extendBounds(bounds, batch.positions, batch.count);
    sample.add(batch);
    if (!batch.colors) hasColors = false;
    pointCount += batch.count;
    if (reader.header.pointCount) report((FIRST_PASS * pointCount) / reader.header.pointCount);
  }
  if (pointCount === 0) throw notCompatible('The point cloud holds no points');
  if (![...bounds.min, ...bounds.max].every(Number.isFinite))
    throw notCompatible('The point cloud has coordinates that are not finite');
  await mkdir(outputDir, { recursive: true });
  const tilePoints = options.tilePoints ?? 50_000;
  let placed = 0;
  const root = await buildOctree(reader.batches(), pointCount, boxOfBounds(bounds), {
    tilePoints,
    memoryPoints: options.memoryPoints ?? 250_000,
    maxDepth: 16,
    withColors: hasColors,
    contentDir: path.join(outputDir, 'tiles'),
    contentRoot: outputDir,
    spillDir: path.join(outputDir, '.spill'),
    onPoints: (count) => {
      placed += count;
      report(FIRST_PASS + ((1 - FIRST_PASS) * placed) / pointCount);
    },
  });
  const tileset = tilesetOf(root, tilePoints);
  await writeFile(path.join(outputDir, 'tileset.json'), JSON.stringify(tileset));
  await writeFile(path.join(outputDir, 'thumbnail.png'), renderThumbnail(sample, bounds));
  const contents: string[] = [];
  const collect = (node: typeof root) => {
    contents.push(node.content);
    for (const child of node.children) collect(child);
  };
  collect(root);
  report(1);
  const attributes = reader.header.attributes.filter((a) => a !== 'color' || hasColors);
  return {
    format: reader.header.format,
    pointCount,
    bounds,
    attributes,
    files: ['tileset.json', ...contents, 'thumbnail.png'],
    tilesetPath: 'tileset.json',
    thumbnailPath: 'thumbnail.png',
  };
}
