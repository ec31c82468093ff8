import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { FilesystemBlobStore } from '../src/adapters/blobs/filesystem-blob-store.js';
import { log, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median, medianRatio, pairedRounds } from './support/rounds.js';

/**
 * What completing a multipart upload costs in the filesystem store, against its size: the
 * completion of a large upload (256 MiB, 64 MiB with --quick) against that of a small one
 * (10 MiB), both in 5 MiB parts sent beforehand (untimed). Parts are assembled in place, so a
 * completion reads the parts' records, syncs and renames one file and writes its metadata:
 * it should cost about the same whatever the size (a completion that copied the bytes took
 * time in proportion, about 25 times as long). Only the filesystem is touched, no database.
 */
const ROUNDS = quick ? 3 : 5;
const PART = 5 * 1024 * 1024;
const SMALL = 2 * PART;
const LARGE = quick ? 64 * 1024 * 1024 : 256 * 1024 * 1024;

export async function runMultipartComplete(): Promise<SummaryRow[]> {
  log(
    `# multipart-complete: completing ${LARGE / 1024 / 1024} MiB against ${SMALL / 1024 / 1024} MiB, median of ${ROUNDS} rounds`,
  );
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-bench-complete-'));
  try {
    const store = await FilesystemBlobStore.open({
      root,
      publicBaseUrl: 'http://127.0.0.1:1/blob',
      signingKey: Buffer.alloc(32, 3),
      partSize: PART,
    });
    const bytes = Buffer.alloc(PART, 0x5a);
    let round = 0;
    /** Sends every part of a new upload of `size` bytes, then times its completion alone (ms). */
    const complete = async (size: number) => {
      round += 1;
      const key = `bench/complete-${round}.bin`;
      const expiresAt = new Date(Date.now() + 3600_000);
      const plan = await store.beginUpload(key, size, expiresAt);
      if (plan.kind !== 'multipart') throw new Error('expected multipart');
      for (const part of plan.parts) {
        const grant = {
          method: 'PUT' as const,
          key,
          size: part.size,
          uploadId: plan.uploadId,
          partNumber: part.partNumber,
          expiresAt,
        };
        await store.receive(grant, Readable.from([bytes.subarray(0, part.size)]));
      }
      const start = performance.now();
      const info = await store.completeUpload(key, { uploadId: plan.uploadId, size });
      const elapsed = performance.now() - start;
      if (info?.size !== size) throw new Error('the upload did not complete');
      await store.delete(key);
      return elapsed;
    };
    const measured = await pairedRounds(
      ROUNDS,
      () => complete(SMALL),
      () => complete(LARGE),
      (n, small, large) =>
        log(
          `  round ${n}: complete ${SMALL / 1024 / 1024} MiB ${small.toFixed(1)} ms, ${LARGE / 1024 / 1024} MiB ${large.toFixed(1)} ms`,
        ),
    );
    const ratio = medianRatio(measured, (elapsed) => elapsed);
    log(`  completing ${LARGE / 1024 / 1024} MiB / ${SMALL / 1024 / 1024} MiB: ${times(ratio)} (size ratio ${LARGE / SMALL}x)`);
    return [
      {
        bench: 'multipart-complete',
        measure: `filesystem store: completing ${LARGE / 1024 / 1024} MiB / completing ${SMALL / 1024 / 1024} MiB (5 MiB parts)`,
        ratio: times(ratio),
        target: '<= 4x',
        met: ratio <= 4,
      },
      {
        bench: 'multipart-complete',
        measure: `completion of ${LARGE / 1024 / 1024} MiB, ms`,
        ratio: median(measured.target).toFixed(1),
        target: 'info',
        met: undefined,
      },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

runMain(import.meta.url, runMultipartComplete);
