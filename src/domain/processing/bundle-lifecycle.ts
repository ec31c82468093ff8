import { ApiError } from '../errors.js';

/**
 * The lifecycle of a data bundle and its processings (docs/uploads.md, "Bundles" and
 * "Processing"): the states, the steps between them, and the node flags each bundle state
 * implies. The store writes a bundle's state and its node's flags together (BundleRepository
 * .setState); they are derived here, in one place. No I/O.
 */

/** created: no input yet; uploaded: its input finalized; then the last processing's outcome. */
export type BundleState = 'created' | 'uploaded' | 'processing' | 'ready' | 'failed';

/** One processing of a bundle: queued at submission, running once a worker holds its job, then its outcome. */
export type ProcessingState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A bundle's state with what its node shows of it (isProcessing, isFailed; the store keeps 0 or 1). */
export interface BundleStatus {
  state: BundleState;
  isProcessing: 0 | 1;
  isFailed: 0 | 1;
}

export function bundleStatus(state: BundleState): BundleStatus {
  return { state, isProcessing: state === 'processing' ? 1 : 0, isFailed: state === 'failed' ? 1 : 0 };
}

/** What a step makes of the processing and of its bundle. */
export interface ProcessingStep<State extends ProcessingState> {
  processing: State;
  bundle: BundleStatus;
}

/**
 * Submitting a processing: a bundle whose processing runs refuses another (409
 * ProcessingAlreadyRunning); any other bundle (one without its row too) starts processing.
 */
export function submit(current: BundleState | undefined): ProcessingStep<'queued'> {
  if (current === 'processing') throw new ApiError('ProcessingAlreadyRunning');
  return { processing: 'queued', bundle: bundleStatus('processing') };
}

/**
 * A launch still pending this long after its submission was interrupted (its process stopped
 * between the commit and the queueing, which takes milliseconds): the housekeeper finishes it
 * (docs/uploads.md, "Processing").
 */
export const INTERRUPTED_LAUNCH_MS = 5 * 60_000;

/** A submission whose job could not be queued is undone: the bundle is back in the state it had. */
export function undoSubmission(before: BundleState): BundleStatus {
  return bundleStatus(before);
}

/** A worker took the processing's job (again, after a release at a worker's stop). */
export const RUNNING: ProcessingState = 'running';

/** The job stored the output: the bundle is ready. */
export function succeed(): ProcessingStep<'succeeded'> {
  return { processing: 'succeeded', bundle: bundleStatus('ready') };
}

/** The job failed (its handler threw, or no heartbeat came): the bundle is failed. */
export function fail(): ProcessingStep<'failed'> {
  return { processing: 'failed', bundle: bundleStatus('failed') };
}

/** A processing that succeeded or failed is over: a late job, or a second failure report, changes nothing. */
export function isFinished(state: ProcessingState): boolean {
  return state === 'succeeded' || state === 'failed';
}

/**
 * The bundle, its input or its folder went away while the job waited or ran: the processing
 * fails with this message as its reason (shown to API callers).
 */
export class ProcessingInputGone extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProcessingInputGone';
  }
}
