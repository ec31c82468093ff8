import { type FileHandle, open } from 'node:fs/promises';
import { notCompatible } from '../../processing-error.js';
import { crc32c } from './crc32c.js';

/**
 * The E57 physical layer: the file is pages of 1024 bytes, each 1020 bytes of data followed by
 * a CRC-32C of them. Reads address a physical offset and return logical bytes, checksums
 * verified, page trailers skipped. Pages are read 64 at a time and the last block is kept.
 */
export const PAGE_SIZE = 1024;
export const PAGE_DATA = 1020;
const BLOCK_PAGES = 64;

export function physicalToLogical(physical: number): number {
  const within = physical % PAGE_SIZE;
  if (within >= PAGE_DATA) throw notCompatible(`E57 offset ${physical} points into a page checksum`);
  return Math.floor(physical / PAGE_SIZE) * PAGE_DATA + within;
}

export function logicalToPhysical(logical: number): number {
  return Math.floor(logical / PAGE_DATA) * PAGE_SIZE + (logical % PAGE_DATA);
}

export class E57PagedFile {
  private blockStart = -1;
  private block = Buffer.alloc(0);

  private constructor(
    private readonly file: FileHandle,
    readonly pageCount: number,
  ) {}

  static async open(path: string): Promise<E57PagedFile> {
    const file = await open(path, 'r');
    const { size } = await file.stat();
    if (size === 0 || size % PAGE_SIZE !== 0) {
      await file.close();
      throw notCompatible(`An E57 file is whole 1024-byte pages; this one is ${size} bytes`);
    }
    return new E57PagedFile(file, size / PAGE_SIZE);
  }

  close(): Promise<void> {
    return this.file.close();
  }

  /** `length` logical bytes starting at logical offset `logical`. */
  async read(logical: number, length: number): Promise<Buffer> {
    const out = Buffer.alloc(length);
    let written = 0;
    while (written < length) {
      const position = logical + written;
      const page = Math.floor(position / PAGE_DATA);
      const data = await this.page(page);
      const within = position % PAGE_DATA;
      const take = Math.min(PAGE_DATA - within, length - written);
      data.copy(out, written, within, within + take);
      written += take;
    }
    return out;
  }

  private async page(page: number): Promise<Buffer> {
    if (page >= this.pageCount) throw notCompatible('The E57 file ends before the data it declares');
    if (page < this.blockStart || page >= this.blockStart + this.block.length / PAGE_SIZE || this.blockStart < 0) {
      const pages = Math.min(BLOCK_PAGES, this.pageCount - page);
      const block = Buffer.alloc(pages * PAGE_SIZE);
      await this.file.read(block, 0, block.length, page * PAGE_SIZE);
      for (let p = 0; p < pages; p += 1) verifyPage(block.subarray(p * PAGE_SIZE, (p + 1) * PAGE_SIZE), page + p);
      this.block = block;
      this.blockStart = page;
    }
    const at = (page - this.blockStart) * PAGE_SIZE;
    return this.block.subarray(at, at + PAGE_DATA);
  }
}

function verifyPage(page: Buffer, index: number): void {
  const expected = crc32c(page.subarray(0, PAGE_DATA));
  // The reference implementation stores the checksum big-endian; accept either order.
  if (page.readUInt32BE(PAGE_DATA) !== expected && page.readUInt32LE(PAGE_DATA) !== expected) {
    throw notCompatible(`E57 page ${index} fails its CRC-32C checksum: the file is corrupt`);
  }
}
