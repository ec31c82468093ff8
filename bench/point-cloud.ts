import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeLas } from '../test/support/point-cloud-samples.js';
import { log, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * Point clouds to 3D Tiles: a generated LAS of 1M and of 10M points (100k and 1M in quick
 * mode), each processed in a child process of its own so its peak RSS is the processor's.
 * Baseline, same run: a plain streaming read of the same file. Targets: peak memory flat as
 * the file grows tenfold (ratio close to 1), and the throughput relative to the read.
 */
interface Run {
  points: number;
  ms: number;
  maxRssBytes: number;
}

function measure(mode: 'read' | 'process', input: string, outputDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = fork(path.resolve('bench/support/point-cloud-child.ts'), [mode, input, outputDir], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: Run | undefined;
    child.once('message', (message: Run) => {
      result = message;
    });
    child.once('error', reject);
    child.once('exit', (code) => (result && code === 0 ? resolve(result) : reject(new Error(`${mode} run exited with ${code}`))));
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const rate = (run: Run) => `${((run.points / run.ms) * 1000).toFixed(0)} points/s`;

export async function runPointCloud(): Promise<SummaryRow[]> {
  const sizes = quick ? [100_000, 1_000_000] : [1_000_000, 10_000_000];
  log(
    `# point-cloud: LAS to 3D Tiles, ${sizes.map((n) => n.toLocaleString('en')).join(' and ')} points, each in its own process`,
  );
  const dir = await mkdtemp(path.join(tmpdir(), 'rdp-bench-pc-'));
  const runs: { size: number; read: Run; processed: Run }[] = [];
  try {
    for (const size of sizes) {
      const input = path.join(dir, `cloud-${size}.las`);
      await writeLas(input, size);
      const read = await measure('read', input, '');
      const processed = await measure('process', input, path.join(dir, `tiles-${size}`));
      if (processed.points !== size || read.points !== size) throw new Error(`expected ${size} points`);
      log(
        `${size.toLocaleString('en')} points: read ${rate(read)} (peak ${mb(read.maxRssBytes)}), ` +
          `tiled ${rate(processed)} (peak ${mb(processed.maxRssBytes)}): ${times(read.ms / processed.ms)} of read throughput`,
      );
      runs.push({ size, read, processed });
      await rm(input, { force: true });
      await rm(path.join(dir, `tiles-${size}`), { recursive: true, force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const [small, large] = runs as [(typeof runs)[0], (typeof runs)[0]];
  const memoryRatio = large.processed.maxRssBytes / small.processed.maxRssBytes;
  const throughput = large.read.ms / large.processed.ms;
  log(`peak memory ${large.size.toLocaleString('en')}/${small.size.toLocaleString('en')} points: ${times(memoryRatio)}`);
  return [
    {
      bench: 'point-cloud',
      measure: 'peak RSS, 10x the points',
      ratio: times(memoryRatio),
      target: '< 1.5x (flat)',
      met: memoryRatio < 1.5,
    },
    {
      bench: 'point-cloud',
      measure: `tiling vs plain read, ${large.size.toLocaleString('en')} points`,
      ratio: times(throughput),
      target: 'report (points/s)',
      met: undefined,
    },
  ];
}

runMain(import.meta.url, runPointCloud);
