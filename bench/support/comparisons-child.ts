import { readFileSync } from 'node:fs';
import { compareClouds } from '../../src/processing/comparisons/compare-clouds.js';

/**
 * One C2C comparison in a process of its own: `compareClouds` over a reference and a compared
 * file into an output folder, end to end (decoding, cells, CSV, PLY, figures). Reports
 * { ms, peakBytes, median } over IPC; the peak is the process's own VmHWM (see
 * model-preview-child.ts).
 */
const [reference, compared, outputDir, maxDistance] = process.argv.slice(2);

function ownPeakBytes(): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmHWM:'));
  if (!line) throw new Error('/proc/self/status has no VmHWM');
  return Number.parseInt(line.slice('VmHWM:'.length), 10) * 1024;
}

async function main(): Promise<void> {
  const started = performance.now();
  const result = await compareClouds(
    { reference: reference!, compared: compared!, method: 'c2c', maxDistance: Number(maxDistance), tolerance: 0.05 },
    outputDir!,
  );
  process.send?.({ ms: performance.now() - started, peakBytes: ownPeakBytes(), stats: result.stats });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
