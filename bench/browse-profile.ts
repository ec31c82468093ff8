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

async function profileStore(bench: BrowseBench): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-browse-profile-'));
  const server = await startChildServer('bench/servers/platform-server.ts', { ...bench.env, RDP_LOG_LEVEL: 'warn' }, [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
  ]);
  const window = { from: 0, to: 0 };
  try {
    const headers = { authorization: `Bearer ${await fetchToken(server.origin, bench.store)}` };
    const url = `${server.origin}/eu/reality/v1/nodes/${bench.folderId}/browse`;
    await load(url, { connections: 50, seconds: 1, headers });
    window.from = Number(process.hrtime.bigint() / 1000n);
    const result = await load(url, { connections: 50, seconds: SECONDS, headers });
    window.to = Number(process.hrtime.bigint() / 1000n);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers under load`);
    log(`${bench.label}: ${result.requestsPerSecond.toFixed(0)} req/s under the profiler`);
  } finally {
    await server.stop();
  }
  const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Profile;
  const { self, inclusive } = summarize(profile, window.from, window.to);
  const show = (rows: { share: number; name: string }[]) => {
    for (const { share, name } of rows) log(`  ${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
  };
  log(`${bench.label}: top ${TOP} by self time, during the measured load`);
  show(self);
  log(`${bench.label}: top ${TOP} functions of src/ by total time (with what they call)`);
  show(inclusive);
  log(`  (profile: ${path.join(dir, file)})`);
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
