import { setTimeout as delay } from 'node:timers/promises';
import type { AttemptOutcome, DeliveryToSend } from '../adapters/db/repositories/webhook-repository.js';
import { postWebhook, type WebhookPostResult } from '../adapters/webhooks/webhook-post.js';
import type { Config } from '../config/config.js';
import { unsealText } from '../crypto/sealed-text.js';
import { GONE, isSuccess, retryDelayMs } from '../domain/webhooks/retries.js';
import { signatureHeader } from '../domain/webhooks/signing.js';
import type { Platform, PlatformSecrets, RegionContext } from '../platform.js';
import type { Clock } from '../ports/clock.js';
import { checkEndpointAddress } from '../services/webhooks/endpoint-address.js';
import type { OutboxSignal } from '../services/webhooks/outbox-signal.js';
import type { JobWorkerLog } from './worker.js';

/** How much of a receiver's answer is read: enough for the log's error text. */
export const MAX_RESPONSE_BYTES = 4096;
const MAX_ERROR_TEXT = 500;

/**
 * What the dispatcher uses of the platform (the platform itself fits): the clock, whether private
 * addresses are allowed, the key that unseals the endpoints' secrets, and each opened region's
 * webhook repository.
 */
export interface WebhookDispatcherStores {
  clock: Clock;
  config: { webhooks: Pick<Config['webhooks'], 'allowPrivate'> };
  secrets: Pick<PlatformSecrets, 'webhookSecrets'>;
  openedRegions(): DispatcherRegion[];
  /** This process's outbox writes: a pass right after their commit instead of at the next poll. */
  outboxSignal?: Pick<OutboxSignal, 'subscribe'>;
}

type DispatcherRegion = Pick<RegionContext, 'region' | 'webhooks'> & { store?: Pick<RegionContext['store'], 'writesSettled'> };

export interface WebhookDispatcherOptions {
  /** Deliveries sent at once. */
  concurrency: number;
  /** How often the stores are asked for due deliveries. */
  pollIntervalMs: number;
  /** One attempt's limit, the address check included. */
  timeoutMs: number;
  log?: JobWorkerLog;
}

