import { Readable } from 'node:stream';
import { patternedChunks } from '../test/support/patterned-bytes.js';
import { at, BLOB_BENCH_SIZE, createBlobBench, mibPerSecond, timedGet } from './support/blob-bench.js';
import { log, pct, quick, runMain, type SummaryRow } from './support/report.js';

/**
 * A 1 GiB GET over loopback (128 MiB with --quick) of one file: through the platform's signed
 * blob endpoint (signature check, metadata, Range-capable reply) against a bare node:http
 * server piping fs.createReadStream of the very same file. Best of the rounds.
 */
const ROUNDS = quick ? 2 : 3;
const SIZE = BLOB_BENCH_SIZE;
const KEY = 'bench/download.bin';

export async function runDownload(): Promise<SummaryRow[]> {
  log(`# download: GET of ${SIZE / 1024 / 1024} MiB over loopback, best of ${ROUNDS}`);
  const bench = await createBlobBench();
  try {
    let bare = 0;
    let ours = 0;
    await bench.store.write(KEY, Readable.from(patternedChunks(0, SIZE)));
    const url = await bench.store.downloadUrl(KEY, new Date(Date.now() + 3600_000), { fileName: 'download.bin' });

    for (let round = 0; round < ROUNDS; round += 1) {
      const baseline = await bench.startBare();
      const bareSeconds = await timedGet(`${baseline.origin}/download.bin`, SIZE).finally(() => baseline.stop());
      const platform = await bench.startPlatform();
      const oursSeconds = await timedGet(at(url, platform), SIZE).finally(() => platform.stop());
      log(
        `round ${round + 1}: bare ${mibPerSecond(SIZE, bareSeconds).toFixed(0)} MiB/s, ` +
          `platform ${mibPerSecond(SIZE, oursSeconds).toFixed(0)} MiB/s`,
      );
      bare = Math.max(bare, mibPerSecond(SIZE, bareSeconds));
      ours = Math.max(ours, mibPerSecond(SIZE, oursSeconds));
    }
    log(`platform / bare: ${pct(ours / bare)} (target >= 80%)`);
    return [
      {
        bench: 'download',
        measure: `GET ${SIZE / 1024 / 1024} MiB via signed URL / bare createReadStream`,
        ratio: pct(ours / bare),
        target: '>= 80%',
        met: ours / bare >= 0.8,
      },
      { bench: 'download', measure: 'platform MiB/s', ratio: ours.toFixed(0), target: 'info', met: undefined },
    ];
  } finally {
    bench.remove();
  }
}

runMain(import.meta.url, runDownload);
