// A real platform started without vitest (platform.ts re-exports it with the describe-block helpers):
// scripts/console-screenshots.ts starts one outside the tests.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { adminService } from '../../src/composition/platform-services.js';
import { loadConfig } from '../../src/config/config.js';
import { REGIONS, type Region } from '../../src/domain/regions.js';
import { buildApp } from '../../src/http/app.js';
import { PlatformMetrics } from '../../src/http/plugins/metrics.js';
import { startWorker } from '../../src/jobs/start-worker.js';
import { startWebhookDispatcher, type WebhookDispatcher } from '../../src/jobs/webhook-dispatcher.js';
import type { JobWorkerLog } from '../../src/jobs/worker.js';
import { openPlatform, type Platform, type RegionContext } from '../../src/platform.js';
import { ManualClock } from '../../src/ports/clock.js';
import type { AdminService } from '../../src/services/admin-service.js';
import { cloneTemplateDatabase, dropDatabase, TEMPLATE_ENV, TEMPLATE_SCHEMA_PREFIX } from './pg-template.js';
import { freePort } from './ports.js';
import { copySqliteTemplate, SQLITE_TEMPLATE_ENV } from './sqlite-template.js';

/**
 * A real platform on a random port, on the store the suite runs against: SQLite files in a
 * temporary directory, or PostgreSQL (RDP_TEST_DATABASE_URL) in schemas of its own.
 */
/**
 * A platform whose tests read any region's store directly. Its regions are the opened ones
 * (config.regions): every region unless the test sets RDP_REGIONS, and then it reads only those.
 */
export type AllRegionsPlatform = Platform & { regions: Record<Region, RegionContext> };

export interface TestPlatform {
  platform: AllRegionsPlatform;
  app: FastifyInstance;
  admin: AdminService;
  clock: ManualClock;
  /** The webhook sender, when started with `webhooks`. */
  webhooks: WebhookDispatcher | undefined;
  origin: string;
  authUrl: string;
  /** The stores it runs on: a second platform may share them (startPlatform's `sharing`). */
  dataDir: string;
  /** PostgreSQL: the database its stores are in (a clone of the run's template, or RDP_TEST_DATABASE_URL's). */
  databaseUrl: string | undefined;
  schemaPrefix: string;
  regionUrl(region: Region): string;
  close(): Promise<void>;
}

export const usingPostgres = Boolean(process.env.RDP_TEST_DATABASE_URL);

/**
 * With `sharing`, the platform opens the other one's stores and takes its public address instead
 * of new ones, as a second API process of one deployment would; the stores are removed only when
 * their owner closes.
 */
export async function startPlatform(
  env: Record<string, string> = {},
  options: { sharing?: TestPlatform; worker?: boolean; workerLog?: JobWorkerLog; webhooks?: boolean } = {},
): Promise<TestPlatform> {
  const owner = !options.sharing;
  const dataDir = options.sharing?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-test-'));
  const baseUrl = process.env.RDP_TEST_DATABASE_URL;
  // On PostgreSQL, a database of its own cloned from the run's migrated template (test/global-setup.ts),
  // unless the test names its own store; without a template (a script), schemas of its own in the base.
  const template = process.env[TEMPLATE_ENV];
  const clone =
    owner && baseUrl && template && !env.RDP_DATABASE_URL && !env.RDP_DATABASE_SCHEMA_PREFIX
      ? await cloneTemplateDatabase(baseUrl, template)
      : undefined;
  const databaseUrl = options.sharing ? options.sharing.databaseUrl : (clone?.url ?? baseUrl);
  const schemaPrefix = options.sharing?.schemaPrefix ?? (clone ? TEMPLATE_SCHEMA_PREFIX : `t_${randomBytes(5).toString('hex')}`);
  const clock = new ManualClock();

  try {
    // The port is known only after listen; addresses in responses derive from the public URL,
    // so listen first on a free port and then build the platform with that port.
    const port = await freePort();

    const config = loadConfig({
      PORT: String(port),
      RDP_DATA_DIR: dataDir,
      RDP_LOG_LEVEL: 'silent',
      // The worker's stop lets running jobs finish this long at close, as it did before the setting.
      RDP_SHUTDOWN_GRACE_SECONDS: '10',
      ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
      // Copies of one deployment share its public address: the tokens' issuer and the links.
      ...(options.sharing ? { RDP_PUBLIC_URL: options.sharing.origin } : {}),
      ...env,
    });
    // On SQLite, the run's migrated stores copied in (test/global-setup.ts) when the platform opens
    // every region (the default), so that it finds no store file it would not have made itself.
    const sqliteTemplate = process.env[SQLITE_TEMPLATE_ENV];
    if (
      owner &&
      sqliteTemplate &&
      !config.databaseUrl &&
      env.RDP_DATA_DIR === undefined &&
      config.regions.length === REGIONS.length
    )
      copySqliteTemplate(sqliteTemplate, dataDir);
    const platform = await openPlatform(config, clock);
    // One registry for the app and the worker, as in main.ts: job outcomes show on the app's /metrics.
    const metrics = new PlatformMetrics(platform);
    const app = await buildApp(platform, { logger: false, metrics });
    await app.listen({ host: '127.0.0.1', port });
    // The processing worker runs in the process, as in `npm start`, for the tests that process.
    const worker = options.worker ? await startWorker(platform, options.workerLog, metrics) : undefined;
    // Webhook deliveries, as the worker role sends them (docs/webhooks.md).
    const webhooks = options.webhooks ? startWebhookDispatcher(platform, options.workerLog) : undefined;
    const origin = `http://127.0.0.1:${port}`;
    return {
      platform: platform as AllRegionsPlatform,
      app,
      admin: adminService(platform),
      clock,
      webhooks,
      origin,
      authUrl: `${origin}/auth`,
      dataDir,
      databaseUrl,
      schemaPrefix,
      regionUrl: (region) => `${origin}/${region}/reality`,
      async close() {
        await webhooks?.stop();
        await worker?.stop();
        await app.close();
        await platform.close();
        if (!owner) return;
        if (clone && baseUrl) await dropDatabase(baseUrl, clone.database);
        else if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    // A platform that did not start (a test of a refused setting, say) leaves no database behind.
    if (clone && baseUrl) await dropDatabase(baseUrl, clone.database).catch(() => undefined);
    throw error;
  }
}