/**
 * The worker role's sender of webhook deliveries (docs/webhooks.md). Due deliveries of every
 * opened region are claimed with a lease (twice the attempt's limit, plus a second): two workers
 * never send the same attempt at once, and the delivery of a worker killed mid-send is sent
 * again once its lease runs out (at least once). Each attempt re-checks the endpoint's address
 * and connects to the address it checked.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  /** A wake-up came during a pass, maybe after it read a region: the pass goes round once more. */
  private again = false;
  private unsubscribe: (() => void) | undefined;
  private stopping = false;

  constructor(
    private readonly platform: WebhookDispatcherStores,
    private readonly options: WebhookDispatcherOptions,
  ) {}

  start(): void {
    this.stopping = false;
    this.timer = setInterval(() => void this.runOnce(), this.options.pollIntervalMs);
    this.unsubscribe = this.platform.outboxSignal?.subscribe((written) => void this.wake(written));
    void this.runOnce();
  }

  /**
   * An outbox write of this process, signalled inside its transaction: once the store's writes
   * have settled (it committed or rolled back), a pass. Where the store cannot say when they have
   * (PostgreSQL), the poll finds the deliveries.
   */
  private async wake(written: DispatcherRegion['region']): Promise<void> {
    const settled = this.platform.openedRegions().find((opened) => opened.region === written)?.store?.writesSettled;
    if (!settled) return;
    await settled();
    if (this.stopping) return;
    if (this.pass) this.again = true;
    else void this.runOnce();
  }

  /** Stops polling and lets the attempts in flight finish (each is bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.pass;
  }

  /** Sends every delivery due now, then returns (a pass already running is joined instead). */
  runOnce(): Promise<void> {
    this.pass ??= this.passes()
      .catch((err) => this.options.log?.error({ err }, 'a webhook delivery pass failed; the next one retries'))
      .finally(() => {
        this.pass = undefined;
      });
    return this.pass;
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      await this.sendDue();
    } while (this.again && !this.stopping);
  }

  private get leaseMs(): number {
    return this.options.timeoutMs * 2 + 1000;
  }

  private async sendDue(): Promise<void> {
    for (const region of this.platform.openedRegions()) {
      while (!this.stopping) {
        let claimed: { batch: DeliveryToSend[]; leaseUntil: string };
        try {
          claimed = await this.claimDue(region);
        } catch (err) {
          this.options.log?.warn({ err, region: region.region }, 'claiming due webhook deliveries failed');
          break;
        }
        if (claimed.batch.length === 0) break;
        await this.inParallel(claimed.batch, (delivery) => this.send(region, delivery, claimed.leaseUntil));
      }
    }
  }

  /** Due deliveries, claimed in one statement; none when every due one is another worker's. */
  private async claimDue(region: DispatcherRegion): Promise<{ batch: DeliveryToSend[]; leaseUntil: string }> {
    const now = this.platform.clock.now();
    const leaseUntil = new Date(now.getTime() + this.leaseMs).toISOString();
    // One wave: every claimed delivery starts at once, so each lease covers a single attempt.
    const ids = await region.webhooks.dueDeliveries(now.toISOString(), this.options.concurrency);
    if (ids.length === 0) return { batch: [], leaseUntil };
    const batch = await region.webhooks.claim(ids, now.toISOString(), leaseUntil);
    // Due rows exist but another worker took them all: the next pass looks again.
    return { batch, leaseUntil };
  }

  private async inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < items.length) await work(items[next++] as T);
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, items.length) }, lane));
  }

  private async send(region: DispatcherRegion, claimed: DeliveryToSend, leaseUntil: string): Promise<void> {
    const { id } = claimed.delivery;
    try {
      const outcome = await this.attempt(claimed);
      const recorded = await region.webhooks.recordAttempt(id, leaseUntil, outcome);
      if (recorded && outcome.response_status === GONE) {
        await region.webhooks.disableEndpoint(claimed.endpoint.id, outcome.updated_at, 'The receiver answered 410 Gone');
      }
    } catch (err) {
      // The claim runs out and the delivery is sent again.
      this.options.log?.warn({ err, deliveryId: id }, 'a webhook delivery failed before its outcome was recorded');
    }
  }

  /** One attempt: the address check, the signed POST, and what the log keeps of it. */
  private async attempt({ delivery, payload, endpoint }: DeliveryToSend): Promise<AttemptOutcome> {
    const { clock, config } = this.platform;
    const started = clock.now();
    const startedAt = performance.now();
    const timestamp = Math.floor(started.getTime() / 1000);
    const key = this.platform.secrets.webhookSecrets;
    const secrets = [unsealText(key, endpoint.secret)];
    if (endpoint.previous_secret && endpoint.previous_secret_until && endpoint.previous_secret_until > started.toISOString()) {
      secrets.push(unsealText(key, endpoint.previous_secret));
    }
    const budget = this.options.timeoutMs;
    const checked = await Promise.race([
      checkEndpointAddress(endpoint.url, config.webhooks.allowPrivate),
      delay(budget, { ok: false as const, reason: `the address check took longer than ${budget} ms` }, { ref: false }),
    ]);
    let result: WebhookPostResult;
    if (!checked.ok) result = { error: `refused: ${checked.reason}` };
    else {
      result = await postWebhook({
        url: checked.url,
        address: checked.address,
        family: checked.family,
        headers: {
          'webhook-id': delivery.event_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, delivery.event_id, timestamp, payload),
          'user-agent': 'RealityDataPlatform-Webhooks/1',
        },
        body: payload,
        timeoutMs: Math.max(1, budget - Math.round(performance.now() - startedAt)),
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
    }
    const attempt = delivery.attempt + 1;
    const finished = clock.now();
    const common = { attempt, duration_ms: Math.round(performance.now() - startedAt), updated_at: finished.toISOString() };
    if ('status' in result && isSuccess(result.status)) {
      return { ...common, status: 'succeeded', response_status: result.status, error: null, next_attempt_at: null };
    }
    const error =
      'status' in result
        ? `HTTP ${result.status}${result.body ? `: ${result.body.slice(0, MAX_ERROR_TEXT)}` : ''}`
        : result.error.slice(0, MAX_ERROR_TEXT);
    const responseStatus = 'status' in result ? result.status : null;
    if (responseStatus === GONE) {
      return { ...common, status: 'failed', response_status: GONE, error: `${error} (endpoint disabled)`, next_attempt_at: null };
    }
    const pause = retryDelayMs(attempt);
    if (pause === undefined)
      return { ...common, status: 'exhausted', response_status: responseStatus, error, next_attempt_at: null };
    const next = new Date(finished.getTime() + pause).toISOString();
    return { ...common, status: 'failed', response_status: responseStatus, error, next_attempt_at: next };
  }
}

/** The dispatcher of a worker process, with the configuration's settings, started. */
export function startWebhookDispatcher(platform: Platform, log?: JobWorkerLog): WebhookDispatcher {
  const { concurrency, pollIntervalMs, timeoutMs } = platform.config.webhooks;
  const dispatcher = new WebhookDispatcher(platform, { concurrency, pollIntervalMs, timeoutMs, log });
  dispatcher.start();
  return dispatcher;
}
