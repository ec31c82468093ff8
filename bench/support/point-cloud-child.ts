import { processPointCloud } from '../../src/processing/point-cloud-processor.js';
import { openPointCloud } from '../../src/processing/point-clouds/open-point-cloud.js';

/**
 * One measured run in a process of its own, so its peak RSS is the processor's alone:
 * `read` streams every batch and sums a coordinate (the baseline), `process` tiles the file.
 * Reports { points, ms, maxRssBytes } over IPC.
 */
const [mode, input, outputDir] = process.argv.slice(2);

async function main(): Promise<void> {
  const started = performance.now();
  let points = 0;
  if (mode === 'read') {
    const reader = await openPointCloud(input!);
    let checksum = 0;
    for await (const batch of reader.batches()) {
      points += batch.count;
      checksum += batch.positions[0]!;
    }
    if (!Number.isFinite(checksum)) throw new Error('unreadable coordinates');
  } else if (mode === 'process') {
    points = (await processPointCloud(input!, outputDir!)).pointCount;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  const ms = performance.now() - started;
  process.send?.({ points, ms, maxRssBytes: process.resourceUsage().maxRSS * 1024 });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
