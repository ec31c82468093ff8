import type { DeclaredCrs } from '../../domain/georeferencing/declared-crs.js';
import type { PointCloudFormat } from '../../domain/processing/point-cloud-formats.js';

export type { PointCloudFormat };

/** What every point-cloud reader yields: a header read up front, then batches streamed from disk. */
export type PointAttribute = 'position' | 'color' | 'intensity' | 'classification' | 'distance';

export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

/**
 * A run of points: positions x,y,z interleaved; colors r,g,b interleaved as 0..255; intensity
 * as the file stores it (its range is the header's `intensityRange`); classification as the
 * LAS class code (docs/processing.md, "Intensity and classification"); distance, a comparison's
 * distances PLY's float `distance` in metres as it is (-1 beyond its maxDistance, NaN where not
 * computable; docs/comparisons-viewer.md).
 */
export interface PointBatch {
  count: number;
  positions: Float64Array;
  colors?: Uint8Array;
  intensity?: Float32Array;
  classification?: Uint8Array;
  distance?: Float32Array;
}

/** `attributes` lists what the file declares; `classification` is known from the batches (point-cloud-processor.ts). */
export interface PointCloudHeader {
  format: PointCloudFormat;
  /** Declared by the file; undefined where the format only knows it at the end (XYZ). */
  pointCount?: number;
  /** Declared by the file (LAS); the processor computes the exact bounds itself. */
  declaredBounds?: Bounds;
  attributes: PointAttribute[];
  /**
   * The range the file's intensity values span, mapped to 0..1 in the tiles (LAS: 0..65535).
   * Undefined with intensity: the format has no fixed range, the points' own min and max are used.
   */
  intensityRange?: [number, number];
  /** The coordinate system the file declares (LAS/LAZ projection records, E57 coordinateMetadata). */
  crs?: DeclaredCrs;
}

export interface PointCloudReader {
  header: PointCloudHeader;
  /** Reads the file from the start each time it is called, so a processor can make two passes. */
  batches(): AsyncIterable<PointBatch>;
}

/** Points per batch the readers aim for: large enough to amortize reads, small enough to stay flat. */
export const BATCH_POINTS = 65_536;

export function emptyBounds(): Bounds {
  return { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
}

export function extendBounds(bounds: Bounds, positions: Float64Array, count: number): void {
  const { min, max } = bounds;
  for (let i = 0; i < count * 3; i += 3) {
    for (let axis = 0; axis < 3; axis += 1) {
      const value = positions[i + axis]!;
      if (value < min[axis]!) min[axis] = value;
      if (value > max[axis]!) max[axis] = value;
    }
  }
}
