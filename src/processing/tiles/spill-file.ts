import { type FileHandle, open, rm } from 'node:fs/promises';
import type { PointBatch } from '../point-clouds/point-cloud.js';
import { type SpillMeter, spillRemoved, spillWritten } from './spill-meter.js';

/**
 * Points parked on disk between passes, 32 bytes a point: x, y, z as doubles, then r, g, b and
 * the class code, then the intensity as a float as the file stores it (or, tiling a comparison's
 * distances, the distance in its place), so a record maps onto Float64Array (positions),
 * Uint32Array (the color word, index 6 of 8) and Float32Array (the intensity, index 7 of 8) views. The same layout in memory and on disk: loading a spill is one
 * read, moving a point is four element copies, and nothing is allocated per point.
 */
export const SPILL_RECORD = 32;
export const RECORD_DOUBLES = SPILL_RECORD / 8;
export const RECORD_WORDS = SPILL_RECORD / 4;
/** Where the color word sits among a record's eight 32-bit words: bytes 24..27, r g b class. */
export const COLOR_WORD = 6;
/** Where the intensity (or a comparison's distance) sits, as a 32-bit float: bytes 28..31. */
export const INTENSITY_WORD = 7;

/** Records in one buffer, seen as doubles (positions) and as 32-bit words (color). */
export class PointRecords {
  readonly doubles: Float64Array;
  readonly words: Uint32Array;
  readonly floats: Float32Array;

  constructor(readonly capacity: number) {
    const buffer = new ArrayBuffer(capacity * SPILL_RECORD);
    this.doubles = new Float64Array(buffer);
    this.words = new Uint32Array(buffer);
    this.floats = new Float32Array(buffer);
  }

  get bytes(): Uint8Array {
    return new Uint8Array(this.doubles.buffer);
  }

  /**
   * Puts a decoded batch (positions, colors, class codes, intensity) into records 0 to
   * `batch.count - 1`; `floatSlot` 'distance' puts the batch's distances where the intensity goes.
   */
  setBatch(batch: PointBatch, floatSlot: 'intensity' | 'distance' = 'intensity'): void {
    const { positions, colors, classification } = batch;
    const intensity = batch[floatSlot];
    const { doubles, words, floats } = this;
    for (let i = 0; i < batch.count; i += 1) {
      doubles[i * RECORD_DOUBLES] = positions[i * 3]!;
      doubles[i * RECORD_DOUBLES + 1] = positions[i * 3 + 1]!;
      doubles[i * RECORD_DOUBLES + 2] = positions[i * 3 + 2]!;
      const color = colors ? colors[i * 3]! | (colors[i * 3 + 1]! << 8) | (colors[i * 3 + 2]! << 16) : 0;
      words[i * RECORD_WORDS + COLOR_WORD] = (color | ((classification ? classification[i]! : 0) << 24)) >>> 0;
      floats[i * RECORD_WORDS + INTENSITY_WORD] = intensity ? intensity[i]! : 0;
    }
  }

  /** Copies record `from` of `source` into record `to` of these records. */
  copyFrom(source: PointRecords, from: number, to: number): void {
    const s = from * RECORD_DOUBLES;
    const t = to * RECORD_DOUBLES;
    this.doubles[t] = source.doubles[s]!;
    this.doubles[t + 1] = source.doubles[s + 1]!;
    this.doubles[t + 2] = source.doubles[s + 2]!;
    this.words[to * RECORD_WORDS + COLOR_WORD] = source.words[from * RECORD_WORDS + COLOR_WORD]!;
    this.words[to * RECORD_WORDS + INTENSITY_WORD] = source.words[from * RECORD_WORDS + INTENSITY_WORD]!;
  }
}

/** Records per write: a few large writes instead of one awaited write per few thousand points. */
const WRITE_POINTS = 16_384;

/**
 * Records in one segment of a segmented spill by default (32 MB): small enough that a reader
 * removing each segment once read keeps the spills near one copy of the points, large enough
 * to stay few files.
 */
export const SEGMENT_POINTS = 64 * WRITE_POINTS;

export interface SpillOptions {
  /** Counts the bytes written (spill-meter.ts). */
  meter?: SpillMeter;
  /**
   * Writes `path`, then `path.1`, `path.2`... of this many records each, so that a reader can
   * remove what it has read (readSpill's `remove`) while the points go on elsewhere. Without
   * it, one file.
   */
  segmentPoints?: number;
  /** Records a write buffer holds (default 16,384, 512 KB), fewer where many spills are open at once. */
  bufferPoints?: number;
}

