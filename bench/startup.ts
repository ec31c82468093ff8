import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';
import { bulkTreeOn } from './support/tree-store.js';

/**
 * Time from spawning `node dist/main.js` on an existing store to the first 200 from GET /health,
 * against spawning a bare Fastify hello server the same way, in alternating order; medians of the
 * runs. A store of 50,002 nodes, on SQLite and on PostgreSQL with RDP_BENCH_DATABASE_URL. Target:
 * serving within 3 s.
 */
const RUNS = quick ? 3 : 5;
const BARE_SERVER = `
import Fastify from 'fastify';
const app = Fastify();
app.get('/health', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
`;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Milliseconds from spawn to the first 200 from /health, polling every 5 ms. */
async function timeToServe(args: string[], env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  try {
    for (;;) {
      if (exited) throw new Error(`${args.join(' ')} exited before serving`);
      if (performance.now() - started > 30_000) throw new Error(`${args.join(' ')} did not serve within 30 s`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    if (!exited) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
  }
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const build = await bulkTreeOn(store);
  const division = build.tree.add(build.tree.org, 'division', 'Operations');
  for (let i = 0; i < 10; i += 1) build.tree.site(division, `Plant ${i + 1}`, 5000);
  await build.commit();
  const nodes = build.tree.count + 1;
  const env = { ...store.env, RDP_LOG_LEVEL: 'warn' };
  const measured = await pairedRounds(
    RUNS,
    () => timeToServe(['--input-type=module', '-e', BARE_SERVER], {}),
    () => timeToServe(['dist/main.js'], env),
    (run, bare, platform) => log(`  ${store.label} run ${run}: bare ${ms(bare)}, platform ${ms(platform)}`),
  );
  const ours = median(measured.target);
  const ratio = medianRatio(measured, (value) => value);
  log(
    `  ${store.label}: platform (store of ${nodes} nodes) ${ms(ours)}, bare Fastify ${ms(median(measured.baseline))}: ${times(ratio)}`,
  );
  return [
    {
      bench: 'startup',
      measure: `platform spawn to first 200, ${store.label}`,
      ratio: ms(ours),
      target: '< 3000 ms',
      met: ours < 3000,
    },
    {
      bench: 'startup',
      measure: `platform / bare Fastify startup, ${store.label}`,
      ratio: times(ratio),
      target: 'info',
      met: undefined,
    },
  ];
}

export async function runStartup(): Promise<SummaryRow[]> {
  log(`# startup: spawn to first 200 from /health, median of ${RUNS} runs in alternating order`);
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  return onEachStore('startup', onStore);
}

runMain(import.meta.url, runStartup);
