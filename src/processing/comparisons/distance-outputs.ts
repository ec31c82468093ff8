import { type FileHandle, open } from 'node:fs/promises';
import { DistanceSummary } from '../../domain/comparisons/comparison-figures.js';
import { COLOR_WORD, type PointRecords, RECORD_DOUBLES, RECORD_WORDS } from '../tiles/spill-file.js';
import { HAS_COLOR } from './side-split.js';

/** Points formatted per CSV piece. */
const CHUNK = 16_384;

/** M3C2's level of detection and significance per point, written as two more CSV columns. */
export interface Detection {
  lod95: Float64Array;
  significant: Uint8Array;
}

/**
 * One cell's outputs, encoded where its distances were measured (a comparison thread) and
 * appended in cell order by DistanceOutputs: CSV lines, PLY records and the kept magnitudes.
 */
export interface EncodedDistances {
  count: number;
  csv: Uint8Array[];
  ply: Uint8Array;
  kept: Float64Array;
}

const ASCII = new TextEncoder();

/**
 * Encodes points 0 to count - 1 of `records` with their distances (not finite: none within
 * maxDistance, or M3C2 gave none): the CSV lines (`x,y,z,distance`, the distance empty beyond
 * maxDistance; `signed` M3C2 adds `lod95,significant`), the binary PLY records for the tiler
 * (distance -1 beyond; M3C2's signed distances NaN where there is none) and the kept distances'
 * magnitudes. Every buffer is its own, so it can be moved between threads.
 */
export function encodeDistances(
  records: PointRecords,
  distances: Float64Array,
  count: number,
  signed: boolean,
  detection?: Detection,
): EncodedDistances {
  const p = records.doubles;
  const csv: Uint8Array[] = [];
  const kept = new Float64Array(count);
  let keptCount = 0;
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK);
    let text = '';
    for (let i = start; i < end; i += 1) {
      const at = i * RECORD_DOUBLES;
      const d = distances[i]!;
      const tail = signed ? detectionColumns(detection, i, d) : '';
      if (Number.isFinite(d)) {
        text += `${p[at]},${p[at + 1]},${p[at + 2]},${d}${tail}\n`;
        kept[keptCount++] = Math.abs(d);
      } else {
        text += `${p[at]},${p[at + 1]},${p[at + 2]},${tail}\n`;
      }
    }
    csv.push(ASCII.encode(text));
  }
  return { count, csv, ply: plyRecords(records, distances, count, signed), kept: kept.subarray(0, keptCount) };
}

/** The buffers of an encoding, to move rather than copy them to another thread. */
export function encodedBuffers(encoded: EncodedDistances): ArrayBuffer[] {
  return [...encoded.csv, encoded.ply, encoded.kept].map((view) => view.buffer as ArrayBuffer);
}

/**
 * What a comparison writes, cell after cell (docs/comparisons-c2c.md): the CSV, the binary PLY
 * for the tiler, and the kept distances' magnitudes as doubles in a file of their own, from
 * which the figures are taken without holding them in memory (distance-figures.ts).
 */
export class DistanceOutputs {
  readonly summary: DistanceSummary;
  comparedPoints = 0;

  private constructor(
    private readonly csv: FileHandle,
    private readonly ply: DistancePlyWriter,
    private readonly kept: FileHandle,
    tolerance: number,
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
      await DistancePlyWriter.create(plyPath),
      await open(keptPath, 'w'),
      tolerance,
    );
    await outputs.csv.write(signed ? 'x,y,z,distance,lod95,significant\n' : 'x,y,z,distance\n');
    return outputs;
  }

  async append(encoded: EncodedDistances): Promise<void> {
    for (const piece of encoded.csv) await this.csv.write(piece);
    await this.kept.write(new Uint8Array(encoded.kept.buffer, encoded.kept.byteOffset, encoded.kept.byteLength));
    for (const d of encoded.kept) this.summary.add(d);
    await this.ply.add(encoded.ply, encoded.count);
    this.comparedPoints += encoded.count;
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

/** A PLY record: x y z doubles, red green blue bytes, a float distance. */
const PLY_RECORD = 8 * 3 + 3 + 4;

/** The points' PLY records: white where the file gave no color, the distance as encodeDistances says. */
function plyRecords(records: PointRecords, distances: Float64Array, count: number, signed: boolean): Uint8Array {
  const bytes = new Uint8Array(count * PLY_RECORD);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < count; i += 1) {
    const at = i * PLY_RECORD;
    const r = i * RECORD_DOUBLES;
    view.setFloat64(at, records.doubles[r]!, true);
    view.setFloat64(at + 8, records.doubles[r + 1]!, true);
    view.setFloat64(at + 16, records.doubles[r + 2]!, true);
    const color = records.words[i * RECORD_WORDS + COLOR_WORD]!;
    const colored = (color & HAS_COLOR) !== 0;
    bytes[at + 24] = colored ? color & 0xff : 255;
    bytes[at + 25] = colored ? (color >>> 8) & 0xff : 255;
    bytes[at + 26] = colored ? (color >>> 16) & 0xff : 255;
    const d = distances[i]!;
    // -1 is a real signed distance: M3C2's points without one are NaN (docs/comparisons-viewer.md).
    view.setFloat32(at + 27, Number.isFinite(d) ? d : signed ? Number.NaN : -1, true);
  }
  return bytes;
}

/**
 * The compared points as a binary little-endian PLY of PLY_RECORD records. The vertex count
 * goes in the header, written last (a fixed-width field).
 */
class DistancePlyWriter {
  private count = 0;
  private offset: number;
  private static readonly COUNT_WIDTH = 12;

  private constructor(private readonly file: FileHandle) {
    this.offset = this.header(0).length;
  }

  static async create(path: string): Promise<DistancePlyWriter> {
    const writer = new DistancePlyWriter(await open(path, 'w'));
    const header = writer.header(0);
    await writer.file.write(header, 0, header.length, 0);
    return writer;
  }

  private header(count: number): Buffer {
    const padded = String(count).padStart(DistancePlyWriter.COUNT_WIDTH, '0');
    return Buffer.from(
      `ply\nformat binary_little_endian 1.0\nelement vertex ${padded}\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty float distance\nend_header\n`,
      'latin1',
    );
  }

  async add(records: Uint8Array, count: number): Promise<void> {
    await this.file.write(records, 0, records.length, this.offset);
    this.offset += records.length;
    this.count += count;
  }

  async close(): Promise<void> {
    const header = this.header(this.count);
    await this.file.write(header, 0, header.length, 0);
    await this.file.close();
  }
}
