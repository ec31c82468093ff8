import { seedOrganization } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { type LoadResult, warmedLoad } from './support/load.js';
import { log, pct, quick, runMain, type SummaryRow } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * POST {auth_url}/oauth/token, grant_type=client_credentials with HTTP Basic, 50 connections:
 * the platform against oidc-provider issuing the same kind of token (an Ed25519-signed JWT access
 * token for one resource server), each server in a child process, one at a time, the order
 * swapped every round, the same request bytes to both. The ratio is the median of the rounds'
 * ratios. SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL (the platform reads the application
 * from its store; oidc-provider keeps its client in memory either way).
 */
const CONNECTIONS = 50;
const SECONDS = quick ? 2 : 5;
const WARMUP_SECONDS = quick ? 1 : 2;
const ROUNDS = quick ? 3 : 5;
const BODY = new URLSearchParams({ grant_type: 'client_credentials', scope: 'read:hierarchy write:hierarchy' }).toString();

/** oidc-provider is a dev dependency: absent only where dev dependencies were left out (npm ci --omit=dev). */
async function baselineInstalled(): Promise<boolean> {
  try {
    await import('oidc-provider');
    return true;
  } catch {
    return false;
  }
}

function requestHeaders(client: { clientId: string; clientSecret: string }): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
    'content-type': 'application/x-www-form-urlencoded',
  };
}

/** One request checked by hand before the load: a 200 with an EdDSA-signed at+jwt access token. */
async function checkTokenResponse(url: string, headers: Record<string, string>): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers, body: BODY });
  const body = (await response.json()) as { access_token?: string; scope?: string };
  const header = JSON.parse(Buffer.from(body.access_token?.split('.')[0] ?? '', 'base64url').toString() || '{}');
  if (response.status !== 200 || header.alg !== 'EdDSA' || header.typ !== 'at+jwt') {
    throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
  }
}

async function measure(file: string, env: Record<string, string>, headers: Record<string, string>): Promise<LoadResult> {
  const server = await startChildServer(file, env);
  try {
    const url = `${server.origin}/auth/oauth/token`;
    await checkTokenResponse(url, headers);
    return await warmedLoad(url, {
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      headers,
      method: 'POST',
      body: BODY,
      serverPid: server.child.pid,
    });
  } finally {
    await server.stop();
  }
}

function cpuText(micros: number | undefined): string {
  return micros === undefined ? '' : `, ${micros.toFixed(0)} us CPU/request`;
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const client = await seedOrganization(store.env);
  const headers = requestHeaders(client);
  const measured = await pairedRounds(
    ROUNDS,
    () =>
      measure(
        'bench/servers/oidc-provider-server.ts',
        { RDP_BENCH_CLIENT_ID: client.clientId, RDP_BENCH_CLIENT_SECRET: client.clientSecret },
        headers,
      ),
    () => measure('bench/servers/platform-server.ts', { ...store.env, RDP_LOG_LEVEL: 'warn' }, headers),
    (round, oidc, platform) =>
      log(
        `  ${store.label} round ${round}: oidc-provider ${oidc.requestsPerSecond.toFixed(0)} req/s (p99 ${oidc.p99} ms${cpuText(oidc.cpuMicrosPerRequest)}), ` +
          `platform ${platform.requestsPerSecond.toFixed(0)} req/s (p99 ${platform.p99} ms${cpuText(platform.cpuMicrosPerRequest)})`,
      ),
  );
  const ratio = medianRatio(measured, (result) => result.requestsPerSecond);
  const ours = median(measured.target.map((result) => result.requestsPerSecond));
  const theirs = median(measured.baseline.map((result) => result.requestsPerSecond));
  log(`  ${store.label}: platform / oidc-provider ${pct(ratio)}, median of ${ROUNDS} rounds (target >= 100%)`);
  const rows: SummaryRow[] = [
    {
      bench: 'token',
      measure: `platform req/s / oidc-provider, ${store.label} (medians ${ours.toFixed(0)} / ${theirs.toFixed(0)})`,
      ratio: pct(ratio),
      target: '>= 100%',
      met: ratio >= 1,
    },
  ];
  const cpu = (results: LoadResult[]) => results.map((result) => result.cpuMicrosPerRequest);
  if ([...cpu(measured.target), ...cpu(measured.baseline)].every((micros) => micros !== undefined)) {
    // CPU per request hardly moves when other processes compete for the cores: the steadier figure.
    const cpuRatio = medianRatio(measured, (result) => result.cpuMicrosPerRequest as number);
    const mine = median(cpu(measured.target) as number[]);
    const theirsCpu = median(cpu(measured.baseline) as number[]);
    log(`  ${store.label}: server CPU per request, platform ${mine.toFixed(0)} us, oidc-provider ${theirsCpu.toFixed(0)} us`);
    rows.push({
      bench: 'token',
      measure: `server CPU per request, platform / oidc-provider, ${store.label} (${mine.toFixed(0)} / ${theirsCpu.toFixed(0)} us)`,
      ratio: pct(cpuRatio),
      target: 'info',
      met: undefined,
    });
  }
  return rows;
}

export async function runToken(): Promise<SummaryRow[]> {
  log(
    `# token: POST /auth/oauth/token client_credentials + Basic, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds, against oidc-provider`,
  );
  if (!(await baselineInstalled())) {
    log('  skipped: the baseline oidc-provider (a dev dependency) is not installed; run npm ci');
    return [
      { bench: 'token', measure: 'skipped: oidc-provider not installed (npm ci)', ratio: '-', target: '>= 100%', met: undefined },
    ];
  }
  return onEachStore('token', onStore);
}

runMain(import.meta.url, runToken);
