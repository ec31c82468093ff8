import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { postWebhook } from '../src/adapters/webhooks/webhook-post.js';
import { adminService } from '../src/composition/platform-services.js';
import { loadConfig } from '../src/config/config.js';
import { sealText } from '../src/crypto/sealed-text.js';
import { newWebhookSecret, signatureHeader } from '../src/domain/webhooks/signing.js';
import { WebhookDispatcher } from '../src/jobs/webhook-dispatcher.js';
import { openPlatform, type Platform } from '../src/platform.js';
import { newEventId } from '../src/services/webhooks/webhook-outbox.js';
import { percentile } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * Webhook delivery by the worker's dispatcher with its default settings (16 at once, 250 ms
 * poll) to a local receiver that answers 200 at once. Deliveries per second: 1,000 changes
 * queued (each its own transaction with its event, as a service writes them), then the
 * dispatcher started and timed until the last arrives. Change to delivery (p50, p99): 1,000 more
 * changes written as fast as one writer can while the dispatcher runs, each timed from its
 * commit to its arrival. One at a time (p50): changes written one after another, each 20 ms after
 * the last one arrived, so no queue of deliveries stands before it and no pass is running: what a change waits for the
 * dispatcher (on SQLite its in-process wake-up, on PostgreSQL the poll). Baseline: the same number of signed POSTs of the same
 * body, sent by a plain loop with the same concurrency to the same receiver. Ratio: the
 * baseline's rate over the worker's (how many times slower the durable path is), median of the
 * rounds. SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const CHANGES = quick ? 300 : 1000;
const ROUNDS = quick ? 2 : 3;
const CONCURRENCY = 16;

interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  waitForCount(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  let waiting: { count: number; resolve: () => void } | undefined;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      arrivals.set(String(request.headers['webhook-id']), performance.now());
      response.writeHead(200).end('ok');
      if (waiting && arrivals.size >= waiting.count) waiting.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    waitForCount: (count) =>
      arrivals.size >= count ? Promise.resolve() : new Promise((resolve) => (waiting = { count, resolve })),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Run {
  elapsedMs: number;
  latencies: number[];
  /** One change at a time, each waited for: the dispatcher's own wait, with no queue before it. */
  alone: number[];
}

/** Changes written one at a time, each after the last one's delivery. */
const ALONE = quick ? 30 : 100;
const GAP_MS = 20;

function dispatcherOf(platform: Platform): WebhookDispatcher {
  const { pollIntervalMs, timeoutMs } = platform.config.webhooks;
  return new WebhookDispatcher(platform, { concurrency: CONCURRENCY, pollIntervalMs, timeoutMs });
}

/** Writes the changes, each its own transaction with its event; answers each event's commit time. */
async function writeChanges(platform: Platform, orgId: string, count = CHANGES): Promise<Map<string, number>> {
  const region = platform.region('eu');
  const committed = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    const written = await region.store.db.transaction().execute((tx) => region.outbox.record(tx, orgId, 'node.created', { n }));
    if (written) committed.set(written.eventId, performance.now());
  }
  return committed;
}

/**
 * The worker path. Throughput: CHANGES queued first, then the dispatcher started and timed until
 * the receiver has them all. Latency: CHANGES more written while the dispatcher runs, each timed
 * from its commit to its arrival.
 */
async function workerRun(platform: Platform, orgId: string, receiver: Receiver): Promise<Run> {
  receiver.arrivals.clear();
  await writeChanges(platform, orgId);
  const draining = dispatcherOf(platform);
  const begin = performance.now();
  draining.start();
  try {
    await receiver.waitForCount(CHANGES);
  } finally {
    await draining.stop();
  }
  const elapsedMs = Math.max(...receiver.arrivals.values()) - begin;

  receiver.arrivals.clear();
  const running = dispatcherOf(platform);
  running.start();
  try {
    const committed = await writeChanges(platform, orgId);
    await receiver.waitForCount(CHANGES);
    const latencies = [...committed].map(([id, at]) => (receiver.arrivals.get(id) as number) - at);
    receiver.arrivals.clear();
    const alone: number[] = [];
    for (let n = 1; n <= ALONE; n++) {
      const [[id, at]] = [...(await writeChanges(platform, orgId, 1))] as [[string, number]];
      await receiver.waitForCount(n);
      alone.push((receiver.arrivals.get(id) as number) - at);
      // Past the end of the pass that sent it: a change written at once would be found by that
      // pass's next claim, and the wait measured would be that pass's, not the dispatcher's.
      await delay(GAP_MS);
    }
    return { elapsedMs, latencies, alone };
  } finally {
    await running.stop();
  }
}

