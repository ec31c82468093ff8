import { fork } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeTexturedObj } from '../test/support/mesh-samples.js';
import { log, median, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * Mesh tiles (issue 25, speed and memory): a textured OBJ terrain (MTL, 1024-pixel PNG) of 2M
 * triangles (400k quick) tiled end to end against reading the same mesh and simplifying it once,
 * whole, to 10% with the same meshoptimizer call, each run in a child process of its own
 * (medians of rounds); then the tiler's peak memory (VmHWM) at two sizes ten times apart.
 */
interface Run {
  triangles: number;
  outTriangles: number;
  ms: number;
  readMs: number;
  peakBytes: number;
}

function measure(mode: 'tile' | 'simplify', files: Map<string, string>, outputDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const pairs = [...files].map(([name, file]) => `${name}=${file}`);
    const child = fork(
      path.resolve('bench/support/mesh-tiles-child.ts'),
      [mode, files.get('terrain.obj')!, outputDir, ...pairs],
      {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
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
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A terrain of about `triangles` triangles (2 x columns x rows, twice as wide as deep). */
async function writeTerrain(dir: string, triangles: number): Promise<Map<string, string>> {
  const rows = Math.round(Math.sqrt(triangles / 4));
  const columns = Math.round(triangles / 2 / rows);
  await mkdir(dir, { recursive: true });
  return writeTexturedObj(dir, columns, rows, { textureSize: 1024 });
}

async function tileRuns(dir: string, files: Map<string, string>, rounds: number): Promise<Run[]> {
  const runs: Run[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const out = path.join(dir, `out-${round}`);
    runs.push(await measure('tile', files, out));
    await rm(out, { recursive: true, force: true });
  }
  return runs;
}

export async function runMeshTiles(): Promise<SummaryRow[]> {
  const size = quick ? 400_000 : 2_000_000;
  const memorySizes = quick ? [200_000, 2_000_000] : [1_000_000, 10_000_000];
  const rounds = quick ? 1 : 3;
  log(`# mesh-tiles: a textured OBJ to 3D Tiles, each run in its own process, medians of ${rounds} round(s)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'rdp-bench-mesh-'));
  try {
    const files = await writeTerrain(path.join(dir, 'speed'), size);
    const tiles = await tileRuns(dir, files, rounds);
    const simplifies: Run[] = [];
    for (let round = 0; round < rounds; round += 1) simplifies.push(await measure('simplify', files, ''));
    const tileMs = median(tiles.map((run) => run.ms));
    const tileReadMs = median(tiles.map((run) => run.readMs));
    const simplifyMs = median(simplifies.map((run) => run.ms));
    const simplifyReadMs = median(simplifies.map((run) => run.readMs));
    const triangles = tiles[0]!.triangles;
    const ratio = tileMs / simplifyMs;
    const afterRead = (tileMs - tileReadMs) / (simplifyMs - simplifyReadMs);
    log(
      `${count(triangles)} triangles (${mb((await stat(files.get('terrain.obj')!)).size)} OBJ): tiled end to end in ${seconds(tileMs)} ` +
        `(${tiles[0]!.outTriangles} tiles, read ${seconds(tileReadMs)}); read and simplified once to 10% in ${seconds(simplifyMs)} ` +
        `(${count(simplifies[0]!.outTriangles)} triangles, read ${seconds(simplifyReadMs)}): ${times(ratio)}; after the read ${times(afterRead)}`,
    );
    await rm(path.join(dir, 'speed'), { recursive: true, force: true });

    const peaks: Run[] = [];
    for (const triangles of memorySizes) {
      const sized = await writeTerrain(path.join(dir, `memory-${triangles}`), triangles);
      const runs = await tileRuns(dir, sized, 1);
      peaks.push(runs[0]!);
      log(`${count(runs[0]!.triangles)} triangles tiled in ${seconds(runs[0]!.ms)}, peak ${mb(runs[0]!.peakBytes)} (VmHWM)`);
      await rm(path.join(dir, `memory-${triangles}`), { recursive: true, force: true });
    }
    const memoryRatio = peaks[1]!.peakBytes / peaks[0]!.peakBytes;
    log(`peak memory ${count(peaks[1]!.triangles)}/${count(peaks[0]!.triangles)} triangles: ${times(memoryRatio)}`);
    return [
      {
        bench: 'mesh-tiles',
        measure: `tiling vs simplifying once to 10%, ${count(triangles)} triangles, end to end`,
        ratio: times(ratio),
        target: '<= 3x',
        met: ratio <= 3,
      },
      {
        bench: 'mesh-tiles',
        measure: 'tiling vs simplifying once to 10%, after the read',
        ratio: times(afterRead),
        target: 'report',
        met: undefined,
      },
      {
        bench: 'mesh-tiles',
        measure: `peak memory (VmHWM), ${count(peaks[1]!.triangles)} vs ${count(peaks[0]!.triangles)} triangles`,
        ratio: times(memoryRatio),
        target: '<= 1.5x',
        met: memoryRatio <= 1.5,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(import.meta.url, runMeshTiles);
