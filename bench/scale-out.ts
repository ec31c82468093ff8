import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { builtServerAvailable, createDeployment, type DeployedProcess, type Deployment } from '../test/support/deployment.js';
import { type NginxFront, nginxAvailable, startNginx } from '../test/support/nginx-front.js';
import { freePort } from '../test/support/ports.js';
import { load } from './support/load.js';
import { processCpuMicros } from './support/process-cpu.js';
import { log, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median } from './support/rounds.js';

/**
 * Two API copies behind nginx against one: the same nginx configuration (docs/deploy/nginx-rdp.conf)
 * in front of one upstream server and in front of two, authenticated browse of a folder of 20
 * children on PostgreSQL, autocannon from this process. Reports the ratio of the medians of the
 * rounds and where the CPU goes per request: nginx, each API copy, the PostgreSQL backends of the
 * deployment and the load generator, from /proc/<pid>/stat.
 */
const CONNECTIONS = 32;
const SECONDS = quick ? 3 : 6;
const WARMUP_SECONDS = quick ? 1 : 2;
const ROUNDS = quick ? 1 : 3;
const REGION = 'eu';

interface Measured {
  requestsPerSecond: number;
  p99: number;
  /** CPU microseconds per request, by part of the deployment. */
  cpu: Record<string, number>;
}

/** Every process id under `pid` (nginx's workers under its master), itself included. */
function withChildren(pid: number): number[] {
  const pids = [pid];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.split(') ')[1]?.split(' ')[1]);
      if (parent === pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function cpuOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (processCpuMicros(pid) ?? 0), 0);
}

async function postgresBackends(databaseUrl: string, applicationName: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    return result.rows.map((row: { pid: number }) => row.pid);
  } finally {
    await client.end();
  }
}

