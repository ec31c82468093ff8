import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { JobOutcomes, JobQueue, PoolUse } from '../../ports/job-queue.js';

/** What the metrics read at scrape time: the job queue and the stores this process opened. */
export interface MetricsSources {
  jobs: Pick<JobQueue, 'countByState' | 'poolUse'>;
  stores: { global: PooledStore; regions: Partial<Record<string, PooledStore>> };
}

/** A store whose connections are counted: PostgreSQL's pools (SQLite has none). */
interface PooledStore {
  poolUse?: () => PoolUse;
}

/** A 404 has no route pattern; one label value for all of them keeps the label set bounded. */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * The process's Prometheus metrics, in a registry of its own (never prom-client's global one:
 * tests run several platforms in one process). Request durations are labelled by route pattern,
 * never by the raw URL, whose ids would make a series per node. Queue and pool gauges are read
 * when scraped.
 */
export class PlatformMetrics implements JobOutcomes {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly jobOutcomes: Counter<'kind' | 'outcome'>;
  private readonly rateLimitRefusals: Counter<'region'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requestDuration = new Histogram({
      name: 'rdp_http_request_duration_seconds',
      help: 'Time from the request to its answer, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.jobOutcomes = new Counter({
      name: 'rdp_jobs_finished_total',
      help: 'Jobs finished by this process (or failed by its watchdog), by kind and outcome (succeeded, failed).',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.rateLimitRefusals = new Counter({
      name: 'rdp_rate_limit_refusals_total',
      help: "Requests refused with 429 because the organization's bucket was empty, by region.",
      labelNames: ['region'],
      registers,
    });
    new Gauge({
      name: 'rdp_jobs',
      help: 'Jobs of the whole deployment by state (queued, running), read from the job queue at scrape time.',
      labelNames: ['state'],
      registers,
      async collect() {
        try {
          const counts = await sources.jobs.countByState();
          this.set({ state: 'queued' }, counts.queued);
          this.set({ state: 'running' }, counts.running);
        } catch {
          // No number rather than a stale one; /readyz names the queue as failing.
          this.reset();
        }
      },
    });
    const pools = () => {
      const found: [string, PoolUse][] = [];
      const add = (name: string, use: PoolUse | undefined) => use && found.push([name, use]);
      add('global', sources.stores.global.poolUse?.());
      for (const [region, store] of Object.entries(sources.stores.regions)) add(`region_${region}`, store?.poolUse?.());
      add('jobs', sources.jobs.poolUse?.());
      return found;
    };
    const poolGauge = (name: string, help: string, read: (use: PoolUse) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['store'],
        registers,
        collect() {
          for (const [store, use] of pools()) this.set({ store }, read(use));
        },
      });
    poolGauge('rdp_db_pool_connections', 'Open connections of each PostgreSQL pool.', (use) => use.total);
    poolGauge('rdp_db_pool_idle_connections', 'Idle connections of each PostgreSQL pool.', (use) => use.idle);
    poolGauge('rdp_db_pool_waiting_clients', 'Queries waiting for a connection of each PostgreSQL pool.', (use) => use.waiting);
  }

  /**
   * What a route's hook calls: the route pattern is fixed when the route is declared (undefined:
   * no route matched), and each method and status code's histogram child is looked up once, so
   * the hot path builds no label object and no key.
   */
  requestObserver(route: string | undefined): (method: string, statusCode: number, seconds: number) => void {
    const label = route ?? UNMATCHED_ROUTE;
    const children = new Map<string, Map<number, { observe(value: number): void }>>();
    return (method, statusCode, seconds) => {
      let byStatus = children.get(method);
      if (!byStatus) {
        byStatus = new Map();
        children.set(method, byStatus);
      }
      let child = byStatus.get(statusCode);
      if (!child) {
        child = this.requestDuration.labels(method, label, String(statusCode));
        byStatus.set(statusCode, child);
      }
      child.observe(seconds);
    };
  }

  jobFinished(kind: string, outcome: 'succeeded' | 'failed'): void {
    this.jobOutcomes.inc({ kind, outcome });
  }

  rateLimited(region: string): void {
    this.rateLimitRefusals.inc({ region });
  }
}

/**
 * Times every request of the app, from its arrival to its answer (Fastify's reply.elapsedTime).
 * Each route gets a hook of its own that knows its pattern: reading request.routeOptions builds
 * an object on every call. A root hook times the requests no route matched.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: PlatformMetrics): void {
  app.addHook('onRoute', (route) => {
    const observe = metrics.requestObserver(route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      observe(request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    const existing =
      route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse];
    route.onResponse = [...existing, hook];
  });
  const unmatched = metrics.requestObserver(undefined);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
