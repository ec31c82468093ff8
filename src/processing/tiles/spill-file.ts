import { type FileHandle, open } from 'node:fs/promises';
import { BATCH_POINTS, type PointBatch } from '../point-clouds/point-cloud.js';

/**
 * Points parked on disk between passes: x, y, z as doubles and r, g, b, pad as bytes, 28 bytes
 * a point, appended through a small buffer so memory does not grow with the file.
 */
export const SPILL_RECORD = 28;
const BUFFER_POINTS = 8192;

export class SpillWriter {
  count = 0;
  private readonly buffer = Buffer.alloc(BUFFER_POINTS * SPILL_RECORD);
  private buffered = 0;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
  ) {}

  static async create(path: string): Promise<SpillWriter> {
    return new SpillWriter(path, await open(path, 'w'));
  }

  async add(positions: Float64Array, colors: Uint8Array | undefined, i: number): Promise<void> {
    const at = this.buffered * SPILL_RECORD;
    this.buffer.writeDoubleLE(positions[i * 3]!, at);
    this.buffer.writeDoubleLE(positions[i * 3 + 1]!, at + 8);
    this.buffer.writeDoubleLE(positions[i * 3 + 2]!, at + 16);
    if (colors) {
      this.buffer[at + 24] = colors[i * 3]!;
      this.buffer[at + 25] = colors[i * 3 + 1]!;
      this.buffer[at + 26] = colors[i * 3 + 2]!;
    }
    this.buffered += 1;
    this.count += 1;
    if (this.buffered === BUFFER_POINTS) await this.flush();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.file.close();
  }

  private async flush(): Promise<void> {
    if (this.buffered === 0) return;
    await this.file.write(this.buffer, 0, this.buffered * SPILL_RECORD);
    this.buffered = 0;
  }
}

export async function* readSpill(path: string, withColors: boolean): AsyncGenerator<PointBatch> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(BATCH_POINTS * SPILL_RECORD);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      const count = Math.floor(bytesRead / SPILL_RECORD);
      if (count === 0) return;
      const positions = new Float64Array(count * 3);
      const colors = withColors ? new Uint8Array(count * 3) : undefined;
      for (let i = 0; i < count; i += 1) {
        const at = i * SPILL_RECORD;
        positions[i * 3] = buffer.readDoubleLE(at);
        positions[i * 3 + 1] = buffer.readDoubleLE(at + 8);
        positions[i * 3 + 2] = buffer.readDoubleLE(at + 16);
        if (colors) {
          colors[i * 3] = buffer[at + 24]!;
          colors[i * 3 + 1] = buffer[at + 25]!;
          colors[i * 3 + 2] = buffer[at + 26]!;
        }
      }
      yield colors ? { count, positions, colors } : { count, positions };
    }
  } finally {
    await file.close();
  }
}
