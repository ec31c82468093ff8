import fs from 'node:fs';
import path from 'node:path';
import { at, BLOB_BENCH_SIZE, createBlobBench, mibPerSecond, timedPut } from './support/blob-bench.js';
import { log, pct, runMain, type SummaryRow } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * A 1 GiB PUT over loopback (128 MiB with --quick), timed from the first byte sent to the
 * answer: through the platform's signed blob endpoint (signature check, MD5 while streaming,
 * fsync, rename, folder sync, metadata) against a bare node:http server that streams the same
 * body to a file while computing its MD5 and fsyncs it before answering. Both answer only once
 * the bytes are on disk, so the timed part holds the same durable write on both sides. Each
 * server in a child process, the order swapped every round; the ratio is the median of the
 * rounds' ratios. SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const ROUNDS = 3;
const SIZE = BLOB_BENCH_SIZE;
const KEY = 'bench/upload.bin';

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const bench = await createBlobBench(store);
  const bareFile = path.join(bench.bareDir, 'bare.bin');
  const bare = async () => {
    const server = await bench.startBare();
    fs.rmSync(bareFile, { force: true });
    const seconds = await timedPut(`${server.origin}/bare.bin`, SIZE).finally(() => server.stop());
    return mibPerSecond(SIZE, seconds);
  };
  const platform = async () => {
    const server = await bench.startPlatform();
    await bench.blobs.delete(KEY);
    const plan = await bench.blobs.beginUpload(KEY, SIZE, new Date(Date.now() + 3600_000));
    if (plan.kind !== 'single') throw new Error('expected one PUT');
    const seconds = await timedPut(at(plan.url, server), SIZE).finally(() => server.stop());
    const head = await bench.blobs.head(KEY);
    if (head?.size !== SIZE) throw new Error('the platform did not store the whole body');
    return mibPerSecond(SIZE, seconds);
  };
  const measured = await pairedRounds(ROUNDS, bare, platform, (round, bareRate, ourRate) =>
    log(`  ${store.label} round ${round}: bare ${bareRate.toFixed(0)} MiB/s, platform ${ourRate.toFixed(0)} MiB/s`),
  );
  const ratio = medianRatio(measured, (rate) => rate);
  const ours = median(measured.target);
  log(`  ${store.label}: platform / bare ${pct(ratio)}, median of ${ROUNDS} rounds (target >= 70%)`);
  return [
    {
      bench: 'upload',
      measure: `PUT ${SIZE / 1024 / 1024} MiB via signed URL / bare node:http + fsync, ${store.label}`,
      ratio: pct(ratio),
      target: '>= 70%',
      met: ratio >= 0.7,
    },
    { bench: 'upload', measure: `platform MiB/s, ${store.label}`, ratio: ours.toFixed(0), target: 'info', met: undefined },
  ];
}

export async function runUpload(): Promise<SummaryRow[]> {
  log(`# upload: PUT of ${SIZE / 1024 / 1024} MiB over loopback, durable on both sides, median of ${ROUNDS} rounds`);
  return onEachStore('upload', onStore);
}

runMain(import.meta.url, runUpload);
