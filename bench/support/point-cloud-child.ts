import { readFileSync } from 'node:fs';
import { processPointCloud } from '../../src/processing/point-cloud-processor.js';
import { openPointCloud } from '../../src/processing/point-clouds/open-point-cloud.js';

/**
 * One measured run in a process of its own, so its peak memory is the processor's alone:
 * `read` streams every batch and sums a coordinate (the baseline), `process` tiles the file.
 * Reports { points, ms, cpuMs, peakBytes, spillPeakBytes } over IPC: cpuMs is the process's
 * CPU time, its threads' included; spillPeakBytes the most its spill files held at once (the
 * tiler's own count, 0 for a read). The peak is this process's own VmHWM: the ru_maxrss of a
 * forked child starts from its parent's, so it would show the parent's peak.
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
  const cpuStarted = process.cpuUsage();
  let points = 0;
  let spillPeakBytes = 0;
  if (mode === 'read') {
    const reader = await openPointCloud(input!);
    let checksum = 0;
    for await (const batch of reader.batches()) {
      points += batch.count;
      checksum += batch.positions[0]!;
    }
    if (!Number.isFinite(checksum)) throw new Error('unreadable coordinates');
  } else if (mode === 'process') {
    const result = await processPointCloud(input!, outputDir!);
    points = result.pointCount;
    spillPeakBytes = result.spillPeakBytes;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  process.send?.({ points, ms, cpuMs: (cpu.user + cpu.system) / 1000, peakBytes: ownPeakBytes(), spillPeakBytes });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
