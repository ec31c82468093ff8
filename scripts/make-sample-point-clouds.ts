import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeLaz } from '../test/support/laz-writer.js';
import { writeE57, writeLas, writePly, writePts, writeXyz } from '../test/support/point-cloud-samples.js';
import { writeTestVideo } from '../test/support/video-samples.js';

/**
 * Writes one small real sample of each input format into a folder (default ./samples), for
 * trying uploads and processing by hand: `npx tsx scripts/make-sample-point-clouds.ts [dir] [points]`.
 */
const dir = path.resolve(process.argv[2] ?? 'samples');
const points = Number(process.argv[3] ?? 10_000);
if (!Number.isSafeInteger(points) || points <= 0) throw new Error('points must be a positive integer');
await mkdir(dir, { recursive: true });
await writeLas(path.join(dir, 'sample-1.2.las'), points);
await writeLas(path.join(dir, 'sample-1.4.las'), points, '1.4');
await writeLaz(path.join(dir, 'sample.laz'), points);
await writePly(path.join(dir, 'sample-ascii.ply'), points, 'ascii');
await writePly(path.join(dir, 'sample-binary.ply'), points, 'binary_little_endian');
await writeE57(path.join(dir, 'sample.e57'), points);
await writeXyz(path.join(dir, 'sample.xyz'), points);
await writePts(path.join(dir, 'sample.pts'), points);
await writeTestVideo(path.join(dir, 'capture-16s.mp4'), 16, 2);
await writeTestVideo(path.join(dir, 'too-short-5s.mp4'), 5, 10);
process.stdout.write(`samples of ${points} points written to ${dir}\n`);
