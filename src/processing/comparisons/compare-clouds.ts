import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ComparisonHistogram, ComparisonStats } from '../../domain/comparisons/comparison-figures.js';
import { openPointCloud } from '../point-clouds/open-point-cloud.js';
import { DEFAULT_THREADS } from '../thread-pool.js';
import { comparisonScales } from './cell-m3c2.js';
import { splitIntoCells } from './cloud-cells.js';
import type { CellTask, DecodedNote } from './comparison-task.js';
import { ComparisonWorkers } from './comparison-workers.js';
import { distanceFigures } from './distance-figures.js';
import { DistanceOutputs, type EncodedDistances } from './distance-outputs.js';

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
  /**
   * Relative to outputDir: `distances.csv`, header x,y,z,distance, the distance empty beyond
   * maxDistance. Its points, like the PLY's, come cell by cell, not in the compared file's order.
   */
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
  /**
   * Most points, both scans together, in one cell worked on in memory (default 2,000,000); also
   * the most reference points gathered at once from neighbouring cells. Tests force it small.
   */
  cellPoints?: number;
  /** Threads measuring cells side by side (default: the processing's, up to 4); 0 measures them in this thread. */
  threads?: number;
}

export const DEFAULT_CELL_POINTS = 2_000_000;

/** Shares of the progress: decoding both scans, cutting them into cells, then the cells. */
const DECODED = 0.2;
const SPLIT = 0.3;
const CELLS_DONE = 0.95;

/**
 * Compares two scans (docs/comparisons.md, docs/comparisons-c2c.md): for every point of the
 * compared scan, its distance to the reference. C2C: the exact distance to the nearest
 * reference point, in bounded memory: both scans are decoded to disk and cut into cells of a
 * bounded number of points; each cell's compared points are measured against a k-d tree over
 * the cell's reference points, then against the reference points of neighbouring cells that
 * could be nearer (cell-distances.ts). M3C2: signed distances along the local normals at every
 * compared point, with their level of detection, each cell with the points of both scans its
 * cylinders reach (cell-m3c2.ts). Distances are in the files' own units and frame: the two scans
 * are taken to be registered in one frame.
 */
export async function compareClouds(
  input: CompareInput,
  outputDir: string,
  options: CompareOptions = {},
): Promise<CompareResult> {
  const { signal } = options;
  const report = options.onProgress ?? (() => {});
  const cellPoints = Math.max(1, options.cellPoints ?? DEFAULT_CELL_POINTS);
  const spillDir = path.join(outputDir, '.comparison-spill');
  await mkdir(spillDir, { recursive: true });
  try {
    report(0);
    // Opened here first: a header that is wrong fails the comparison as a ProcessingError at once.
    const declared = await Promise.all(
      [input.reference, input.compared].map(async (file) => (await openPointCloud(file)).header.pointCount ?? 0),
    );
    const decodedSoFar = { reference: 0, compared: 0 };
    const onDecoded = ({ side, count }: DecodedNote) => {
      decodedSoFar[side] = count;
      const total = declared[0]! + declared[1]!;
      if (total > 0) report((DECODED * (decodedSoFar.reference + decodedSoFar.compared)) / total);
    };
    const workers = new ComparisonWorkers(options.threads ?? DEFAULT_THREADS, onDecoded, signal);
    let outputs: DistanceOutputs | undefined;
    try {
      // The two scans are decoded side by side, then split side by side.
      const [reference, compared] = await Promise.all([
        workers.spill(input.reference, path.join(spillDir, 'reference.bin'), 'reference'),
        workers.spill(input.compared, path.join(spillDir, 'compared.bin'), 'compared'),
      ]);
      signal?.throwIfAborted();
      const border = input.method === 'c2c' ? input.maxDistance : undefined;
      const cells = await splitIntoCells(reference, compared, cellPoints, spillDir, workers.splitSide, { border, signal });
      report(SPLIT);
      outputs = await DistanceOutputs.create(
        path.join(outputDir, 'distances.csv'),
        path.join(outputDir, 'compared-distances.ply'),
        path.join(spillDir, 'kept.bin'),
        input.tolerance,
        input.method === 'm3c2',
      );
      const scales = input.method === 'm3c2' ? await comparisonScales(cells, input.maxDistance) : undefined;
      const taskOf = (cell: number): CellTask =>
        scales
          ? { cell, cells, method: 'm3c2', scales }
          : { cell, cells, method: 'c2c', maxDistance: input.maxDistance, marginPoints: cellPoints };
      const start = (cell: number) => {
        const running = workers.measure(taskOf(cell));
        // Awaited in turn below; a failure meanwhile must not count as unhandled.
        running.catch(() => undefined);
        return running;
      };
      // Cells run ahead on the threads, their outputs appended in turn (one waiting at most);
      // the largest first, so that the last ones, running while threads fall idle, are small.
      const size = (index: number) => cells[index]!.comparedCount + cells[index]!.referenceCount;
      const todo = cells
        .flatMap((cell, index) => (cell.comparedCount > 0 ? [index] : []))
        .sort((a, b) => size(b) - size(a) || a - b);
      const ahead = workers.threads > 0 ? workers.threads + 1 : 1;
      const running: Promise<EncodedDistances>[] = [];
      for (let next = 0; next < todo.length || running.length > 0; ) {
        while (next < todo.length && running.length < ahead) running.push(start(todo[next++]!));
        const encoded = await running.shift()!;
        signal?.throwIfAborted();
        await outputs.append(encoded);
        report(SPLIT + ((CELLS_DONE - SPLIT) * outputs.comparedPoints) / Math.max(1, compared.count));
      }
    } finally {
      await workers.close();
      await outputs?.close();
    }
    const { summary, comparedPoints } = outputs;
    const figures = await distanceFigures(path.join(spillDir, 'kept.bin'), summary, comparedPoints);
    report(1);
    return { ...figures, csvPath: 'distances.csv', plyPath: 'compared-distances.ply' };
  } finally {
    await rm(spillDir, { recursive: true, force: true });
  }
}
