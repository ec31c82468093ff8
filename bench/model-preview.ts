import { fork } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PREVIEW_TRIANGLE_BUDGET } from '../src/processing/models/vertex-clustering.js';
import { gridObjText } from '../test/support/model-samples.js';
import { log, median, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * Library model previews (issue 12, speed): an OBJ height field of 1M and of 10M triangles (100k
 * and 1M quick) converted to a GLB preview and a PNG thumbnail, each run in a child process of
 * its own. Reports triangles per second and peak memory (medians of rounds), the ratio of the
 * peaks (10x the triangles at most 3x the memory: the reader keeps vertices, not triangles, once
 * past the preview's budget), and the conversion's byte rate against a bare streaming read of
 * the same file in the same run.
 */
interface Run {
  bytes: number;
  triangles: number;
  previewTriangles: number;
  ms: number;
  maxRssBytes: number;
  peakBytes: number;
}

function measure(mode: 'read' | 'convert', input: string, outputDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = fork(path.resolve('bench/support/model-preview-child.ts'), [mode, input, outputDir], {
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
const count = (n: number) => n.toLocaleString('en');

/** A grid of exactly `triangles` triangles (2 x columns x rows, about square), written in pieces. */
function writeGridObj(file: string, triangles: number): void {
  const half = triangles / 2;
  let columns = Math.ceil(Math.sqrt(half));
  while (half % columns !== 0) columns += 1;
  const rows = half / columns;
  const fd = openSync(file, 'w');
  try {
    gridObjText(columns, rows, (text) => writeSync(fd, text));
  } finally {
    closeSync(fd);
  }
}

interface Measured {
  triangles: number;
  fileBytes: number;
  previewTriangles: number;
  convertMs: number;
  readMs: number;
  peakBytes: number;
  maxRssBytes: number;
}

async function measureSize(dir: string, triangles: number, rounds: number): Promise<Measured> {
  const input = path.join(dir, `grid-${triangles}.obj`);
  writeGridObj(input, triangles);
  const fileBytes = (await stat(input)).size;
  const converts: Run[] = [];
  const reads: Run[] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      reads.push(await measure('read', input, ''));
      const out = path.join(dir, `out-${triangles}-${round}`);
      await mkdir(out);
      converts.push(await measure('convert', input, out));
      await rm(out, { recursive: true, force: true });
      if (converts.at(-1)!.triangles !== triangles)
        throw new Error(`expected ${triangles} triangles, read ${converts.at(-1)!.triangles}`);
    }
  } finally {
    await rm(input, { force: true });
  }
  const measured: Measured = {
    triangles,
    fileBytes,
    previewTriangles: converts[0]!.previewTriangles,
    convertMs: median(converts.map((run) => run.ms)),
    readMs: median(reads.map((run) => run.ms)),
    peakBytes: median(converts.map((run) => run.peakBytes)),
    maxRssBytes: median(converts.map((run) => run.maxRssBytes)),
  };
  const perSecond = (measured.triangles / measured.convertMs) * 1000;
  log(
    `${count(triangles)} triangles (${mb(fileBytes)} OBJ, preview ${count(measured.previewTriangles)} triangles): ` +
      `${count(Math.round(perSecond))} triangles/s, ${(measured.convertMs / 1000).toFixed(2)} s, peak ${mb(measured.peakBytes)} ` +
      `(VmHWM; maxRSS ${mb(measured.maxRssBytes)}); bare read ${(((fileBytes / measured.readMs) * 1000) / 1024 / 1024).toFixed(0)} MB/s, ` +
      `conversion ${(((fileBytes / measured.convertMs) * 1000) / 1024 / 1024).toFixed(0)} MB/s: ${times(measured.readMs / measured.convertMs)} of read throughput`,
  );
  return measured;
}

export async function runModelPreview(): Promise<SummaryRow[]> {
  const sizes = quick ? [100_000, 1_000_000] : [1_000_000, 10_000_000];
  const rounds = quick ? 1 : 3;
  log(
    `# model-preview: OBJ to a GLB preview and a PNG thumbnail (budget ${count(PREVIEW_TRIANGLE_BUDGET)} triangles), each run in its own process, medians of ${rounds} round(s)`,
  );
  const dir = await mkdtemp(path.join(tmpdir(), 'rdp-bench-model-'));
  try {
    const small = await measureSize(dir, sizes[0]!, rounds);
    const large = await measureSize(dir, sizes[1]!, rounds);
    const memoryRatio = large.peakBytes / small.peakBytes;
    log(
      `peak memory (VmHWM) ${count(large.triangles)}/${count(small.triangles)} triangles: ${times(memoryRatio)} (maxRSS: ${times(large.maxRssBytes / small.maxRssBytes)})`,
    );
    return [
      {
        bench: 'model-preview',
        measure: 'peak memory (VmHWM), 10x the triangles',
        ratio: times(memoryRatio),
        target: '<= 3x',
        met: memoryRatio <= 3,
      },
      {
        bench: 'model-preview',
        measure: `conversion vs bare read, ${count(small.triangles)} triangles`,
        ratio: `${times(small.readMs / small.convertMs)} (${count(Math.round((small.triangles / small.convertMs) * 1000))} triangles/s)`,
        target: 'report',
        met: undefined,
      },
      {
        bench: 'model-preview',
        measure: `conversion vs bare read, ${count(large.triangles)} triangles`,
        ratio: `${times(large.readMs / large.convertMs)} (${count(Math.round((large.triangles / large.convertMs) * 1000))} triangles/s)`,
        target: 'report',
        met: undefined,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(import.meta.url, runModelPreview);
