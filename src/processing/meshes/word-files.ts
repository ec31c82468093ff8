import { closeSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Fixed-size records of 32-bit words (integers or floats) parked on disk between the passes of
 * the mesh tiler (docs/processing.md, "Meshes"). Written synchronously through one buffer: the
 * OBJ parser's visitor is synchronous, and a write of a full buffer lands in the page cache.
 */
export class WordFileWriter {
  count = 0;
  readonly ints: Int32Array;
  readonly floats: Float32Array;
  private at = 0;
  private readonly fd: number;

  constructor(
    readonly path: string,
    readonly recordWords: number,
    bufferRecords = 16_384,
  ) {
    const buffer = new ArrayBuffer(bufferRecords * recordWords * 4);
    this.ints = new Int32Array(buffer);
    this.floats = new Float32Array(buffer);
    this.fd = openSync(path, 'w');
  }

  /** Where the next record's words go in `ints` / `floats`: fill them before the next call. */
  next(): number {
    if (this.at + this.recordWords > this.ints.length) this.flush();
    const slot = this.at;
    this.at += this.recordWords;
    this.count += 1;
    return slot;
  }

  flush(): void {
    if (this.at === 0) return;
    writeSync(this.fd, new Uint8Array(this.ints.buffer, 0, this.at * 4));
    this.at = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** A block of records as read: `count` records from record `first`, seen as integers and floats. */
export interface WordBlock {
  ints: Int32Array;
  floats: Float32Array;
  first: number;
  count: number;
}

/** Streams a word file's records in order, in blocks of about 4 MB through one reused buffer. */
export async function* readWordFile(path: string, recordWords: number): AsyncGenerator<WordBlock> {
  const records = Math.max(1, Math.floor((1 << 22) / (recordWords * 4)));
  const buffer = new ArrayBuffer(records * recordWords * 4);
  const bytes = new Uint8Array(buffer);
  const block: WordBlock = { ints: new Int32Array(buffer), floats: new Float32Array(buffer), first: 0, count: 0 };
  const file = await open(path, 'r');
  try {
    for (;;) {
      let filled = 0;
      while (filled < bytes.length) {
        const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      block.first += block.count;
      block.count = Math.floor(filled / (recordWords * 4));
      if (block.count === 0) return;
      yield block;
    }
  } finally {
    await file.close();
  }
}

/**
 * The floats of the records `wanted` (sorted, distinct) of a word file, in that order: the
 * file is read only in the 1 MB blocks that hold one of them, so a part of a mesh reads about
 * its own share of the vertices.
 */
export async function readWordRecords(path: string, recordWords: number, wanted: Uint32Array): Promise<Float32Array> {
  const out = new Float32Array(wanted.length * recordWords);
  if (wanted.length === 0) return out;
  const blockRecords = Math.max(1, Math.floor((1 << 20) / (recordWords * 4)));
  const bytes = new Uint8Array(blockRecords * recordWords * 4);
  const floats = new Float32Array(bytes.buffer);
  const file = await open(path, 'r');
  try {
    let loaded = -1;
    let loadedCount = 0;
    for (let i = 0; i < wanted.length; i += 1) {
      const record = wanted[i]!;
      const block = Math.floor(record / blockRecords);
      if (block !== loaded) {
        const { bytesRead } = await file.read(bytes, 0, bytes.length, block * bytes.length);
        loaded = block;
        loadedCount = Math.floor(bytesRead / (recordWords * 4));
      }
      const at = record - block * blockRecords;
      if (at >= loadedCount) throw new Error(`${path} has no record ${record}`);
      out.set(floats.subarray(at * recordWords, (at + 1) * recordWords), i * recordWords);
    }
  } finally {
    await file.close();
  }
  return out;
}
