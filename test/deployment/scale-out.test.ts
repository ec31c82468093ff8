import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDeployment, type DeployedProcess, type Deployment, delay, eventually, probeReady } from '../support/deployment.js';
import { ApiClient, type ApiResponse } from '../support/fixtures.js';
import { type NginxFront, nginxAvailable, startNginx } from '../support/nginx-front.js';
import { usingPostgres } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { sampleBytes, uploadBytes } from '../support/uploads.js';
import { bundleState, countedLoad, jobFolders, type LoadTally } from './support/scale-out-helpers.js';

/**
 * docs/design/processes.md#scaling-out: the roles run apart as an operator runs them
 * (docs/deploy.md): one `auth` process, two `api` copies of one region and a `worker`, each
 * `node dist/main.js` with its RDP_ROLES, on one PostgreSQL schema prefix, S3 (moto) and Redis;
 * nginx in front with the documented configuration. One deployment for the file; loads are bounded
 * (a few hundred requests) for a 2-core machine.
 */
const HEARTBEAT_TIMEOUT_SECONDS = 4;
const REGION = 'eu';

describe.skipIf(!usingPostgres)('a deployment of separate roles on PostgreSQL, S3 and Redis', () => {
  let deployment: Deployment;
  let auth: DeployedProcess;
  let api1: DeployedProcess;
  let api2: DeployedProcess;
  let worker: DeployedProcess;
  let front: NginxFront | undefined;
  let orgId: string;
  let siteId: string;
  let token: string;
  let credentials: { clientId: string; clientSecret: string };
  /** The organization's administrator's client on each API copy (and through nginx when it runs). */
  let on1: ApiClient;
  let on2: ApiClient;

  const regionBase = (process: DeployedProcess) => `${process.origin}/${REGION}/reality`;

  async function tokenFrom(origin: string, clientId: string, clientSecret: string): Promise<string> {
    const response = await fetch(`${origin}/auth/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    const body = (await response.json()) as { access_token: string };
    if (response.status !== 200) throw new Error(`token request answered ${response.status}: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  /** An organization with an administrator application, made with the command line as an operator does. */
  async function organization(name: string, rateLimit?: { bucket: number; refill: number }) {
    const org = await deployment.admin('org', 'create', '--name', name, '--region', REGION);
    if (rateLimit) {
      await deployment.admin(
        'org',
        'set-rate-limit',
        '--org',
        org.id,
        '--bucket',
        String(rateLimit.bucket),
        '--refill',
        String(rateLimit.refill),
      );
    }
    const app = await deployment.administratorApp(org.id, `${name} admin`, 'read:basic read:hierarchy write:hierarchy');
    return { orgId: org.id as string, clientId: app.clientId as string, clientSecret: app.clientSecret as string };
  }

  beforeAll(async () => {
    deployment = await createDeployment({
      env: {
        RDP_JOB_HEARTBEAT_TIMEOUT_SECONDS: String(HEARTBEAT_TIMEOUT_SECONDS),
        RDP_JOB_POLL_INTERVAL_MS: '100',
        RDP_SHUTDOWN_GRACE_SECONDS: '10',
        RDP_TRUST_PROXY: '127.0.0.1',
      },
    });
    auth = await deployment.add({ name: 'auth', roles: 'auth' });
    const apiEnv = { RDP_AUTH_JWKS_URL: `${auth.origin}/auth/oauth/jwks` };
    api1 = await deployment.add({ name: 'api-1', roles: 'api', regions: REGION, env: apiEnv });
    api2 = await deployment.add({ name: 'api-2', roles: 'api', regions: REGION, env: apiEnv });
    worker = await deployment.add({ name: 'worker', roles: 'worker' });
    // The processes start together, as an orchestrator starts them: each migrates what it opens.
    for (const each of deployment.processes) each.start();
    try {
      await Promise.all(deployment.processes.map((each) => each.waitReady(45_000)));
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${deployment.report()}`);
    }
    if (nginxAvailable) {
      front = await startNginx(deployment.frontPort, {
        rdp_auth: [`127.0.0.1:${auth.port}`],
        rdp_api_eu: [`127.0.0.1:${api1.port}`, `127.0.0.1:${api2.port}`],
      });
    } else {
      console.warn('nginx is not installed (Debian: apt-get install nginx-light): the cases through a load balancer are skipped');
    }

    // A bucket the bounded loads below never empty: the rate-limit case has an organization of its own.
    const org = await organization('Scale Out', { bucket: 1_000_000, refill: 100_000 });
    orgId = org.orgId;
    credentials = org;
    token = await tokenFrom(auth.origin, org.clientId, org.clientSecret);
    on1 = new ApiClient(regionBase(api1), token);
    on2 = new ApiClient(regionBase(api2), token);
    const division = await on1.post(`/v1/nodes/${orgId}/division`, { name: 'Division' });
    const site = await on2.post(`/v1/nodes/${division.body.id}/site`, { name: 'Site', address: '1 Main St' });
    if (site.status !== 201) throw new Error(`site: ${site.status} ${JSON.stringify(site.body)}\n${deployment.report()}`);
    siteId = site.body.id;
  }, 120_000);

  afterAll(async () => {
    await front?.stop();
    await deployment?.close();
  });

  beforeEach(async ({ onTestFailed }) => {
    onTestFailed(() => {
      console.error(`deployment output:\n${deployment.report()}${front ? `\n=== nginx ===\n${front.errors()}` : ''}`);
    });
    // Each case starts on a whole deployment, whatever an earlier one did to it.
    for (const each of deployment.processes) {
      if (each.alive) continue;
      console.warn(`${each.name} had exited: restarted for the next case`);
      each.start();
      await each.waitReady(45_000);
    }
  }, 60_000);

  it('runs each role in its own process: each serves only its routes, with health, readiness and metrics', async () => {
    for (const each of [auth, api1, api2, worker]) {
      expect((await fetch(`${each.origin}/healthz`)).status, `${each.name} /healthz`).toBe(200);
      expect((await fetch(`${each.origin}/readyz`)).status, `${each.name} /readyz`).toBe(200);
      const metrics = await fetch(`${each.origin}/metrics`);
      expect(metrics.status, `${each.name} /metrics`).toBe(200);
      expect(await metrics.text()).toMatch(/^# (HELP|TYPE) /m);
    }
    const metadata = '/.well-known/oauth-authorization-server/auth';
    expect((await fetch(`${auth.origin}${metadata}`)).status).toBe(200);
    expect(
      (await fetch(`${auth.origin}/${REGION}/reality/v1/nodes/${orgId}`, { headers: { authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(404);
    for (const api of [api1, api2]) {
      expect((await fetch(`${api.origin}${metadata}`)).status, `${api.name} serves no authorization server`).toBe(404);
      expect((await fetch(`${api.origin}/us/reality/v1/nodes/${orgId}`)).status, `${api.name} serves only ${REGION}`).toBe(404);
    }
    expect((await fetch(`${worker.origin}${metadata}`)).status).toBe(404);
    expect((await fetch(`${worker.origin}/${REGION}/reality/v1/nodes/${orgId}`)).status).toBe(404);
  });

  it('accepts a token of the auth process on both API copies', async () => {
    for (const client of [on1, on2]) {
      const node = await client.get(`/v1/nodes/${orgId}`);
      expect(node.status, client.baseUrl).toBe(200);
      expect(node.body).toMatchObject({ id: orgId });
    }
    // A second token, fetched after the copies started: the key set is the auth process's.
    const fresh = await tokenFrom(auth.origin, credentials.clientId, credentials.clientSecret);
    expect((await on2.withToken(fresh).get(`/v1/nodes/${siteId}`)).status).toBe(200);
    expect((await on1.withToken(`${fresh.slice(0, -4)}AAAA`).get(`/v1/nodes/${siteId}`)).status).toBe(401);
  });

  it("spends one organization's rate-limit bucket across both copies", async () => {
    const bucket = 20;
    const limited = await organization('Rate Limited', { bucket, refill: 1 });
    const limitedToken = await tokenFrom(auth.origin, limited.clientId, limited.clientSecret);
    const copies = [new ApiClient(regionBase(api1), limitedToken), new ApiClient(regionBase(api2), limitedToken)];
    const started = Date.now();
    // Alternating copies, one request at a time: with a bucket per copy, all 40 would pass.
    const all: number[] = [];
    for (let i = 0; i < 2 * bucket; i += 1) {
      all.push((await (copies[i % 2] as ApiClient).get(`/v1/nodes/${limited.orgId}`)).status);
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    const onCopy = (copy: number) => all.filter((_, i) => i % 2 === copy);
    expect(all.every((status) => status === 200 || status === 429)).toBe(true);
    const passed = all.filter((status) => status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(bucket);
    expect(passed).toBeLessThanOrEqual(bucket + Math.ceil(elapsedSeconds) + 1);
    // The refusals come once the shared bucket is empty, on both copies alike.
    expect(onCopy(0)).toContain(429);
    expect(onCopy(1)).toContain(429);
    expect(all.slice(0, bucket).every((status) => status === 200)).toBe(true);
  });

  /** A bundle whose upload session is opened on `begin` and finalized on `end`: the two copies share it. */
  async function uploadedBundle(name: string, bytes: Buffer, begin: ApiClient, end: ApiClient) {
    const bundle = await begin.post(`/v1/nodes/${siteId}/bundle`, { name });
    expect(bundle.status).toBe(201);
    const session = await begin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
    expect(session.status).toBe(201);
    const file = await begin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
      name: 'scan.las',
      size: bytes.length,
    });
    expect(file.status).toBe(201);
    const { etag } = await uploadBytes(file.body, bytes);
    const finalized = await end.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/finalize`, {
      files: [{ id: file.body.id, etag }],
    });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    expect(finalized.body).toMatchObject({ id: bundle.body.id, state: 'uploaded', size: bytes.length });
    return bundle.body.id as string;
  }

  let smallLas: Buffer;

  it('finalizes on one copy an upload started on the other', async () => {
    smallLas = await sampleBytes((file) => writeLas(file, 3_000));
    const bundleId = await uploadedBundle('Across copies', smallLas, on1, on2);
    const seen = await on1.get(`/v1/bundles/${bundleId}?expand=components`);
    expect(seen.body.components).toEqual([expect.objectContaining({ role: 'input', format: 'las', size: smallLas.length })]);
  });

  it('runs a job submitted on one copy once, on the worker', async () => {
    const bundleId = await uploadedBundle('Once', smallLas, on2, on1);
    const { cost } = (await on1.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
    // With the worker paused, nothing else may take the job: the API copies run no jobs.
    await worker.signal('SIGSTOP');
    let submitted: ApiResponse;
    try {
      submitted = await on1.post(`/v1/bundles/${bundleId}/processing`, { cost });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
      await delay(1500);
      const waiting = await bundleState(on2, bundleId);
      expect(waiting.processings).toEqual([expect.objectContaining({ id: submitted.body.id, state: 'queued' })]);
    } finally {
      await worker.signal('SIGCONT');
    }
    const done = await eventually(
      async () => {
        const bundle = await bundleState(on2, bundleId);
        return bundle.state === 'processing' ? undefined : bundle;
      },
      30_000,
      () => 'the bundle still processing',
    );
    expect(done).toMatchObject({ state: 'ready', isFailed: false });
    expect(done.processings).toEqual([expect.objectContaining({ id: submitted.body.id, state: 'succeeded' })]);
    const children = await on1.get(`/v1/nodes/${siteId}/browse`);
    const derivatives = children.body.filter((item: { type: string }) => item.type === 'pointCloud');
    expect(derivatives.map((item: { id: string }) => item.id)).toEqual([submitted.body.id]);
  });

  it('leaves no stuck job and no work folder after the worker is killed mid-job and restarted', async () => {
    const bigLas = await sampleBytes((file) => writeLas(file, 1_000_000));
    const bundleId = await uploadedBundle('Killed', bigLas, on1, on2);
    const { cost } = (await on2.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
    const submitted = await on2.post(`/v1/bundles/${bundleId}/processing`, { cost });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    await eventually(
      async () => ((await bundleState(on1, bundleId)).processings?.[0]?.state === 'running' ? true : undefined),
      20_000,
      () => 'the processing never ran',
    );
    // Killed once the job's work folder holds its input, before the job finishes.
    const killedFolders = await eventually(
      async () => {
        const folders = jobFolders(worker.tmpDir);
        return folders.length > 0 ? folders : undefined;
      },
      10_000,
      () => "no work folder appeared in the worker's TMPDIR",
    );
    expect(await worker.signal('SIGKILL')).toMatchObject({ signal: 'SIGKILL' });
    expect(killedFolders.every((folder) => fs.existsSync(folder))).toBe(true);

    worker.start();
    await worker.waitReady(30_000);
    // Failed by the watchdog (no heartbeat) or run again to the end: never left processing.
    const settled = await eventually(
      async () => {
        const bundle = await bundleState(on1, bundleId);
        return bundle.state === 'processing' ? undefined : bundle;
      },
      HEARTBEAT_TIMEOUT_SECONDS * 1000 + 40_000,
      () => 'the job is stuck',
    );
    expect(['ready', 'failed']).toContain(settled.state);
    expect(settled.isProcessing).toBe(false);
    expect(settled.processings).toEqual([expect.objectContaining({ state: settled.state === 'ready' ? 'succeeded' : 'failed' })]);
    // The restarted worker removes what the killed one left.
    await eventually(
      async () => (killedFolders.some((folder) => fs.existsSync(folder)) ? undefined : true),
      HEARTBEAT_TIMEOUT_SECONDS * 1000 + 10_000,
      () => `work folders left behind: ${killedFolders.filter((folder) => fs.existsSync(folder)).join(', ')}`,
    );
  }, 90_000);

  it('loses no process when PostgreSQL terminates its connections under load', async () => {
    const admin = new pg.Client({ connectionString: process.env.RDP_TEST_DATABASE_URL });
    await admin.connect();
    const tally: LoadTally = { statuses: new Map(), failures: [] };
    try {
      const load = countedLoad(
        [on1, on2].map((client) => () => client.get(`/v1/nodes/${siteId}/browse`)),
        { requests: 300, concurrency: 4 },
        tally,
      );
      let terminated = 0;
      for (let round = 0; round < 3; round += 1) {
        await delay(300);
        const result = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
          [deployment.applicationName],
        );
        terminated += result.rowCount ?? 0;
      }
      await load;
      expect(terminated, 'the deployment had connections to terminate').toBeGreaterThanOrEqual(4);
    } finally {
      await admin.end();
    }
    await delay(500);
    for (const each of [auth, api1, api2, worker]) expect(each.alive, `${each.name} is alive`).toBe(true);
    // Requests failed cleanly (error shape) or succeeded; none lost its connection.
    expect(tally.failures).toEqual([]);
    for (const status of tally.statuses.keys()) expect([200, 500, 503]).toContain(status);
    // And every copy serves again.
    for (const each of [auth, api1, api2, worker]) await each.waitReady(10_000);
    for (const client of [on1, on2]) expect((await client.get(`/v1/nodes/${siteId}/browse`)).status).toBe(200);
    expect((await tokenFrom(auth.origin, credentials.clientId, credentials.clientSecret)).length).toBeGreaterThan(0);
  }, 60_000);

  it.skipIf(!nginxAvailable)(
    'loses no request through nginx while one API copy restarts (SIGTERM, exit, start, ready)',
    async () => {
      const front_ = front as NginxFront;
      const viaFront = new ApiClient(`${front_.origin}/${REGION}/reality`, token);
      expect((await viaFront.get(`/v1/nodes/${siteId}/browse`)).status).toBe(200);
      const tally: LoadTally = { statuses: new Map(), failures: [] };
      let restarted = false;
      const load = countedLoad(
        [() => viaFront.get(`/v1/nodes/${siteId}/browse`)],
        { requests: 3000, concurrency: 4, pauseMs: 20, until: () => restarted, after: 100 },
        tally,
      );
      await delay(300);
      const sentBeforeRestart = tally.statuses.get(200) ?? 0;
      expect(sentBeforeRestart, 'the load runs when the restart begins').toBeGreaterThan(0);
      // It drains within its grace period (RDP_SHUTDOWN_GRACE_SECONDS=10), then exits.
      const exit = await api1.signal('SIGTERM', 15_000);
      expect(exit, 'api-1 exits on SIGTERM within its grace period').toMatchObject({ code: 0 });
      api1.start();
      await api1.waitReady(30_000);
      const answeredWhenReady = [...tally.statuses.values()].reduce((sum, count) => sum + count, 0);
      restarted = true;
      const sent = await load;
      expect(answeredWhenReady, 'the load still runs when the copy is ready again').toBeLessThan(3000);
      expect(tally.failures).toEqual([]);
      expect([...tally.statuses.entries()]).toEqual([[200, sent]]);
      expect(sent).toBeGreaterThan(100);
      expect(await probeReady(api1.origin)).toBe(200);
    },
    60_000,
  );
});