/** The baseline: the same signed POSTs from a plain loop, CONCURRENCY at a time. */
async function plainRun(receiver: Receiver): Promise<Run> {
  receiver.arrivals.clear();
  const secret = newWebhookSecret();
  const url = new URL(receiver.url);
  const begin = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < CHANGES) {
      const n = next++;
      const id = newEventId();
      const body = JSON.stringify({ type: 'node.created', timestamp: new Date().toISOString(), data: { n } });
      const timestamp = Math.floor(Date.now() / 1000);
      await postWebhook({
        url,
        address: '127.0.0.1',
        family: 4,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader([secret], id, timestamp, body),
        },
        body,
        timeoutMs: 15_000,
        maxResponseBytes: 4096,
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return { elapsedMs: performance.now() - begin, latencies: [], alone: [] };
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent', RDP_WEBHOOK_ALLOW_PRIVATE: '1' }));
  const receiver = await startReceiver();
  try {
    const org = await adminService(platform).createOrganization({ name: 'Bench hooks', region: 'eu' });
    const now = new Date().toISOString();
    await platform.region('eu').webhooks.insertEndpoint({
      id: 'bench-endpoint',
      org_id: org.id,
      url: receiver.url,
      event_types: '["*"]',
      description: null,
      enabled: 1,
      secret: sealText(platform.secrets.webhookSecrets, newWebhookSecret()),
      previous_secret: null,
      previous_secret_until: null,
      created_at: now,
      updated_at: now,
      disabled_at: null,
      disabled_reason: null,
    });
    const latencies: number[] = [];
    const alone: number[] = [];
    const rate = (run: Run) => (1000 * CHANGES) / run.elapsedMs;
    const measured = await pairedRounds(
      ROUNDS,
      () => plainRun(receiver),
      async () => {
        const run = await workerRun(platform, org.id, receiver);
        latencies.push(...run.latencies);
        alone.push(...run.alone);
        return run;
      },
      (round, plain, worker) =>
        log(
          `  ${store.label} round ${round}: plain loop ${rate(plain).toFixed(0)} POSTs/s, worker ${rate(worker).toFixed(0)} deliveries/s, ` +
            `change to delivery p50 ${ms(percentile(worker.latencies, 50))}, p99 ${ms(percentile(worker.latencies, 99))}, ` +
            `one at a time p50 ${ms(percentile(worker.alone, 50))}`,
        ),
    );
    const ratio = medianRatio(measured, (run) => run.elapsedMs);
    const workerRate = median(measured.target.map(rate));
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const aloneP50 = percentile(alone, 50);
    log(
      `  ${store.label}: ${workerRate.toFixed(0)} deliveries/s (median of ${ROUNDS} rounds); worker time / plain loop ${times(ratio)}; ` +
        `change to delivery p50 ${ms(p50)}, p99 ${ms(p99)}; one change at a time p50 ${ms(aloneP50)}`,
    );
    return [
      {
        bench: 'webhooks',
        measure: `worker / plain signed POSTs, ${CHANGES} (${store.label})`,
        ratio: times(ratio),
        target: '< 4x',
        met: ratio < 4,
      },
      {
        bench: 'webhooks',
        measure: `deliveries per second (${store.label})`,
        ratio: workerRate.toFixed(0),
        target: '-',
        met: undefined,
      },
      { bench: 'webhooks', measure: `change to delivery p50 (${store.label})`, ratio: ms(p50), target: '-', met: undefined },
      { bench: 'webhooks', measure: `change to delivery p99 (${store.label})`, ratio: ms(p99), target: '-', met: undefined },
      // The poll's wait alone, without a queue of deliveries before it (docs/webhooks.md).
      {
        bench: 'webhooks',
        measure: `one change at a time, to delivery p50 (${store.label})`,
        ratio: ms(aloneP50),
        target: store.label === 'SQLite' ? '< 50 ms' : '-',
        met: store.label === 'SQLite' ? aloneP50 < 50 : undefined,
      },
    ];
  } finally {
    await receiver.close();
    await platform.close();
  }
}

export async function runWebhooks(): Promise<SummaryRow[]> {
  log(`# webhooks: ${CHANGES} changes delivered by the worker against a plain loop of signed POSTs, ${CONCURRENCY} at once`);
  return onEachStore('webhooks', onStore);
}

runMain(import.meta.url, runWebhooks);
