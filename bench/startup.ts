import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { createBenchStore } from './support/bench-store.js';
import { BulkTree } from './support/bulk-tree.js';
import { percentile } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * Time from spawning `node dist/main.js` on an existing store to the first 200 from GET /health,
 * against spawning a bare Fastify hello server the same way. Target: serving within 3 s.
 */
const RUNS = quick ? 2 : 5;
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

export async function runStartup(): Promise<SummaryRow[]> {
  log(`# startup: spawn to first 200 from /health, median of ${RUNS}`);
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  const store = await createBenchStore('startup');
  try {
    const tree = new BulkTree(store.regionFile, store.orgId);
    const division = tree.add(tree.org, 'division', 'Operations');
    for (let i = 0; i < 10; i += 1) tree.site(division, `Plant ${i + 1}`, 5000);
    tree.commit();
    const env = { RDP_DATA_DIR: store.dataDir, RDP_LOG_LEVEL: 'warn' };
    const platform: number[] = [];
    const bare: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      bare.push(await timeToServe(['--input-type=module', '-e', BARE_SERVER], {}));
      platform.push(await timeToServe(['dist/main.js'], env));
    }
    const ours = percentile(platform, 50);
    const baseline = percentile(bare, 50);
    log(`platform (store of ${tree.count + 1} nodes) ${ms(ours)}, bare Fastify ${ms(baseline)}: ${times(ours / baseline)}`);
    return [
      { bench: 'startup', measure: 'platform spawn to first 200', ratio: ms(ours), target: '< 3000 ms', met: ours < 3000 },
      {
        bench: 'startup',
        measure: 'platform / bare Fastify startup',
        ratio: times(ours / baseline),
        target: 'info',
        met: undefined,
      },
    ];
  } finally {
    store.remove();
  }
}

runMain(import.meta.url, runStartup);
