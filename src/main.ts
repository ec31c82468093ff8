#!/usr/bin/env node
import { ConfigError, loadConfig } from './config/config.js';
import { buildApp } from './http/app.js';
import { scheduleHousekeeping } from './jobs/housekeeping.js';
import { startWorker } from './jobs/start-worker.js';
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
  // The job queue may report trouble from its first connection on; the app's logger comes with the app.
  let log: { warn(object: object, message: string): void } | undefined;
  const platform = await openPlatform(config, systemClock, {
    onJobStoreError: (err) => (log ? log.warn({ err }, 'job queue error') : console.warn('rdp: job queue error:', err.message)),
  });
  const app = await buildApp(platform);
  log = app.log;
  const stopPurge = scheduleHousekeeping(platform, app.log);
  const worker = await startWorker(platform, app.log);

  const shutdown = async () => {
    stopPurge();
    await worker.stop();
    await app.close();
    await platform.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  await app.listen({ host: config.host, port: config.port });
  app.log.info(`Reality Data Platform serving on ${config.publicUrl} (auth: ${config.publicUrl}/auth)`);
}

main().catch((error) => {
  console.error('rdp: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