/**
 * Appends records to a file (or to segments, `paths`) through two buffers: while one is being
 * written, the next fills, so the producer waits only when it outruns the disk by a whole buffer.
 */
export class SpillWriter {
  count = 0;
  /** The files written, in order: one, or with `segmentPoints` one per that many records. */
  readonly paths: string[];
  /** Records a buffer holds: a segment is a whole number of buffers. */
  private readonly capacity: number;
  private current: PointRecords;
  private spare: PointRecords | undefined;
  private buffered = 0;
  private inFile = 0;
  private writing: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    private file: FileHandle,
    private readonly options: SpillOptions,
  ) {
    this.paths = [path];
    this.capacity = Math.min(options.bufferPoints ?? WRITE_POINTS, options.segmentPoints ?? WRITE_POINTS);
    this.current = new PointRecords(this.capacity);
    this.spare = new PointRecords(this.capacity);
  }

  static async create(path: string, options: SpillOptions = {}): Promise<SpillWriter> {
    return new SpillWriter(path, await open(path, 'w'), options);
  }

  /** Adds record `i` of `source`; true when the buffer is full and `flush` must run before the next add. */
  add(source: PointRecords, i: number): boolean {
    this.current.copyFrom(source, i, this.buffered);
    this.buffered += 1;
    this.count += 1;
    return this.buffered === this.capacity;
  }

  /** Hands the full buffer to the disk and continues in the other one. */
  async flush(): Promise<void> {
    if (this.buffered === 0) return;
    await this.writing;
    const { segmentPoints } = this.options;
    if (segmentPoints && this.inFile > 0 && this.inFile + this.buffered > segmentPoints) await this.nextSegment();
    this.inFile += this.buffered;
    const full = this.current;
    const length = this.buffered * SPILL_RECORD;
    this.current = this.spare ?? new PointRecords(this.capacity);
    this.spare = undefined;
    this.buffered = 0;
    this.writing = this.file.write(full.bytes, 0, length).then(() => {
      spillWritten(this.options.meter, length);
      this.spare = full;
    });
  }

  async close(): Promise<void> {
    await this.flush();
    await this.writing;
    await this.file.close();
  }

  /** Removes the files once closed: their points went elsewhere, or there were none. */
  async discard(): Promise<void> {
    await Promise.all(this.paths.map((file) => rm(file, { force: true })));
    spillRemoved(this.options.meter, this.count * SPILL_RECORD);
  }

  /** Called with no write under way: the segment is whole, the next one starts. */
  private async nextSegment(): Promise<void> {
    await this.file.close();
    const path = `${this.path}.${this.paths.length}`;
    this.file = await open(path, 'w');
    this.paths.push(path);
    this.inFile = 0;
  }
}

/** Records per read while streaming a spill: 2 MB. */
const READ_POINTS = 65_536;

/**
 * Streams the records of spill files in order, one reused buffer: each yield is valid until
 * the next one. Several files read one after the other are one stream. With `remove`, each
 * file is removed once its records have been taken (and its bytes taken off the meter), so a
 * pass over a segmented spill frees the disk as it goes rather than at its end.
 */
export async function* readSpill(
  paths: readonly string[],
  remove?: { meter?: SpillMeter },
): AsyncGenerator<{ records: PointRecords; count: number }> {
  const records = new PointRecords(READ_POINTS);
  for (const path of paths) {
    const file = await open(path, 'r');
    let bytes = 0;
    try {
      for (;;) {
        const { bytesRead } = await file.read(records.bytes, 0, READ_POINTS * SPILL_RECORD, null);
        const count = Math.floor(bytesRead / SPILL_RECORD);
        if (count === 0) break;
        bytes += count * SPILL_RECORD;
        yield { records, count };
      }
    } finally {
      await file.close();
    }
    if (remove) {
      await rm(path, { force: true });
      spillRemoved(remove.meter, bytes);
    }
  }
}

/** All records of spill files holding `count` points, in one buffer. */
export async function loadSpill(paths: readonly string[], count: number): Promise<PointRecords> {
  const records = new PointRecords(count);
  const bytes = records.bytes;
  let at = 0;
  for (const path of paths) {
    const file = await open(path, 'r');
    try {
      for (;;) {
        const { bytesRead } = await file.read(bytes, at, Math.min(bytes.length - at, 1 << 24), null);
        if (bytesRead === 0) break;
        at += bytesRead;
        if (at === bytes.length) break;
      }
    } finally {
      await file.close();
    }
  }
  if (at !== count * SPILL_RECORD) throw new Error(`The spill holds ${at / SPILL_RECORD} points where ${count} were counted`);
  return records;
}
