import { RdpApiError, type Schema } from '@reality-data-platform/sdk/browser';
import { describeRefusal } from '../../ui/refusals.js';

export type Bundle = Schema<'Bundle'>;
export type Processing = Schema<'Processing'>;

/** A bundle's state in words, as the person meets it. */
export const BUNDLE_STATE_WORDS: Record<string, string> = {
  created: 'Empty: upload its files.',
  uploaded: 'Uploaded: ready to process.',
  processing: 'Processing…',
  ready: 'Processed.',
  failed: 'Its last processing failed.',
};

/** The spec's refusals of a processing's start, in words with what to do. */
const START_REFUSALS: Record<string, string> = {
  ProcessingCostMismatch: 'The cost changed since it was shown. Look at the new cost and confirm again.',
  NoInputDataFoundForProcessing: 'The bundle has no uploaded input yet. Finish its upload first.',
  InsufficientProcessingCapacity: 'No processing capacity is free right now. Try again in a few minutes.',
  FailedToLaunchProcessing: 'The processing could not be launched. Try again.',
  ProcessingAlreadyRunning: 'It is being processed already.',
};

export function describeStartRefusal(error: unknown): string {
  if (error instanceof RdpApiError && error.status === 409 && START_REFUSALS[error.error]) {
    const detail = error.body.message ? ` (${error.body.message})` : '';
    return `${START_REFUSALS[error.error]}${detail}`;
  }
  return describeRefusal(error);
}

/** The processing that tells the bundle's story: its latest. */
export function latestProcessing(bundle: Bundle): Processing | undefined {
  return [...(bundle.processings ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).pop();
}

export function isUnderway(processing: Processing | undefined): boolean {
  return processing?.state === 'queued' || processing?.state === 'running';
}

/**
 * The time between two instants, in words: 0.4 s, 42 s, 3 min 5 s. Under ten seconds it keeps
 * the tenths, so that a small file's processing does not read "0 s".
 */
export function duration(fromIso: string, to: number): string {
  const milliseconds = Math.max(0, to - Date.parse(fromIso));
  if (milliseconds < 9_950) return `${(milliseconds / 1000).toFixed(1)} s`;
  const seconds = Math.round(milliseconds / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
