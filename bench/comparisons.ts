import { execFile, fork } from 'node:child_process';
import { mkdir, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ComparisonStats } from '../src/domain/comparisons/comparison-figures.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { log, median, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * Comparisons (issue 26, C2C speed and memory): two scans of one site of 10M points each (1M
 * quick) compared by compareClouds, end to end in a child process, against CloudCompare's C2C
 * (Debian's cloudcompare, headless) on the same two files in the same run, medians of rounds;
 * then compareClouds's peak memory (VmHWM) with a 100M-point reference (10M quick) against the
 * 2 GiB target (docs/comparisons-c2c.md). Without CloudCompare its side is skipped; nothing is
 * installed here.
 */
interface Run {
  ms: number;
  peakBytes: number;
  stats: ComparisonStats;
}

const MAX_DISTANCE = 1;
const GIB = 1024 ** 3;
const run = promisify(execFile);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const count = (n: number) => n.toLocaleString('en');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * A scan of a site as a binary PLY of float x y z (both tools read it): ground over 200 x 100 m
 * with a 10 m wall every fifth point; the compared scan has part of the ground raised by 10 cm,
 * the wall moved by 30 cm and one point in 500 floating 20 m up, beyond maxDistance.
 */
async function writeScan(file: string, points: number, seed: number, compared: boolean): Promise<void> {
  const next = seededRandom(seed);
  const handle = await open(file, 'w');
  try {
    await handle.write(
      `ply\nformat binary_little_endian 1.0\nelement vertex ${points}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`,
    );
    const chunk = 1 << 20;
    for (let start = 0; start < points; start += chunk) {
      const n = Math.min(chunk, points - start);
      const values = new Float32Array(n * 3);
      for (let k = 0; k < n; k += 1) {
        const i = start + k;
        if (i % 5 === 4) {
          values[k * 3] = 120 + (compared ? 0.3 : 0) + (next() - 0.5) * 0.004;
          values[k * 3 + 1] = next() * 100;
          values[k * 3 + 2] = next() * 10;
        } else {
          const x = next() * 200;
          values[k * 3] = x;
          values[k * 3 + 1] = next() * 100;
          values[k * 3 + 2] =
            0.02 * x + (compared && x < 50 ? 0.1 : 0) + (compared && i % 500 === 0 ? 20 : 0) + (next() - 0.5) * 0.004;
        }
      }
      await handle.write(new Uint8Array(values.buffer));
    }
  } finally {
    await handle.close();
  }
}

function ours(reference: string, compared: string, outputDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = fork(
      path.resolve('bench/support/comparisons-child.ts'),
      [reference, compared, outputDir, String(MAX_DISTANCE)],
      { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    let result: Run | undefined;
    child.once('message', (message: Run) => {
      result = message;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result && code === 0 ? resolve(result) : reject(new Error(`compareClouds exited with ${code}`)),
    );
  });
}

async function cloudCompareInstalled(): Promise<boolean> {
  try {
    await run('sh', ['-c', 'command -v CloudCompare']);
    return true;
  } catch {
    return false;
  }
}

/** CloudCompare's C2C with the same maxDistance, saving the compared cloud with its distances (its own BIN format). */
async function theirs(reference: string, compared: string, outputDir: string): Promise<number> {
  await mkdir(outputDir, { recursive: true });
  const started = performance.now();
  await run(
    'CloudCompare',
    [
      '-SILENT',
      '-AUTO_SAVE',
      'OFF',
      '-NO_TIMESTAMP',
      '-O',
      compared,
      '-O',
      reference,
      '-C2C_DIST',
      '-MAX_DIST',
      String(MAX_DISTANCE),
      '-SAVE_CLOUDS',
    ],
    { cwd: outputDir, env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, maxBuffer: 1 << 26 },
  );
  const ms = performance.now() - started;
  // It saves next to the inputs: those files go, the inputs stay.
  const inputs = new Set([path.basename(reference), path.basename(compared)]);
  for (const name of await readdir(path.dirname(compared))) {
    if (name.endsWith('.bin') && !inputs.has(name)) await rm(path.join(path.dirname(compared), name), { force: true });
  }
  return ms;
}

export async function runComparisons(): Promise<SummaryRow[]> {
  const size = quick ? 1_000_000 : 10_000_000;
  const memoryReference = quick ? 10_000_000 : 100_000_000;
  const rounds = quick ? 1 : 3;
  log(`# comparisons: C2C of two ${count(size)}-point scans, each run in its own process, medians of ${rounds} round(s)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'rdp-bench-compare-'));
  const rows: SummaryRow[] = [];
  try {
    const scans = path.join(dir, 'scans');
    await mkdir(scans);
    const reference = path.join(scans, 'reference.ply');
    const compared = path.join(scans, 'compared.ply');
    await writeScan(reference, size, 1, false);
    await writeScan(compared, size, 2, true);
    const withCloudCompare = await cloudCompareInstalled();
    if (!withCloudCompare) log('CloudCompare is not installed (Debian package cloudcompare): its side is skipped');
    const oursRuns: Run[] = [];
    const theirMs: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const out = path.join(dir, `out-${round}`);
      await mkdir(out);
      oursRuns.push(await ours(reference, compared, out));
      await rm(out, { recursive: true, force: true });
      if (withCloudCompare) theirMs.push(await theirs(reference, compared, path.join(dir, 'cloudcompare')));
    }
    const oursMs = median(oursRuns.map((r) => r.ms));
    const { stats } = oursRuns[0]!;
    log(
      `compareClouds: ${seconds(oursMs)} (peak ${mb(median(oursRuns.map((r) => r.peakBytes)))}; median ${stats.median?.toFixed(4)} m, ` +
        `p95 ${stats.p95?.toFixed(4)} m, ${count(stats.beyondMaxDistance)} beyond ${MAX_DISTANCE} m)`,
    );
    if (withCloudCompare) {
      const ratio = oursMs / median(theirMs);
      log(`CloudCompare -C2C_DIST: ${seconds(median(theirMs))}; compareClouds / CloudCompare ${times(ratio)}`);
      rows.push({
        bench: 'comparisons',
        measure: `C2C time vs CloudCompare, ${count(size)} vs ${count(size)} points`,
        ratio: times(ratio),
        target: '<= 1x',
        met: ratio <= 1,
      });
    }
    await rm(scans, { recursive: true, force: true });

    const memory = path.join(dir, 'memory');
    await mkdir(memory);
    const bigReference = path.join(memory, 'reference.ply');
    const smallCompared = path.join(memory, 'compared.ply');
    await writeScan(bigReference, memoryReference, 3, false);
    await writeScan(smallCompared, size, 4, true);
    const out = path.join(memory, 'out');
    await mkdir(out);
    const big = await ours(bigReference, smallCompared, out);
    log(
      `${count(memoryReference)}-point reference, ${count(size)} compared: ${seconds(big.ms)}, peak ${mb(big.peakBytes)} (VmHWM) ` +
        `against ${mb(2 * GIB)}`,
    );
    rows.push({
      bench: 'comparisons',
      measure: `peak memory (VmHWM), ${count(memoryReference)}-point reference`,
      ratio: mb(big.peakBytes),
      target: '<= 2048 MB',
      met: big.peakBytes <= 2 * GIB,
    });
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(import.meta.url, runComparisons);
