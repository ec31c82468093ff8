import { type FileHandle, open } from 'node:fs/promises';
import { BATCH_POINTS, type PointBatch } from '../point-clouds/point-cloud.js';

/**
 * Points parked on disk between passes, 32 bytes a point: x, y, z as doubles, then r, g, b
 * and padding, so a record maps onto a Float64Array view. Appended through a small buffer
 * so memory does not grow with the file.
 */
export const SPILL_RECORD = 32;
const DOUBLES = SPILL_RECORD / 8;
const BUFFER_POINTS = 8192;

export class SpillWriter {
  count = 0;
  private readonly bytes = new Uint8Array(BUFFER_POINTS * SPILL_RECORD);
  private readonly doubles = new Float64Array(this.bytes.buffer);
  private buffered = 0;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
  ) {}

  static async create(path: string): Promise<SpillWriter> {
    return new SpillWriter(path, await open(path, 'w'));
  }

  /** Adds point `i` of a batch; true when the buffer is full and must be flushed before the next add. */
  add(positions: Float64Array, colors: Uint8Array | undefined, i: number): boolean {
    const d = this.buffered * DOUBLES;
    this.doubles[d] = positions[i * 3]!;
    this.doubles[d + 1] = positions[i * 3 + 1]!;
    this.doubles[d + 2] = positions[i * 3 + 2]!;
    if (colors) {
      const at = this.buffered * SPILL_RECORD + 24;
      this.bytes[at] = colors[i * 3]!;
      this.bytes[at + 1] = colors[i * 3 + 1]!;
      this.bytes[at + 2] = colors[i * 3 + 2]!;
    }
    this.buffered += 1;
    this.count += 1;
    return this.buffered === BUFFER_POINTS;
  }

  async flush(): Promise<void> {
    if (this.buffered === 0) return;
    await this.file.write(this.bytes, 0, this.buffered * SPILL_RECORD);
    this.buffered = 0;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.file.close();
  }
}

export async function* readSpill(path: string, withColors: boolean): AsyncGenerator<PointBatch> {
  const file = await open(path, 'r');
  try {
    const bytes = new Uint8Array(BATCH_POINTS * SPILL_RECORD);
    const doubles = new Float64Array(bytes.buffer);
    for (;;) {
      const { bytesRead } = await file.read(bytes, 0, bytes.length, null);
      const count = Math.floor(bytesRead / SPILL_RECORD);
      if (count === 0) return;
      const positions = new Float64Array(count * 3);
      const colors = withColors ? new Uint8Array(count * 3) : undefined;
      for (let i = 0; i < count; i += 1) {
        positions[i * 3] = doubles[i * DOUBLES]!;
        positions[i * 3 + 1] = doubles[i * DOUBLES + 1]!;
        positions[i * 3 + 2] = doubles[i * DOUBLES + 2]!;
        if (colors) {
          const at = i * SPILL_RECORD + 24;
          colors[i * 3] = bytes[at]!;
          colors[i * 3 + 1] = bytes[at + 1]!;
          colors[i * 3 + 2] = bytes[at + 2]!;
        }
      }
      yield colors ? { count, positions, colors } : { count, positions };
    }
  } finally {
    await file.close();
  }
}
