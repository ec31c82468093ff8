import { ApiError, validationError } from '../errors.js';

/**
 * A comparison's rules (docs/comparisons.md): its settings and their bounds, its cost, its
 * states and the steps between them. No I/O.
 */

export const COMPARISON_METHODS = ['c2c', 'm3c2'] as const;
export type ComparisonMethod = (typeof COMPARISON_METHODS)[number];

/** queued at submission, running once a worker holds its job, then ready or failed. */
export type ComparisonState = 'queued' | 'running' | 'ready' | 'failed';

export const MAX_DISTANCE = { min: 0.001, max: 1000, default: 1 };
export const DEFAULT_TOLERANCE = 0.05;

export interface ComparisonSettings {
  method: ComparisonMethod;
  maxDistance: number;
  tolerance: number;
}

/**
 * A submission's settings with their defaults, or 400 naming the field: two different bundles,
 * maxDistance within its bounds, tolerance above 0 and at most maxDistance.
 */
export function comparisonSettings(request: {
  referenceBundleId: string;
  comparedBundleId: string;
  method?: ComparisonMethod;
  maxDistance?: number;
  tolerance?: number;
}): ComparisonSettings {
  if (request.referenceBundleId === request.comparedBundleId) {
    throw validationError('body.comparedBundleId: the compared bundle is the reference bundle; compare two different bundles');
  }
  const maxDistance = request.maxDistance ?? MAX_DISTANCE.default;
  if (!Number.isFinite(maxDistance) || maxDistance < MAX_DISTANCE.min || maxDistance > MAX_DISTANCE.max) {
    throw validationError(`body.maxDistance: metres, from ${MAX_DISTANCE.min} to ${MAX_DISTANCE.max}`);
  }
  const tolerance = request.tolerance ?? Math.min(DEFAULT_TOLERANCE, maxDistance);
  if (!Number.isFinite(tolerance) || tolerance <= 0 || tolerance > maxDistance) {
    throw validationError(`body.tolerance: metres, above 0 and at most maxDistance (${maxDistance})`);
  }
  return { method: request.method ?? 'c2c', maxDistance, tolerance };
}

/** What a comparison's cost depends on: the points of each scan as its processing tiled them. */
export interface ComparisonCostInput {
  /** Null for a processing from before point counts were kept: then estimated from its input bytes. */
  points: number | null;
  inputBytes: number;
}

export const COMPARISON_BASE_COST = 2;
/** A point of LAS 1.2's smallest record (format 0) is 20 bytes: the estimate where no count was kept. */
const BYTES_PER_POINT_ESTIMATE = 20;

/**
 * The cost in credits, a deterministic function of the two scans (docs/comparisons.md, "Cost"):
 * a base per comparison plus one credit per started million points of both scans together.
 */
export function comparisonCost(reference: ComparisonCostInput, compared: ComparisonCostInput): number {
  const points = (scan: ComparisonCostInput) => scan.points ?? Math.ceil(scan.inputBytes / BYTES_PER_POINT_ESTIMATE);
  return COMPARISON_BASE_COST + Math.ceil((points(reference) + points(compared)) / 1_000_000);
}

/** A comparison that is ready or failed is over: a late job, or a second failure report, changes nothing. */
export function isFinished(state: ComparisonState): boolean {
  return state === 'ready' || state === 'failed';
}

/** The twin shows only a ready comparison as a layer. */
export function assertLayerable(state: ComparisonState): void {
  if (state !== 'ready') throw new ApiError('ComparisonNotReady');
}
