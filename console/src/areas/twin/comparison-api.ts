import { ok, RdpApiError, type Schema } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import { describeRefusal } from '../../ui/refusals.js';
import type { TwinLayer } from './twin-layers.js';

export type Comparison = Schema<'Comparison'>;
export type ComparisonStats = NonNullable<Comparison['stats']>;
export type ComparisonHistogram = NonNullable<Comparison['histogram']>;
export type ComparisonMethod = Comparison['method'];

/** The API's defaults (docs/comparisons.md, "Routes"): metres. */
export const DEFAULT_MAX_DISTANCE = 1;
export const DEFAULT_TOLERANCE = 0.05;

/** How often a comparison under way (or a list holding one) is read again. */
export const POLL_MS = 1000;

export const METHOD_WORDS: Record<ComparisonMethod, string> = {
  c2c: 'C2C (nearest point)',
  m3c2: 'M3C2 (along the normal)',
};

export const STATE_WORDS: Record<Comparison['state'], string> = {
  queued: 'Waiting for a worker',
  running: 'Running',
  ready: 'Ready',
  failed: 'Failed',
};

export function isUnderway(comparison: Comparison): boolean {
  return comparison.state === 'queued' || comparison.state === 'running';
}

/** The console addresses of a site's comparisons and of one of them. */
export function comparisonsHref(siteId: string): string {
  return `/twins/${siteId}/comparisons`;
}
export function comparisonHref(siteId: string, comparisonId: string): string {
  return `${comparisonsHref(siteId)}/${comparisonId}`;
}

export function readComparison(session: ConsoleSession, siteId: string, comparisonId: string): Promise<Comparison> {
  return ok(
    session.api.GET('/v1/twin/{contextId}/comparisons/{comparisonId}', { params: { path: { contextId: siteId, comparisonId } } }),
  );
}

export function comparisonCost(
  session: ConsoleSession,
  siteId: string,
  bundles: { referenceBundleId: string; comparedBundleId: string },
): Promise<{ cost: number; unit: string }> {
  return ok(
    session.api.GET('/v1/twin/{contextId}/comparisons/cost', { params: { path: { contextId: siteId }, query: bundles } }),
  );
}

export interface ComparisonRequest {
  name?: string;
  referenceBundleId: string;
  comparedBundleId: string;
  method: ComparisonMethod;
  maxDistance: number;
  tolerance: number;
  cost: number;
}

export function startComparison(session: ConsoleSession, siteId: string, body: ComparisonRequest): Promise<Comparison> {
  return ok(session.api.POST('/v1/twin/{contextId}/comparisons', { params: { path: { contextId: siteId } }, body }));
}

export async function deleteComparison(session: ConsoleSession, siteId: string, comparisonId: string): Promise<void> {
  await ok(
    session.api.DELETE('/v1/twin/{contextId}/comparisons/{comparisonId}', {
      params: { path: { contextId: siteId, comparisonId } },
    }),
  );
}

/** PUT /v1/twin/{siteId}/layers/{comparisonId}: the comparison becomes a layer of the twin (200 when it is one already). */
export function showComparisonInTwin(session: ConsoleSession, siteId: string, comparisonId: string): Promise<TwinLayer> {
  return ok(
    session.api.PUT('/v1/twin/{contextId}/layers/{bundleId}', {
      params: { path: { contextId: siteId, bundleId: comparisonId } },
    }),
  );
}

/** The spec's refusals of a comparison's start (docs/comparisons.md, "Refusals"), in words with what to do. */
const START_REFUSALS: Record<string, string> = {
  ProcessingCostMismatch: 'The cost changed since it was shown. Look at the new cost and start again.',
  BundleNotReady: 'Both data bundles must be processed point clouds. Choose others, or process them first.',
  InsufficientProcessingCapacity: 'No processing capacity is free right now. Try again in a few minutes.',
  ComparisonNotReady: 'The comparison is not ready yet: it can be shown in the twin once it is.',
};

export function describeComparisonRefusal(error: unknown): string {
  if (error instanceof RdpApiError && error.status === 409 && START_REFUSALS[error.error]) {
    const detail = error.body.message ? ` (${error.body.message})` : '';
    return `${START_REFUSALS[error.error]}${detail}`;
  }
  return describeRefusal(error);
}

/** Metres to the millimetre: `0.300 m`; a figure there is none of (no point within maxDistance) as a dash. */
export function formatMetres(value: number | null): string {
  return value === null ? '–' : `${value.toFixed(3)} m`;
}

/** A fraction as a percentage to a tenth: `97.3 %`. */
export function formatShare(value: number | null): string {
  return value === null ? '–' : `${(value * 100).toFixed(1)} %`;
}

export function formatCount(value: number): string {
  return value.toLocaleString('en');
}

/** A comparison's progress in words: `42 %` while it runs, nothing once it ended. */
export function formatProgress(comparison: Comparison): string {
  if (comparison.state === 'ready') return '100 %';
  if (comparison.progress === null || comparison.state === 'failed') return '–';
  return `${Math.floor(comparison.progress * 100)} %`;
}
