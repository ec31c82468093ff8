import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { spellNaN } from '../../src/http/operations-routes.js';
import { Lifecycle } from '../../src/lifecycle.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform, usingPostgres } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { freePort } from '../support/ports.js';
import { sampleBytes, uploadBytes } from '../support/uploads.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * The Prometheus text format, strictly enough to catch a malformed exposition: every line is a
 * comment (# HELP / # TYPE) or `name{label="value",...} number`, and every sample's family has a
 * TYPE line before it.
 */
function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  const typed = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(comment[3]);
        typed.add(comment[2] as string);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!sample) throw new Error(`not a Prometheus sample line: ${line}`);
    const [, name, labelText, valueText] = sample as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    for (const match of (labelText ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g)) {
      labels[match[1] as string] = match[2] as string;
    }
    const value = Number(valueText.replace('+Inf', 'Infinity'));
    expect(Number.isNaN(value) && valueText !== 'NaN', line).toBe(false);
    const family = name.replace(/_(bucket|sum|count|total|created)$/, '');
    expect(typed.has(name) || typed.has(family), `no TYPE before ${name}`).toBe(true);
    samples.push({ name, labels, value });
  }
  return samples;
}

async function scrape(t: TestPlatform, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(`${t.origin}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v));
}

async function getJson(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

describe('health, readiness and metrics', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t);
  });
  afterAll(() => t?.close());

  it('/healthz and the older /health answer 200 ok', async () => {
    expect(await getJson(`${t.origin}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await getJson(`${t.origin}/health`)).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('/readyz answers 200 when every store and the queue answer', async () => {
    const response = await fetch(`${t.origin}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('/readyz answers 503 while the process starts and once it drains', async () => {
    const lifecycle = new Lifecycle();
    const app = await buildApp(t.platform, { logger: false, lifecycle });
    try {
      // Not listening yet: only inject reaches it.
      const starting = await app.inject('/readyz');
      expect(starting.statusCode).toBe(503);
      expect(starting.json()).toMatchObject({ statusCode: 503, status: 'starting', failed: [] });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      expect((await getJson(`${origin}/readyz`)).status).toBe(200);
      lifecycle.drain();
      expect(await getJson(`${origin}/readyz`)).toMatchObject({ status: 503, body: { status: 'draining' } });
      expect((await getJson(`${origin}/healthz`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('/metrics is Prometheus text with the process metrics and request durations by route pattern, never by raw URL', async () => {
    const { folderId } = await createTree(org);
    expect((await org.admin.get(`/v1/nodes/${folderId}/browse`)).status).toBe(200);
    expect((await org.admin.get('/v1/nodes/not-a-node-id')).status).toBe(404);
    expect((await fetch(`${t.origin}/no/such/route/${folderId}`)).status).toBe(404);
    const samples = await scrape(t);

    expect(find(samples, 'process_cpu_user_seconds_total')).toBeDefined();
    expect(find(samples, 'nodejs_eventloop_lag_seconds')).toBeDefined();
    const browse = find(samples, 'rdp_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/eu/reality/v1/nodes/:nodeId/browse',
      status_code: '200',
    });
    expect(browse?.value).toBe(1);
    expect(
      find(samples, 'rdp_http_request_duration_seconds_bucket', { route: '/eu/reality/v1/nodes/:nodeId/browse', le: '+Inf' })
        ?.value,
    ).toBe(1);
    expect(find(samples, 'rdp_http_request_duration_seconds_count', { status_code: '404', route: 'unmatched' })).toBeDefined();
    // No label value holds an id.
    for (const sample of samples) expect(JSON.stringify(sample.labels)).not.toContain(folderId);

    expect(find(samples, 'rdp_jobs', { state: 'queued' })?.value).toBe(0);
    expect(find(samples, 'rdp_jobs', { state: 'running' })?.value).toBe(0);
    const pools = samples.filter((sample) => sample.name === 'rdp_db_pool_connections');
    if (usingPostgres) {
      expect(pools.map((sample) => sample.labels.store).sort()).toEqual(
        ['global', 'jobs', 'region_au', 'region_ca', 'region_eu', 'region_us'].sort(),
      );
      expect(find(samples, 'rdp_db_pool_connections', { store: 'region_eu' })?.value).toBeGreaterThan(0);
      expect(find(samples, 'rdp_db_pool_idle_connections', { store: 'region_eu' })).toBeDefined();
      expect(find(samples, 'rdp_db_pool_waiting_clients', { store: 'region_eu' })?.value).toBe(0);
    } else {
      expect(pools).toEqual([]);
    }
  });

  it('spells a NaN sample NaN (the event-loop lag has none between two scrapes close together)', async () => {
    // prom-client resets the lag histogram at each scrape and samples it every 10 ms: scrapes
    // sent back to back usually read an empty one, whose mean is NaN (prom-client writes `Nan`).
    const texts = await Promise.all(Array.from({ length: 4 }, async () => (await fetch(`${t.origin}/metrics`)).text()));
    for (const text of texts) {
      expect(text.match(/^nodejs_eventloop_lag_mean_seconds (\S+)$/m)?.[1]).toMatch(/^(NaN|[0-9.e+-]+)$/);
      parsePrometheus(text);
    }
    expect(spellNaN('a 1\nnodejs_eventloop_lag_mean_seconds Nan\nb{x="Nan"} Nan\nc 2')).toBe(
      'a 1\nnodejs_eventloop_lag_mean_seconds NaN\nb{x="Nan"} NaN\nc 2',
    );
  });

  it('counts rate-limit refusals', async () => {
    const small = await createOrg(t);
    await t.admin.setOrganizationRateLimit(small.orgId, { bucket: 1, refillPerSecond: 1 });
    const before = find(await scrape(t), 'rdp_rate_limit_refusals_total', { region: 'eu' })?.value ?? 0;
    expect((await small.admin.get(`/v1/nodes/${small.orgId}`)).status).toBe(200);
    expect((await small.admin.get(`/v1/nodes/${small.orgId}`)).status).toBe(429);
    const samples = await scrape(t);
    expect(find(samples, 'rdp_rate_limit_refusals_total', { region: 'eu' })?.value).toBe(before + 1);
    expect(
      find(samples, 'rdp_http_request_duration_seconds_count', { route: '/eu/reality/v1/nodes/:nodeId', status_code: '429' })
        ?.value,
    ).toBe(1);
  });

  it('counts a processed job by kind and outcome', async () => {
    const { siteId } = await createTree(org);
    const las = await sampleBytes((file) => writeLas(file, 500));
    const bundle = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name: 'Metered' });
    const session = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
    const added = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
      name: 'scan.las',
      size: las.length,
    });
    const { etag } = await uploadBytes(added.body, las);
    const finalized = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/finalize`, {
      files: [{ id: added.body.id, etag }],
    });
    expect(finalized.status).toBe(200);
    const { cost } = (await org.admin.get(`/v1/bundles/${bundle.body.id}/processing/cost`)).body;
    expect((await org.admin.post(`/v1/bundles/${bundle.body.id}/processing`, { cost })).status).toBe(202);
    const started = Date.now();
    let outcome: Sample | undefined;
    while (!outcome && Date.now() - started < 60_000) {
      outcome = find(await scrape(t), 'rdp_jobs_finished_total', { kind: 'process-bundle' });
      if (!outcome) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(outcome).toMatchObject({ labels: { kind: 'process-bundle', outcome: 'succeeded' }, value: 1 });
  });
});

