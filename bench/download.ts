import { Readable } from 'node:stream';
import { patternedChunks } from '../test/support/patterned-bytes.js';
import { at, BLOB_BENCH_SIZE, createBlobBench, mibPerSecond, timedGet } from './support/blob-bench.js';
import { log, pct, runMain, type SummaryRow } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * A 1 GiB GET over loopback (128 MiB with --quick) of one file: through the platform's signed
 * blob endpoint (signature check, metadata, Range-capable reply) against a bare node:http
 * server piping fs.createReadStream of the very same file. Each server in a child process, the
 * order swapped every round; the ratio is the median of the rounds' ratios. SQLite, and
 * PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const ROUNDS = 3;
const SIZE = BLOB_BENCH_SIZE;
const KEY = 'bench/download.bin';

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const bench = await createBlobBench(store);
  await bench.blobs.write(KEY, Readable.from(patternedChunks(0, SIZE)));
  // The bare server's folder is objects/bench/: it reads the very file the platform serves.
  const url = await bench.blobs.downloadUrl(KEY, new Date(Date.now() + 3600_000), { fileName: 'download.bin' });
  const bare = async () => {
    const server = await bench.startBare();
    return mibPerSecond(SIZE, await timedGet(`${server.origin}/download.bin`, SIZE).finally(() => server.stop()));
  };
  const platform = async () => {
    const server = await bench.startPlatform();
    return mibPerSecond(SIZE, await timedGet(at(url, server), SIZE).finally(() => server.stop()));
  };
  const measured = await pairedRounds(ROUNDS, bare, platform, (round, bareRate, ourRate) =>
    log(`  ${store.label} round ${round}: bare ${bareRate.toFixed(0)} MiB/s, platform ${ourRate.toFixed(0)} MiB/s`),
  );
  const ratio = medianRatio(measured, (rate) => rate);
  log(`  ${store.label}: platform / bare ${pct(ratio)}, median of ${ROUNDS} rounds (target >= 80%)`);
  return [
    {
      bench: 'download',
      measure: `GET ${SIZE / 1024 / 1024} MiB via signed URL / bare createReadStream, ${store.label}`,
      ratio: pct(ratio),
      target: '>= 80%',
      met: ratio >= 0.8,
    },
    {
      bench: 'download',
      measure: `platform MiB/s, ${store.label}`,
      ratio: median(measured.target).toFixed(0),
      target: 'info',
      met: undefined,
    },
  ];
}

export async function runDownload(): Promise<SummaryRow[]> {
  log(`# download: GET of ${SIZE / 1024 / 1024} MiB over loopback, median of ${ROUNDS} rounds`);
  return onEachStore('download', onStore);
}

runMain(import.meta.url, runDownload);
