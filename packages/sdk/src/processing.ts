import { ok, type Schema } from './client.js';
import type { HasApi } from './uploads.js';

type Processing = Schema<'Processing'>;

export interface WaitOptions {
  /** Between two looks (default 2000 ms). */
  intervalMs?: number;
  /** Give up after this long (default: never): throws an Error. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Hears the processing at every look (queued, running...). */
  onUpdate?: (processing: Processing) => void;
}

/**
 * Reads the cost (GET …/processing/cost) and starts the processing with it (POST …/processing).
 * The cost is a function of the input only; showing it to a person before starting is the
 * caller's (getProcessingCost, then startProcessing). An idempotency key makes a retried start
 * answer the first processing.
 */
export async function startProcessing(client: HasApi, bundleId: string, options: { idempotencyKey?: string } = {}) {
  const path = { bundleId };
  const { cost } = await ok(client.api.GET('/v1/bundles/{bundleId}/processing/cost', { params: { path } }));
  return ok(
    client.api.POST('/v1/bundles/{bundleId}/processing', {
      params: { path, header: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {} },
      body: { cost },
    }),
  );
}

/**
 * Looks at the bundle's processings until `processingId` (default: the latest) has ended, and
 * answers it: state `succeeded` (derivativeId, tilesetUrl) or `failed` (failureReason).
 */
export async function waitForProcessing(
  client: HasApi,
  bundleId: string,
  processingId?: string,
  options: WaitOptions = {},
): Promise<Processing> {
  const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const bundle = await ok(
      client.api.GET('/v1/bundles/{bundleId}', { params: { path: { bundleId }, query: { expand: 'processings' } } }),
    );
    const processings = bundle.processings ?? [];
    const processing = processingId
      ? processings.find((each) => each.id === processingId)
      : [...processings].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).pop();
    if (!processing) throw new Error(`Bundle ${bundleId} has no processing${processingId ? ` ${processingId}` : ''}`);
    options.onUpdate?.(processing);
    if (processing.state === 'succeeded' || processing.state === 'failed') return processing;
    if (Date.now() >= deadline)
      throw new Error(`Processing ${processing.id} is still ${processing.state} after ${options.timeoutMs} ms`);
    await sleep(options.intervalMs ?? 2000, options.signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
