import { createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import {
  type ComparisonHistogram,
  type ComparisonStats,
  comparisonFigures,
} from '../../domain/comparisons/comparison-figures.js';
import { openPointCloud } from '../point-clouds/open-point-cloud.js';
import { PointKdTree } from './point-kd-tree.js';

export type ComparisonMethod = 'c2c' | 'm3c2';

export interface CompareInput {
  /** The reference scan's input file (any point-cloud format the processing reads), full resolution. */
  reference: string;
  /** The compared scan's input file: every one of its points gets a distance. */
  compared: string;
  method: ComparisonMethod;
  /** Metres: farther points are counted in beyondMaxDistance and left out of the figures. */
  maxDistance: number;
  /** Metres: withinTolerance is the share of kept points at most this far. */
  tolerance: number;
}

export interface CompareResult {
  stats: ComparisonStats;
  histogram: ComparisonHistogram;
  /** Relative to outputDir: `distances.csv`, header x,y,z,distance, the distance empty beyond maxDistance. */
  csvPath: string;
  /**
   * Relative to outputDir: `compared-distances.ply`, binary, the compared points with their
   * colours and a float `distance` (-1 beyond maxDistance), for the tiler (docs/comparisons.md).
   */
  plyPath: string;
}

export interface CompareOptions {
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/**
 * Compares two scans (docs/comparisons.md): for every point of the compared scan, its distance
 * to the reference. C2C: the exact distance to the nearest reference point (a k-d tree over
 * the reference). Distances are in the files' own units and frame: the two scans are taken to
 * be registered in one frame.
 */
export async function compareClouds(
  input: CompareInput,
  outputDir: string,
  options: CompareOptions = {},
): Promise<CompareResult> {
  if (input.method !== 'c2c') throw new Error(`The ${input.method} method is not built yet`);
  const reference = await openPointCloud(input.reference);
  const positions = await readPositions(reference, options.signal);
  options.onProgress?.(0.1);
  const tree = new PointKdTree(positions.values, positions.count);
  options.onProgress?.(0.2);
  const compared = await openPointCloud(input.compared);
  const declared = compared.header.pointCount;
  const csv = createWriteStream(path.join(outputDir, 'distances.csv'));
  const ply = new DistancePlyWriter(path.join(outputDir, 'compared-distances.ply'));
  let kept: Float64Array<ArrayBuffer> = new Float64Array(1 << 16);
  let keptCount = 0;
  let comparedPoints = 0;
  try {
    await write(csv, 'x,y,z,distance\n');
    for await (const batch of compared.batches()) {
      options.signal?.throwIfAborted();
      let text = '';
      const distances = new Float32Array(batch.count);
      for (let i = 0; i < batch.count; i += 1) {
        const x = batch.positions[i * 3]!;
        const y = batch.positions[i * 3 + 1]!;
        const z = batch.positions[i * 3 + 2]!;
        const d = tree.nearestDistance(x, y, z, input.maxDistance);
        if (Number.isFinite(d)) {
          if (keptCount === kept.length) kept = grown(kept);
          kept[keptCount++] = d;
          distances[i] = d;
          text += `${x},${y},${z},${d}\n`;
        } else {
          distances[i] = -1;
          text += `${x},${y},${z},\n`;
        }
      }
      comparedPoints += batch.count;
      await write(csv, text);
      await ply.add(batch.positions, batch.colors, distances, batch.count);
      if (declared) options.onProgress?.(0.2 + (0.75 * comparedPoints) / declared);
    }
  } finally {
    await new Promise<void>((resolve, reject) => csv.end((error?: Error | null) => (error ? reject(error) : resolve())));
    await ply.close();
  }
  const figures = comparisonFigures(kept.subarray(0, keptCount), comparedPoints, input.tolerance);
  options.onProgress?.(1);
  return { ...figures, csvPath: 'distances.csv', plyPath: 'compared-distances.ply' };
}

async function readPositions(
  reader: Awaited<ReturnType<typeof openPointCloud>>,
  signal?: AbortSignal,
): Promise<{ values: Float64Array; count: number }> {
  let values: Float64Array<ArrayBuffer> = new Float64Array(3 * (reader.header.pointCount ?? 1 << 16));
  let count = 0;
  for await (const batch of reader.batches()) {
    signal?.throwIfAborted();
    while ((count + batch.count) * 3 > values.length) values = grown(values);
    values.set(batch.positions.subarray(0, batch.count * 3), count * 3);
    count += batch.count;
  }
  return { values, count };
}

function grown(values: Float64Array): Float64Array<ArrayBuffer> {
  const out = new Float64Array(Math.max(3, values.length * 2));
  out.set(values);
  return out;
}

function write(stream: WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.write(text)) resolve();
    else {
      stream.once('drain', resolve);
      stream.once('error', reject);
    }
  });
}

/**
 * The compared points as a binary little-endian PLY: x y z doubles, red green blue bytes, a
 * float distance. The vertex count goes in the header, written last (a fixed-width field).
 */
class DistancePlyWriter {
  private file: Awaited<ReturnType<typeof open>> | undefined;
  private count = 0;
  private offset = 0;
  private static readonly COUNT_WIDTH = 12;

  constructor(private readonly path: string) {}

  private header(count: number): Buffer {
    const padded = String(count).padStart(DistancePlyWriter.COUNT_WIDTH, '0');
    return Buffer.from(
      `ply\nformat binary_little_endian 1.0\nelement vertex ${padded}\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty float distance\nend_header\n`,
      'latin1',
    );
  }

  async add(positions: Float64Array, colors: Uint8Array | undefined, distances: Float32Array, count: number): Promise<void> {
    if (!this.file) {
      this.file = await open(this.path, 'w');
      const header = this.header(0);
      await this.file.write(header, 0, header.length, 0);
      this.offset = header.length;
    }
    const record = 8 * 3 + 3 + 4;
    const bytes = Buffer.alloc(count * record);
    for (let i = 0; i < count; i += 1) {
      const at = i * record;
      bytes.writeDoubleLE(positions[i * 3]!, at);
      bytes.writeDoubleLE(positions[i * 3 + 1]!, at + 8);
      bytes.writeDoubleLE(positions[i * 3 + 2]!, at + 16);
      bytes[at + 24] = colors ? colors[i * 3]! : 255;
      bytes[at + 25] = colors ? colors[i * 3 + 1]! : 255;
      bytes[at + 26] = colors ? colors[i * 3 + 2]! : 255;
      bytes.writeFloatLE(distances[i]!, at + 27);
    }
    await this.file.write(bytes, 0, bytes.length, this.offset);
    this.offset += bytes.length;
    this.count += count;
  }

  async close(): Promise<void> {
    if (!this.file) {
      this.file = await open(this.path, 'w');
      const header = this.header(0);
      await this.file.write(header, 0, header.length, 0);
    }
    const header = this.header(this.count);
    await this.file.write(header, 0, header.length, 0);
    await this.file.close();
  }
}
