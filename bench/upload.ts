import fs from 'node:fs';
import path from 'node:path';
import { at, BLOB_BENCH_SIZE, createBlobBench, mibPerSecond, timedPut } from './support/blob-bench.js';
import { log, pct, quick, runMain, type SummaryRow } from './support/report.js';

/**
 * A 1 GiB PUT over loopback (128 MiB with --quick): through the platform's signed blob
 * endpoint (signature check, MD5 while streaming, fsync, rename, metadata) against a bare
 * node:http server that streams the same body to a file while computing its MD5. Each server
 * in a child process; best of the rounds.
 */
const ROUNDS = quick ? 1 : 2;

function flush(file: string): void {
  const fd = fs.openSync(file, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}
const SIZE = BLOB_BENCH_SIZE;

export async function runUpload(): Promise<SummaryRow[]> {
  log(`# upload: PUT of ${SIZE / 1024 / 1024} MiB over loopback, best of ${ROUNDS}`);
  const bench = await createBlobBench();
  const { store } = bench;
  const bareFile = path.join(bench.dataDir, 'blobs', 'objects', 'bench', 'bare.bin');
  try {
    let bare = 0;
    let ours = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const baseline = await bench.startBare();
      fs.rmSync(bareFile, { force: true });
      const bareSeconds = await timedPut(`${baseline.origin}/bare.bin`, SIZE).finally(() => baseline.stop());
      // Untimed: the bare server leaves 1 GiB of dirty pages, whose writeback would otherwise
      // compete with the next run. The platform's run syncs its own before it answers.
      flush(bareFile);

      const server = await bench.startPlatform();
      await store.delete('bench/upload.bin');
      const plan = await store.beginUpload('bench/upload.bin', SIZE, new Date(Date.now() + 3600_000));
      if (plan.kind !== 'single') throw new Error('expected one PUT');
      const oursSeconds = await timedPut(at(plan.url, server), SIZE).finally(() => server.stop());
      const head = await store.head('bench/upload.bin');
      if (head?.size !== SIZE) throw new Error('the platform did not store the whole body');

      log(
        `round ${round + 1}: bare ${mibPerSecond(SIZE, bareSeconds).toFixed(0)} MiB/s, ` +
          `platform ${mibPerSecond(SIZE, oursSeconds).toFixed(0)} MiB/s`,
      );
      bare = Math.max(bare, mibPerSecond(SIZE, bareSeconds));
      ours = Math.max(ours, mibPerSecond(SIZE, oursSeconds));
    }
    log(`platform / bare: ${pct(ours / bare)} (target >= 70%)`);
    return [
      {
        bench: 'upload',
        measure: `PUT ${SIZE / 1024 / 1024} MiB via signed URL / bare node:http`,
        ratio: pct(ours / bare),
        target: '>= 70%',
        met: ours / bare >= 0.7,
      },
      { bench: 'upload', measure: 'platform MiB/s', ratio: ours.toFixed(0), target: 'info', met: undefined },
    ];
  } finally {
    bench.remove();
  }
}

runMain(import.meta.url, runUpload);