/** The folder to browse and a token to browse it with, made as an operator and a client would. */
async function prepare(deployment: Deployment, auth: DeployedProcess, api: DeployedProcess) {
  const org = await deployment.admin('org', 'create', '--name', 'Bench', '--region', REGION);
  const app = await deployment.administratorApp(org.id, 'Bench', 'read:hierarchy write:hierarchy');
  const tokenResponse = await fetch(`${auth.origin}/auth/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
  const base = `${api.origin}/${REGION}/reality/v1`;
  const create = async (parentId: string, kind: string, body: object) => {
    const response = await fetch(`${base}/nodes/${parentId}/${kind}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`create ${kind}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  };
  const division = await create(org.id, 'division', { name: 'Infrastructure' });
  const site = await create(division, 'site', { name: 'Central Station', address: '1 Station Avenue' });
  const folder = await create(site, 'folder', { name: 'Survey 2024' });
  for (let i = 0; i < 20; i += 1) await create(folder, 'folder', { name: `Item ${i + 1}` });
  return { token, folderId: folder };
}

/** One measured run through `front`, with the CPU each part of the deployment spent on it. */
async function measure(
  front: NginxFront,
  partsOf: () => Promise<Record<string, number[]>>,
  path: string,
  headers: Record<string, string>,
): Promise<Measured> {
  const url = `${front.origin}${path}`;
  await load(url, { connections: CONNECTIONS, seconds: WARMUP_SECONDS, headers });
  // Listed after the warm-up: the pools open connections as the load needs them.
  const parts = await partsOf();
  const before = Object.fromEntries(Object.entries(parts).map(([name, pids]) => [name, cpuOf(pids)]));
  const ownBefore = process.cpuUsage();
  const result = await load(url, { connections: CONNECTIONS, seconds: SECONDS, headers });
  const own = process.cpuUsage(ownBefore);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
  }
  const requests = result.requestsPerSecond * SECONDS;
  const cpu: Record<string, number> = {};
  for (const [name, pids] of Object.entries(parts)) cpu[name] = (cpuOf(pids) - (before[name] as number)) / requests;
  cpu['load generator'] = (own.user + own.system) / requests;
  return { requestsPerSecond: result.requestsPerSecond, p99: result.p99, cpu };
}

function cpuLine(cpu: Record<string, number>): string {
  const total = Object.values(cpu).reduce((sum, value) => sum + value, 0);
  const parts = Object.entries(cpu)
    .filter(([, value]) => value > 0.5)
    .map(([name, value]) => `${name} ${value.toFixed(0)}`)
    .join(', ');
  return `${total.toFixed(0)} us CPU/request (${parts})`;
}

export async function runScaleOut(): Promise<SummaryRow[]> {
  log(
    `# scale-out: two API copies behind nginx against one, authenticated browse, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds`,
  );
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL ?? process.env.RDP_TEST_DATABASE_URL;
  const missing = [
    databaseUrl ? undefined : 'PostgreSQL (RDP_BENCH_DATABASE_URL)',
    nginxAvailable ? undefined : 'nginx (Debian: nginx-light)',
    builtServerAvailable ? undefined : 'the build (npm run build)',
  ].filter(Boolean);
  if (!databaseUrl || missing.length > 0) {
    log(`skipped: needs ${missing.join(' and ')}`);
    return [];
  }
  const deployment = await createDeployment({
    databaseUrl,
    env: { RDP_LOG_LEVEL: 'warn', RDP_RATE_LIMIT_DISABLED: '1', RDP_DATABASE_POOL_SIZE: '10' },
  });
  const fronts: NginxFront[] = [];
  try {
    const auth = await deployment.add({ name: 'auth', roles: 'auth' });
    const apiEnv = { RDP_AUTH_JWKS_URL: `${auth.origin}/auth/oauth/jwks` };
    const api1 = await deployment.add({ name: 'api-1', roles: 'api', regions: REGION, env: apiEnv });
    const api2 = await deployment.add({ name: 'api-2', roles: 'api', regions: REGION, env: apiEnv });
    auth.start();
    await auth.waitReady(60_000);
    api1.start();
    api2.start();
    await Promise.all([api1.waitReady(60_000), api2.waitReady(60_000)]);
    const { token, folderId } = await prepare(deployment, auth, api1);

    // The same nginx file in front of each layout; both run all along, only one is loaded at a time.
    const authServer = [`127.0.0.1:${auth.port}`];
    const one = await startNginx(await freePort(), { rdp_auth: authServer, rdp_api_eu: [`127.0.0.1:${api1.port}`] });
    fronts.push(one);
    const two = await startNginx(await freePort(), {
      rdp_auth: authServer,
      rdp_api_eu: [`127.0.0.1:${api1.port}`, `127.0.0.1:${api2.port}`],
    });
    fronts.push(two);
    const path = `/${REGION}/reality/v1/nodes/${folderId}/browse`;
    const headers = { authorization: `Bearer ${token}` };
    const parts = (front: NginxFront) => async () => ({
      nginx: withChildren(front.pid as number),
      'api-1': [api1.pid as number],
      'api-2': [api2.pid as number],
      auth: [auth.pid as number],
      PostgreSQL: await postgresBackends(databaseUrl, deployment.applicationName),
    });

    const singles: Measured[] = [];
    const pairs: Measured[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate the order: whatever else runs on the machine then weighs on both alike.
      const order = round % 2 === 0 ? (['one', 'two'] as const) : (['two', 'one'] as const);
      for (const layout of order) {
        const measured = await measure(layout === 'one' ? one : two, parts(layout === 'one' ? one : two), path, headers);
        (layout === 'one' ? singles : pairs).push(measured);
        log(
          `round ${round + 1}, ${layout === 'one' ? 'one copy ' : 'two copies'}: ${measured.requestsPerSecond.toFixed(0)} req/s ` +
            `(p99 ${measured.p99} ms), ${cpuLine(measured.cpu)}`,
        );
      }
    }
    const single = median(singles.map((each) => each.requestsPerSecond));
    const pair = median(pairs.map((each) => each.requestsPerSecond));
    const ratio = pair / single;
    const cpuMedian = (runs: Measured[]) =>
      Object.fromEntries(Object.keys(runs[0]?.cpu ?? {}).map((name) => [name, median(runs.map((run) => run.cpu[name] ?? 0))]));
    const singleCpu = cpuMedian(singles);
    const pairCpu = cpuMedian(pairs);
    log(`two copies / one copy behind nginx: ${times(ratio)} (${pair.toFixed(0)} / ${single.toFixed(0)} req/s, medians)`);
    log(`median CPU per request, one copy:  ${cpuLine(singleCpu)}`);
    log(`median CPU per request, two copies: ${cpuLine(pairCpu)}`);
    const total = Object.values(pairCpu).reduce((sum, value) => sum + value, 0);
    const cores = os.cpus().length;
    log(
      `on ${cores} cores the ceiling is about cores / CPU per request = ${((1e6 * cores) / total).toFixed(0)} req/s, ` +
        'whatever the number of copies',
    );
    return [
      {
        bench: 'scale-out',
        measure: 'two API copies / one, behind nginx (req/s)',
        ratio: times(ratio),
        target: 'info',
        met: undefined,
      },
      {
        bench: 'scale-out',
        measure: 'CPU per request: nginx / API copies / PostgreSQL / load generator',
        ratio: [pairCpu.nginx, (pairCpu['api-1'] ?? 0) + (pairCpu['api-2'] ?? 0), pairCpu.PostgreSQL, pairCpu['load generator']]
          .map((value) => `${(value ?? 0).toFixed(0)}`)
          .join(' / ')
          .concat(' us'),
        target: 'info',
        met: undefined,
      },
    ];
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${deployment.report()}`);
  } finally {
    for (const front of fronts) await front.stop();
    await deployment.close();
  }
}

runMain(import.meta.url, runScaleOut);
