import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MeshoptSimplifier } from 'meshoptimizer';
import { processMesh } from '../../src/processing/meshes/mesh-processor.js';
import { readWholeMesh } from '../../src/processing/meshes/mesh-source.js';
import { simplifyGroup } from '../../src/processing/meshes/mesh-tiler.js';

/**
 * One measured run in a process of its own, over an upload folder's files given as name=path
 * arguments: `tile` makes the tileset end to end (read, tile, write, thumbnail); `simplify` reads
 * the same mesh with the same reader and simplifies it once, whole, to 10% with the same
 * meshoptimizer call the tiler makes. Reports { triangles, outTriangles, ms, readMs, peakBytes }
 * over IPC; the peak is the process's own VmHWM (see model-preview-child.ts).
 */
const [mode, main, outputDir, ...pairs] = process.argv.slice(2);
const byName = new Map(pairs.map((pair) => pair.split('=') as [string, string]));

function ownPeakBytes(): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmHWM:'));
  if (!line) throw new Error('/proc/self/status has no VmHWM');
  return Number.parseInt(line.slice('VmHWM:'.length), 10) * 1024;
}

async function main_(): Promise<void> {
  await MeshoptSimplifier.ready;
  const started = performance.now();
  let triangles = 0;
  let outTriangles = 0;
  let readMs = 0;
  if (mode === 'tile') {
    let readDone = 0;
    const result = await processMesh({ main: main!, byName }, outputDir!, {
      onProgress: (fraction) => {
        if (fraction >= 0.3 && readDone === 0) readDone = performance.now();
      },
    });
    readMs = readDone - started;
    triangles = result.triangles;
    outTriangles = result.files.length - 2;
  } else if (mode === 'simplify') {
    const spillDir = await mkdtemp(path.join(tmpdir(), 'rdp-bench-mesh-read-'));
    const mesh = await readWholeMesh({ main: main!, byName }, spillDir).finally(() =>
      rm(spillDir, { recursive: true, force: true }),
    );
    readMs = performance.now() - started;
    const simplified = simplifyGroup(mesh, mesh.indices, new Int32Array(mesh.positions.length / 3).fill(-1), 0.1);
    triangles = mesh.indices.length / 3;
    outTriangles = simplified.indices.length / 3;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  process.send?.({ triangles, outTriangles, ms: performance.now() - started, readMs, peakBytes: ownPeakBytes() });
}

main_().catch((error) => {
  console.error(error);
  process.exit(1);
});
