import { createHash, timingSafeEqual } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { ApiError } from '../domain/errors.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Platform } from '../platform.js';
import { registerConnectionClose } from './draining.js';
import { type PlatformMetrics, registerRequestMetrics } from './plugins/metrics.js';

/** What readiness asks of the rate-limit store: whether it is shared (Redis), and a round trip. */
interface LimiterProbe {
  readonly shared: boolean;
  ping(): Promise<void>;
}

/** One dependency /readyz asks: `check` rejects (or outlasts the timeout) when it does not answer. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
}

/** Each check's bound: a load balancer's probe times out after a few seconds, and must get an answer first. */
const CHECK_TIMEOUT_MS = 2000;

/**
 * What this process depends on: every store it opened (a trivial query), Redis when the limiter
 * store is shared (RDP_REDIS_URL), and the job queue.
 */
export function readinessChecks(
  platform: Pick<Platform, 'stores' | 'jobs'>,
  uses: { limiterStore: LimiterProbe | undefined; jobs: boolean },
): ReadinessCheck[] {
  const { limiterStore } = uses;
  const stores = Object.entries(platform.stores.regions).flatMap(([region, store]) =>
    store ? [{ name: `region_${region}`, store }] : [],
  );
  return [
    { name: 'global', check: () => sql`select 1`.execute(platform.stores.global.db) },
    ...stores.map(({ name, store }) => ({ name, check: () => sql`select 1`.execute(store.db) })),
    ...(limiterStore?.shared ? [{ name: 'redis', check: () => limiterStore.ping() }] : []),
    ...(uses.jobs ? [{ name: 'jobs', check: () => platform.jobs.countByState() }] : []),
  ];
}

async function failing(checks: readonly ReadinessCheck[]): Promise<string[]> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      const timeout = delay(CHECK_TIMEOUT_MS, 'timeout', { ref: false });
      const outcome = await Promise.race([
        check().then(
          () => 'ok',
          () => 'failed',
        ),
        timeout,
      ]);
      return outcome === 'ok' ? undefined : name;
    }),
  );
  return results.filter((name): name is string => name !== undefined);
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export interface OperationsOptions {
  lifecycle: Lifecycle;
  metrics: PlatformMetrics;
  checks: readonly ReadinessCheck[];
  /** Set: /metrics asks for this bearer token (RDP_METRICS_TOKEN). */
  metricsToken: string | undefined;
}

/**
 * GET /healthz (the process lives: touches nothing), GET /readyz (it can serve: 503 while
 * starting, draining, or when a dependency does not answer) and GET /metrics (Prometheus text).
 * Registered at the root, for every role. docs/operations.md describes them for operators.
 */
export async function operationsRoutes(app: FastifyInstance, options: OperationsOptions): Promise<void> {
  const { lifecycle, metrics, checks, metricsToken } = options;
  app.addHook('onListen', async () => lifecycle.ready());

  const alive = async () => ({ status: 'ok' });
  app.get('/healthz', alive);
  // The address of earlier releases.
  app.get('/health', alive);

  app.get('/readyz', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    if (lifecycle.phase !== 'ready') return reply.code(503).send(notReady(lifecycle.phase, []));
    const failed = await failing(checks);
    // A stop may have begun while the checks ran.
    if (lifecycle.phase !== 'ready') return reply.code(503).send(notReady(lifecycle.phase, failed));
    if (failed.length > 0) return reply.code(503).send(notReady('unavailable', failed));
    return { status: 'ready' };
  });

  app.get('/metrics', async (request, reply) => {
    if (metricsToken !== undefined) {
      const [scheme, token] = (request.headers.authorization ?? '').split(' ');
      if (scheme?.toLowerCase() !== 'bearer' || !token || !sameSecret(token, metricsToken)) {
        reply.header('www-authenticate', 'Bearer');
        throw new ApiError('not_authenticated', 'GET /metrics requires the bearer token of RDP_METRICS_TOKEN');
      }
    }
    reply.header('cache-control', 'no-store');
    reply.type(metrics.registry.contentType);
    return spellNaN(await metrics.registry.metrics());
  });
}

/**
 * prom-client writes a NaN sample (the event-loop lag's mean when no tick was measured since the
 * last scrape) as `Nan`; the exposition format and OpenMetrics spell it `NaN`, and strict
 * parsers refuse anything else.
 */
export function spellNaN(exposition: string): string {
  return exposition.replace(/ Nan$/gm, ' NaN');
}

/** The per-request hooks, at the root so that they see every route: request durations, and Connection: close while draining. */
export function registerOperationsHooks(app: FastifyInstance, metrics: PlatformMetrics, lifecycle: Lifecycle): void {
  registerRequestMetrics(app, metrics);
  registerConnectionClose(app, lifecycle);
}

function notReady(status: string, failed: string[]) {
  const message =
    status === 'unavailable'
      ? `Not answering: ${failed.join(', ')}`
      : `The process is ${status === 'draining' ? 'stopping' : 'starting'}`;
  return { statusCode: 503, error: 'ServiceUnavailable', message, status, failed };
}
