import { createHash, randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Crash-safe files: every file is written under a temporary name in the store's own tmp/
 * folder (same filesystem), synced, renamed into place and its folder synced. A process killed
 * at any point leaves either the old file or the new one under the final name, never half of
 * one; what it leaves in tmp/ is swept at the next start.
 */
export class SizeMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly received: string,
  ) {
    super(`the body has ${received} bytes where ${expected} were signed`);
  }
}

export interface Received {
  size: number;
  md5: Buffer;
}

/** While a large body streams in, flush what is written every so many bytes, so the final sync is short. */
const SYNC_EVERY_BYTES = 256 * 1024 * 1024;
const WRITE_BUFFER_BYTES = 1024 * 1024;

/** writev until every byte is written: a regular file may take fewer bytes than asked. */
async function writeFully(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let pending = buffers;
  let remaining = pending.reduce((sum, buffer) => sum + buffer.length, 0);
  while (remaining > 0) {
    const { bytesWritten } = await handle.writev(pending);
    remaining -= bytesWritten;
    if (remaining > 0) pending = [Buffer.concat(pending).subarray(bytesWritten)];
  }
}

/**
 * A sink writing to the handle's current position, batching what queues up while a write is
 * in flight into one writev. (The handle's own createWriteStream would keep the handle busy,
 * so that it could not be closed, when told not to close it.)
 */
function writerTo(handle: FileHandle): Writable {
  return new Writable({
    highWaterMark: WRITE_BUFFER_BYTES,
    write(chunk: Buffer, _encoding, done) {
      writeFully(handle, [chunk]).then(() => done(), done);
    },
    writev(chunks, done) {
      writeFully(
        handle,
        chunks.map((entry) => entry.chunk as Buffer),
      ).then(() => done(), done);
    },
  });
}

export class TempFile {
  private constructor(
    readonly path: string,
    readonly handle: FileHandle,
  ) {}

  static async create(dir: string): Promise<TempFile> {
    // The owner's pid in the name tells the sweep whether the writer is still alive.
    const file = path.join(dir, `${process.pid}-${randomBytes(8).toString('hex')}`);
    return new TempFile(file, await fs.open(file, 'wx', 0o600));
  }

  /**
   * Streams `body` into the file, hashing as it goes; with `expectedSize`, more or fewer bytes
   * are a SizeMismatchError (reading stops at the first byte too many). The body is not
   * destroyed on error, so an HTTP reply can still be sent on its connection.
   */
  async receive(body: Readable | AsyncIterable<Buffer>, expectedSize?: number): Promise<Received> {
    const md5 = createHash('md5');
    let size = 0;
    let sync: Promise<void> | undefined;
    let unsynced = 0;
    const handle = this.handle;
    const source = 'iterator' in body && typeof body.iterator === 'function' ? body.iterator({ destroyOnReturn: false }) : body;
    async function* meter(chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        size += chunk.length;
        if (expectedSize !== undefined && size > expectedSize) throw new SizeMismatchError(expectedSize, 'more');
        md5.update(chunk);
        unsynced += chunk.length;
        if (unsynced >= SYNC_EVERY_BYTES && !sync) {
          unsynced = 0;
          sync = handle.datasync().finally(() => {
            sync = undefined;
          });
        }
        yield chunk;
      }
    }
    await pipeline(source, meter, writerTo(handle));
    if (expectedSize !== undefined && size !== expectedSize) throw new SizeMismatchError(expectedSize, String(size));
    await sync;
    return { size, md5: md5.digest() };
  }

  /** Syncs and closes; returns the inode, which the rename keeps (metadata is bound to it). */
  async finish(): Promise<number> {
    await this.handle.sync();
    const { ino } = await this.handle.stat();
    await this.handle.close();
    return ino;
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => {});
    await fs.rm(this.path, { force: true });
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Renames a finished temporary file to its final name and makes the rename (and any new folders) durable. */
export async function publish(tempPath: string, finalPath: string, options = { createFolders: true }): Promise<void> {
  const parent = path.dirname(finalPath);
  const firstCreated = options.createFolders ? await fs.mkdir(parent, { recursive: true }) : undefined;
  await fs.rename(tempPath, finalPath);
  await syncDirectory(parent);
  if (firstCreated) {
    // New folders exist durably only once each of their parents is synced too.
    for (let dir = path.dirname(parent); ; dir = path.dirname(dir)) {
      await syncDirectory(dir);
      if (dir === path.dirname(firstCreated) || dir === path.dirname(dir)) break;
    }
  }
}

export async function writeFileDurably(tmpDir: string, finalPath: string, data: string | Buffer): Promise<number> {
  const temp = await TempFile.create(tmpDir);
  try {
    await temp.handle.writeFile(data);
    const ino = await temp.finish();
    await publish(temp.path, finalPath);
    return ino;
  } catch (error) {
    await temp.discard();
    throw error;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temporary files whose writing process is gone (killed mid-write); returns how many. */
export async function sweepTemporaryFiles(tmpDir: string): Promise<number> {
  let removed = 0;
  for (const name of await fs.readdir(tmpDir).catch(() => [] as string[])) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || alive(pid))) continue;
    await fs.rm(path.join(tmpDir, name), { force: true, recursive: true });
    removed += 1;
  }
  return removed;
}
