import { createReadStream, readFileSync } from 'node:fs';
import { convertModel } from '../../src/processing/models/convert-model.js';

/**
 * One measured run in a process of its own: `read` streams the file and counts its lines (the
 * baseline: the same bytes read, no parsing), `convert` makes the preview and thumbnail of it.
 * Reports { bytes, triangles, previewTriangles, ms, maxRssBytes, peakBytes } over IPC: maxRSS
 * from process.resourceUsage() and the process's own VmHWM. The ratio uses VmHWM: a forked
 * child's ru_maxrss may start from its parent's peak (exec keeps it), VmHWM is this process's.
 */
const [mode, input, outputDir] = process.argv.slice(2);

function ownPeakBytes(): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmHWM:'));
  if (!line) throw new Error('/proc/self/status has no VmHWM');
  return Number.parseInt(line.slice('VmHWM:'.length), 10) * 1024;
}

async function main(): Promise<void> {
  const started = performance.now();
  let bytes = 0;
  let triangles = 0;
  let previewTriangles = 0;
  if (mode === 'read') {
    let lines = 0;
    for await (const chunk of createReadStream(input!, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
    }
    if (lines === 0) throw new Error('an empty file');
  } else if (mode === 'convert') {
    const preview = await convertModel({ path: input!, format: 'obj' }, outputDir!);
    triangles = preview.sourceTriangles;
    previewTriangles = preview.triangles;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  const ms = performance.now() - started;
  process.send?.({
    bytes,
    triangles,
    previewTriangles,
    ms,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    peakBytes: ownPeakBytes(),
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
