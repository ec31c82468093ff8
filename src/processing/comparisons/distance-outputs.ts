import { type FileHandle, open } from 'node:fs/promises';
import { DistanceSummary } from '../../domain/comparisons/comparison-figures.js';
import { COLOR_WORD, type PointRecords, RECORD_DOUBLES, RECORD_WORDS } from '../tiles/spill-file.js';
import { HAS_COLOR } from './cloud-cells.js';

/** Points formatted or packed per write. */
const CHUNK = 16_384;

/** M3C2's level of detection and significance per point, written as two more CSV columns. */
export interface Detection {
  lod95: Float64Array;
  significant: Uint8Array;
}

/**
 * What a comparison writes per compared point, cell after cell (docs/comparisons-c2c.md): the
 * CSV (`x,y,z,distance`, the distance empty beyond maxDistance; M3C2 adds `lod95,significant`),
 * the binary PLY for the tiler (distance -1 beyond; M3C2's signed distances NaN where there is
 * none), and the kept distances' magnitudes as doubles in a file of their own, from which the
 * figures are taken without holding them in memory (distance-figures.ts).
 */
export class DistanceOutputs {
  readonly summary: DistanceSummary;
  comparedPoints = 0;

  private constructor(
    private readonly csv: FileHandle,
    private readonly ply: DistancePlyWriter,
    private readonly kept: FileHandle,
    tolerance: number,
    private readonly signed: boolean,
  ) {
    this.summary = new DistanceSummary(tolerance);
  }

  /** `signed`: M3C2's distances, which may be negative (their magnitudes make the figures) and come with their detection. */
  static async create(
    csvPath: string,
    plyPath: string,
    keptPath: string,
    tolerance: number,
    signed = false,
  ): Promise<DistanceOutputs> {
    const outputs = new DistanceOutputs(
      await open(csvPath, 'w'),
      await DistancePlyWriter.create(plyPath, signed),
      await open(keptPath, 'w'),
      tolerance,
      signed,
    );
    await outputs.csv.write(signed ? 'x,y,z,distance,lod95,significant\n' : 'x,y,z,distance\n');
    return outputs;
  }

  /** Points 0 to count - 1 of `records` with their distances (not finite: none within maxDistance). */
  async add(records: PointRecords, distances: Float64Array, count: number, detection?: Detection): Promise<void> {
    const p = records.doubles;
    for (let start = 0; start < count; start += CHUNK) {
      const end = Math.min(count, start + CHUNK);
      let text = '';
      const kept = new Float64Array(end - start);
      let keptCount = 0;
      for (let i = start; i < end; i += 1) {
        const at = i * RECORD_DOUBLES;
        const d = distances[i]!;
        const tail = this.signed ? detectionColumns(detection, i, d) : '';
        if (Number.isFinite(d)) {
          text += `${p[at]},${p[at + 1]},${p[at + 2]},${d}${tail}\n`;
          kept[keptCount++] = Math.abs(d);
          this.summary.add(Math.abs(d));
        } else {
          text += `${p[at]},${p[at + 1]},${p[at + 2]},${tail}\n`;
        }
      }
      await this.csv.write(text);
      await this.kept.write(new Uint8Array(kept.buffer, 0, keptCount * 8));
      await this.ply.add(records, distances, start, end);
    }
    this.comparedPoints += count;
  }

  async close(): Promise<void> {
    await this.csv.close();
    await this.kept.close();
    await this.ply.close();
  }
}

/** `,lod95,significant` of point i: empty where M3C2 gave no distance, significant as 1 or 0. */
function detectionColumns(detection: Detection | undefined, i: number, d: number): string {
  if (!detection || !Number.isFinite(d)) return ',,';
  return `,${detection.lod95[i]},${detection.significant[i]}`;
}

/**
 * The compared points as a binary little-endian PLY: x y z doubles, red green blue bytes (white
 * where the file gave no color), a float distance. The vertex count goes in the header,
 * written last (a fixed-width field).
 */
class DistancePlyWriter {
  private count = 0;
  private offset: number;
  private static readonly COUNT_WIDTH = 12;
  private static readonly RECORD = 8 * 3 + 3 + 4;

  private constructor(
    private readonly file: FileHandle,
    private readonly signed: boolean,
  ) {
    this.offset = DistancePlyWriter.header(0).length;
  }

  static async create(path: string, signed: boolean): Promise<DistancePlyWriter> {
    const writer = new DistancePlyWriter(await open(path, 'w'), signed);
    const header = DistancePlyWriter.header(0);
    await writer.file.write(header, 0, header.length, 0);
    return writer;
  }

  private static header(count: number): Buffer {
    const padded = String(count).padStart(DistancePlyWriter.COUNT_WIDTH, '0');
    return Buffer.from(
      `ply\nformat binary_little_endian 1.0\nelement vertex ${padded}\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty float distance\nend_header\n`,
      'latin1',
    );
  }

  async add(records: PointRecords, distances: Float64Array, start: number, end: number): Promise<void> {
    const record = DistancePlyWriter.RECORD;
    const bytes = Buffer.alloc((end - start) * record);
    for (let i = start; i < end; i += 1) {
      const at = (i - start) * record;
      const r = i * RECORD_DOUBLES;
      bytes.writeDoubleLE(records.doubles[r]!, at);
      bytes.writeDoubleLE(records.doubles[r + 1]!, at + 8);
      bytes.writeDoubleLE(records.doubles[r + 2]!, at + 16);
      const color = records.words[i * RECORD_WORDS + COLOR_WORD]!;
      const colored = (color & HAS_COLOR) !== 0;
      bytes[at + 24] = colored ? color & 0xff : 255;
      bytes[at + 25] = colored ? (color >>> 8) & 0xff : 255;
      bytes[at + 26] = colored ? (color >>> 16) & 0xff : 255;
      const d = distances[i]!;
      // -1 is a real signed distance: M3C2's points without one are NaN (docs/comparisons-viewer.md).
      bytes.writeFloatLE(Number.isFinite(d) ? d : this.signed ? Number.NaN : -1, at + 27);
    }
    await this.file.write(bytes, 0, bytes.length, this.offset);
    this.offset += bytes.length;
    this.count += end - start;
  }

  async close(): Promise<void> {
    const header = DistancePlyWriter.header(this.count);
    await this.file.write(header, 0, header.length, 0);
    await this.file.close();
  }
}
