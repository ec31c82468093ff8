import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowseBench, prepareStore } from './browse.js';
import { fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { load } from './support/load.js';
import { log, runMain, type SummaryRow } from './support/report.js';

/**
 * Where the platform's authenticated browse spends its CPU (issue 29): the platform server of
 * bench/browse.ts run under `node --cpu-prof`, loaded with the group caller's browse, and the
 * profile's top functions by self time, per store (PostgreSQL with RDP_BENCH_DATABASE_URL).
 * With RDP_BENCH_PROFILE_BARE=1, the bare server's profile under the same load follows each.
 * Not a pass/fail bench: it prints where time goes, to read next to bench/browse.ts's ratios.
 */
const SECONDS = Number(process.env.RDP_BENCH_PROFILE_SECONDS ?? 8);
const TOP = 25;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const frameName = (frame: ProfileNode['callFrame']) => {
  const file = frame.url.replace(/^.*\/node_modules\//, '').replace(/^.*\/(src|bench)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
};

/**
 * Self time per function (name and file:line), and total time (with what it calls) per function
 * of src/, as shares of the samples taken between `from` and `to` (microseconds of the monotonic
 * clock, which the profile's timestamps share with process.hrtime), largest first.
 */
export function summarize(profile: Profile, from = 0, to = Number.POSITIVE_INFINITY) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (at < from || at > to) return;
    total += delta;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    const name = frameName(frame);
    self.set(name, (self.get(name) ?? 0) + delta);
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      const callFrame = byId.get(node)?.callFrame;
      if (!callFrame?.url.includes('/src/')) continue;
      const caller = frameName(callFrame);
      if (seen.has(caller)) continue;
      seen.add(caller);
      inclusive.set(caller, (inclusive.get(caller) ?? 0) + delta);
    }
  });
  const top = (times: Map<string, number>) =>
    [...times.entries()]
      .map(([name, time]) => ({ name, share: time / total }))
      .sort((a, b) => b.share - a.share)
      .slice(0, TOP);
  return { self: top(self), inclusive: top(inclusive) };
}

/**
 * Profiles one server file (a child process under `node --cpu-prof`) while it serves `url` under
 * 50 connections, and prints its top functions over the measured seconds only.
 */
export async function profileServer(
  label: string,
  file: string,
  env: Record<string, string>,
  target: (origin: string) => Promise<{ url: string; headers: Record<string, string> }>,
): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-profile-'));
  const server = await startChildServer(file, env, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const window = { from: 0, to: 0 };
  let rate = 0;
  try {
    const { url, headers } = await target(server.origin);
    await load(url, { connections: 50, seconds: 1, headers });
    window.from = Number(process.hrtime.bigint() / 1000n);
    const result = await load(url, { connections: 50, seconds: SECONDS, headers });
    window.to = Number(process.hrtime.bigint() / 1000n);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers under load`);
    rate = result.requestsPerSecond;
    log(`${label}: ${rate.toFixed(0)} req/s under the profiler`);
  } finally {
    await server.stop();
  }
  const written = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!written) throw new Error(`no profile written in ${dir}`);
  const profile = JSON.parse(fs.readFileSync(path.join(dir, written), 'utf8')) as Profile;
  const { self, inclusive } = summarize(profile, window.from, window.to);
  // A share of the measured seconds over the requests served in them: microseconds per request
  // (wall time of the process's main thread, idle included), comparable between two servers.
  const show = (rows: { share: number; name: string }[]) => {
    for (const { share, name } of rows)
      log(`  ${(share * 100).toFixed(1).padStart(5)}% ${((share * 1e6) / rate).toFixed(1).padStart(6)} us  ${name}`);
  };
  log(`${label}: top ${TOP} by self time, during the measured load (share, microseconds per request)`);
  show(self);
  if (inclusive.length > 0) {
    log(`${label}: top ${TOP} functions of src/ by total time (with what they call)`);
    show(inclusive);
  }
  log(`  (profile: ${path.join(dir, written)})`);
}

async function profileStore(bench: BrowseBench): Promise<void> {
  await profileServer(
    bench.label,
    'bench/servers/platform-server.ts',
    { ...bench.env, RDP_LOG_LEVEL: 'warn' },
    async (origin) => ({
      url: `${origin}/eu/reality/v1/nodes/${bench.folderId}/browse`,
      headers: { authorization: `Bearer ${await fetchToken(origin, bench.store)}` },
    }),
  );
  // The baseline's profile beside it (RDP_BENCH_PROFILE_BARE=1): which entries are the bare work too.
  if (process.env.RDP_BENCH_PROFILE_BARE === '1') {
    await profileServer(`${bench.label} bare`, 'bench/servers/bare-browse-server.ts', bench.bareEnv, async (origin) => ({
      url: `${origin}/v1/nodes/${bench.folderId}/browse`,
      headers: {},
    }));
  }
}

export async function runBrowseProfile(): Promise<SummaryRow[]> {
  const benches = [await prepareStore('SQLite')];
  try {
    if (process.env.RDP_BENCH_DATABASE_URL) benches.push(await prepareStore('PostgreSQL', process.env.RDP_BENCH_DATABASE_URL));
    for (const bench of benches) await profileStore(bench);
  } finally {
    for (const bench of benches) await bench.remove();
  }
  return [];
}

runMain(import.meta.url, runBrowseProfile);