describe('readiness with Redis configured', () => {
  let down: TestPlatform;
  let up: TestPlatform;
  beforeAll(async () => {
    // A port nothing listens on: the limiter store falls back to memory, readiness says so.
    down = await startPlatform({ RDP_REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    up = await startPlatform({ RDP_REDIS_URL: 'redis://127.0.0.1:6379' }, { sharing: down });
  });
  afterAll(async () => {
    await up?.close();
    await down?.close();
  });

  it('/readyz answers 503 naming redis when Redis does not answer, and 200 when it does', async () => {
    const refused = await getJson(`${down.origin}/readyz`);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ statusCode: 503, status: 'unavailable', failed: ['redis'] });
    expect(refused.body.message).toContain('redis');
    // Alive all the same: a restart would not bring Redis back.
    expect((await fetch(`${down.origin}/healthz`)).status).toBe(200);
    expect(await getJson(`${up.origin}/readyz`)).toEqual({ status: 200, body: { status: 'ready' } });
  });
});

describe('/metrics behind RDP_METRICS_TOKEN', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startPlatform({ RDP_METRICS_TOKEN: 'scrape-secret' });
  });
  afterAll(() => t?.close());

  it('asks for the bearer token', async () => {
    const missing = await fetch(`${t.origin}/metrics`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ statusCode: 401, error: 'not_authenticated' });
    expect((await fetch(`${t.origin}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect(find(await scrape(t, { authorization: 'Bearer scrape-secret' }), 'process_cpu_user_seconds_total')).toBeDefined();
    // Health and readiness stay open: load balancers probe them without credentials.
    expect((await fetch(`${t.origin}/readyz`)).status).toBe(200);
  });
});
