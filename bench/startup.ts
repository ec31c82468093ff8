import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { createStoreUnderTest, onEachStore, type StoreUnderTest } from './support/stores.js';
import { bulkTreeOn } from './support/tree-store.js';

/**
 * Time from spawning `node dist/main.js` to the first 200 from GET /health, on a fresh data
 * directory (or PostgreSQL prefix: every store made and migrated) and on an existing store of
 * 50,002 nodes, against spawning a bare Fastify hello server the same way in each round (the
 * order swapped every round); medians of the rounds, on SQLite and on PostgreSQL with
 * RDP_BENCH_DATABASE_URL. Also the CPU the platform's process spent by its first 200 (Linux), a
 * figure the machine's load changes less than the wall time. Target: serving within 3 s.
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

/** CPU seconds (user and system, all threads) the process has spent so far; NaN where /proc is missing. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

interface Served {
  wallMs: number;
  cpuMs: number;
}

/** Milliseconds from spawn to the first 200 from /health, polling every 5 ms, and the CPU spent by then. */
async function timeToServe(args: string[], env: Record<string, string>): Promise<Served> {
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
      if (performance.now() - started > 60_000) throw new Error(`${args.join(' ')} did not serve within 60 s`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) return { wallMs: performance.now() - started, cpuMs: cpuMsOf(child.pid) };
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

const platform = (env: Record<string, string>) => timeToServe(['dist/main.js'], { ...env, RDP_LOG_LEVEL: 'warn' });

/** The platform on a data directory (or PostgreSQL prefix) of its own, removed afterwards. */
async function onFreshStore(store: StoreUnderTest): Promise<Served> {
  const fresh = await createStoreUnderTest('startup-fresh', store.databaseUrl);
  try {
    return await platform(fresh.env);
  } finally {
    await fresh.remove();
  }
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const build = await bulkTreeOn(store);
  const division = build.tree.add(build.tree.org, 'division', 'Operations');
  for (let i = 0; i < 10; i += 1) build.tree.site(division, `Plant ${i + 1}`, 5000);
  await build.commit();
  const nodes = build.tree.count + 1;
  const measured = await pairedRounds<Record<'fresh' | 'existing', Served>>(
    RUNS,
    async () => {
      // One bare start per round, beside both of the platform's.
      const served = await timeToServe(['--input-type=module', '-e', BARE_SERVER], {});
      return { fresh: served, existing: served };
    },
    async () => ({ fresh: await onFreshStore(store), existing: await platform(store.env) }),
    (run, base, ours) =>
      log(
        `  ${store.label} run ${run}: bare ${ms(base.fresh.wallMs)}, platform fresh ${ms(ours.fresh.wallMs)} (CPU ${ms(ours.fresh.cpuMs)}), ` +
          `existing ${ms(ours.existing.wallMs)} (CPU ${ms(ours.existing.cpuMs)})`,
      ),
  );
  const rows: SummaryRow[] = [];
  for (const which of ['fresh', 'existing'] as const) {
    const wall = median(measured.target.map((ours) => ours[which].wallMs));
    const cpu = median(measured.target.map((ours) => ours[which].cpuMs));
    const ratio = medianRatio(measured, (result) => result[which].wallMs);
    const bare = median(measured.baseline.map((result) => result[which].wallMs));
    const what = which === 'fresh' ? 'a fresh store' : `a store of ${nodes} nodes`;
    log(`  ${store.label}, ${what}: ${ms(wall)} (CPU ${ms(cpu)}), bare Fastify ${ms(bare)}: ${times(ratio)}`);
    rows.push(
      {
        bench: 'startup',
        measure: `platform spawn to first 200, ${which} store, ${store.label}`,
        ratio: ms(wall),
        target: '< 3000 ms',
        met: wall < 3000,
      },
      {
        bench: 'startup',
        measure: `platform / bare Fastify startup, ${which} store, ${store.label}`,
        ratio: times(ratio),
        target: 'info',
        met: undefined,
      },
    );
  }
  return rows;
}

export async function runStartup(): Promise<SummaryRow[]> {
  log(`# startup: spawn to first 200 from /health, fresh and existing stores, median of ${RUNS} rounds in alternating order`);
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  return onEachStore('startup', onStore);
}

runMain(import.meta.url, runStartup);
