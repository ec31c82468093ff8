import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { processPointCloud } from '../src/processing/point-cloud-processor.js';
import { gzipTile } from '../src/processing/tiles/tile-encoding.js';
import { type PointSource, writeLas } from '../test/support/point-cloud-samples.js';
import { SCAN_SOURCE } from '../test/support/terrestrial-scan.js';
import { log, median, quick, runMain, type SummaryRow, times } from './support/report.js';

/**
 * Tile bytes with intensity and classification (docs/design/measurements.md, "Tile attributes")
 * against the same points without them, tiled in the same run by the same tiler: a terrestrial
 * scan of 2M points (400k quick) as LAS 1.4, point format 7 (colors) and 6 (none), once with
 * intensity and a class code per point, once with both 0 (which the tiler leaves out:
 * docs/processing.md). The bytes are those of every tile as stored and sent, gzipped by the
 * worker's own function (and as glTF, for the record); the tiling time is reported
 * beside them, median of rounds, the two sides one after the other in each round.
 */
const CLASSES = [1, 2, 3, 4, 5, 6, 9];

function withAttributes(source: PointSource, on: boolean): PointSource {
  return {
    origin: source.origin,
    pointAt: (i, count) => {
      const p = source.pointAt(i, count);
      return on ? { ...p, classification: CLASSES[i % CLASSES.length]! } : { ...p, intensity: 0, classification: 0 };
    },
  };
}

/** The tiles' bytes as stored and sent (gzipped, docs/processing.md "Tiles on the wire"), and as glTF. */
async function tileBytes(dir: string): Promise<{ sent: number; glb: number }> {
  const bytes = { sent: 0, glb: 0 };
  for (const name of await readdir(dir, { recursive: true })) {
    if (!name.endsWith('.glb')) continue;
    const glb = await readFile(path.join(dir, name));
    bytes.glb += glb.length;
    bytes.sent += (await gzipTile(glb)).length;
  }
  return bytes;
}

async function tile(input: string, out: string, expected: string[]): Promise<{ bytes: { sent: number; glb: number }; ms: number }> {
  const started = performance.now();
  const result = await processPointCloud(input, out);
  const ms = performance.now() - started;
  if (result.attributes.join() !== expected.join())
    throw new Error(`${input}: attributes ${result.attributes}, expected ${expected}`);
  const bytes = await tileBytes(out);
  await rm(out, { recursive: true, force: true });
  return { bytes, ms };
}

async function compare(dir: string, points: number, pointFormat: 6 | 7, rounds: number): Promise<SummaryRow> {
  const colors = pointFormat === 7 ? ['color'] : [];
  const files = { with: path.join(dir, `with-${pointFormat}.las`), without: path.join(dir, `without-${pointFormat}.las`) };
  await writeLas(files.with, points, '1.4', { pointFormat, classification: true, source: withAttributes(SCAN_SOURCE, true) });
  await writeLas(files.without, points, '1.4', { pointFormat, classification: true, source: withAttributes(SCAN_SOURCE, false) });
  const byteRatios: number[] = [];
  const timeRatios: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const without = await tile(files.without, path.join(dir, 'out-without'), ['position', ...colors]);
    const withBoth = await tile(files.with, path.join(dir, 'out-with'), ['position', ...colors, 'intensity', 'classification']);
    byteRatios.push(withBoth.bytes.sent / without.bytes.sent);
    timeRatios.push(withBoth.ms / without.ms);
    log(
      `  round ${round + 1}: ${(withBoth.bytes.sent / 1e6).toFixed(1)} MB with, ${(without.bytes.sent / 1e6).toFixed(1)} MB without as sent: ` +
        `bytes ${times(withBoth.bytes.sent / without.bytes.sent)} (as glTF ${times(withBoth.bytes.glb / without.bytes.glb)}, ` +
        `gzip ${times(without.bytes.sent / without.bytes.glb)} of glTF); tiling ${withBoth.ms.toFixed(0)} ms / ${without.ms.toFixed(0)} ms: ${times(withBoth.ms / without.ms)}`,
    );
  }
  await rm(files.with, { force: true });
  await rm(files.without, { force: true });
  const bytes = median(byteRatios);
  log(`  median: bytes ${times(bytes)}, tiling time ${times(median(timeRatios))}`);
  return {
    bench: 'tile-attributes',
    measure: `${points / 1000}k points ${pointFormat === 7 ? 'with rgb' : 'without rgb'}: tile bytes as sent (gzip) with intensity+classification / without`,
    ratio: times(bytes),
    target: '<= 1.15x',
    met: bytes <= 1.15,
  };
}

export async function runTileAttributes(): Promise<SummaryRow[]> {
  const points = quick ? 400_000 : 2_000_000;
  const rounds = quick ? 1 : 3;
  log(`# tile-attributes: tile bytes with and without _INTENSITY and _CLASSIFICATION, ${rounds} round(s)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'rdp-bench-tile-attributes-'));
  try {
    return [await compare(dir, points, 7, rounds), await compare(dir, points, 6, rounds)];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(import.meta.url, runTileAttributes);
