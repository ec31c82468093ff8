#!/usr/bin/env node
import { type Config, ConfigError, loadConfig } from './config/config.js';
import { buildApp, describeKeySource } from './http/app.js';
import { drainHttp } from './http/draining.js';
import { PlatformMetrics } from './http/plugins/metrics.js';
import { scheduleHousekeeping } from './jobs/housekeeping.js';
import { startWorker } from './jobs/start-worker.js';
import { startWebhookDispatcher } from './jobs/webhook-dispatcher.js';
import { Lifecycle, shutdown } from './lifecycle.js';
import { openPlatform } from './platform.js';
import { systemClock } from './ports/clock.js';

/** Composition root: configuration once, stores, then the HTTP surface, the processing worker and the scheduled jobs. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`rdp: configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  // The job queue and the stores' pools may report trouble from their first connection on; the
  // app's logger comes with the app.
  let log: { warn(object: object, message: string): void } | undefined;
  const warn = (what: string) => (err: Error) => (log ? log.warn({ err }, what) : console.warn(`rdp: ${what}:`, err.message));
  const platform = await openPlatform(config, systemClock, {
    onJobStoreError: warn('job queue error'),
    onStoreError: warn('database connection lost; the pool replaces it'),
  });
  const metrics = new PlatformMetrics(platform);
  const lifecycle = new Lifecycle();
  const app = await buildApp(platform, { metrics, lifecycle });
  log = app.log;
  // The worker role runs the jobs and the scheduled housekeeping; the other roles only serve.
  const runsWorker = config.roles.has('worker');
  const stopPurge = runsWorker ? scheduleHousekeeping(platform, app.log) : () => undefined;
  const worker = runsWorker ? await startWorker(platform, app.log, metrics) : undefined;
  // Webhook deliveries leave from the worker role too (docs/webhooks.md).
  const webhooks = runsWorker ? startWebhookDispatcher(platform, app.log) : undefined;

  // docs/design/processes.md#stopping: /readyz 503 at once, requests and jobs in flight finish within the grace, then exit 0.
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1); // a second signal: leave now
    stopping = true;
    await shutdown({
      lifecycle,
      graceMs: config.shutdownGraceSeconds * 1000,
      stopTimers: stopPurge,
      drainHttp: (deadline) => drainHttp(app, { delayMs: config.shutdownDelaySeconds * 1000, deadline }),
      stopWorker: worker && (async () => void (await Promise.all([worker.stop(), webhooks?.stop()]))),
      closeStores: () => platform.close(),
      log: app.log,
    });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  await app.listen({ host: config.host, port: config.port });
  app.log.info(startMessage(config));
}

/** What this process runs, where, and where its regional APIs get the token keys from. */
function startMessage(config: Config): string {
  const roles = [...config.roles].join(', ');
  const parts = [`roles: ${roles}`];
  if (config.roles.has('auth')) parts.push(`auth: ${config.publicUrl}/auth`);
  if (config.roles.has('api')) {
    parts.push(`regional APIs: ${config.regions.join(', ')}`, `token keys: ${describeKeySource(config)}`);
  }
  return `Reality Data Platform listening on ${config.host}:${config.port} for ${config.publicUrl} (${parts.join('; ')})`;
}

main().catch((error) => {
  // Expected failures (PostgreSQL unreachable, say) are one line naming what to fix, not a stack.
  console.error('rdp: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
