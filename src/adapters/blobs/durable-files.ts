import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { SizeMismatchError } from '../../ports/blob-store.js';

/**
 * Crash-safe files: every file is written under a temporary name in the store's own tmp/
 * folder (same filesystem), synced, renamed into place and its folder synced. A process killed
 * at any point leaves either the old file or the new one under the final name, never half of
 * one; what it leaves in tmp/ is swept at the next start.
 */

export interface Received {
  size: number;
  md5: Buffer;
}

/** While a large body streams in, flush what is written every so many bytes, so the final sync is short. */
const SYNC_EVERY_BYTES = 256 * 1024 * 1024;
const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Streams `body` into an open file from byte `start` (default 0), hashing as it goes; with
 * `expectedSize`, more or fewer bytes are a SizeMismatchError: reading stops at the first byte
 * too many, which is never written (a part's neighbour in an assembly file stays untouched).
 * The body is not destroyed on error, so an HTTP reply can still be sent on its connection.
 */
export async function receiveInto(
  handle: FileHandle,
  body: Readable,
  options: { expectedSize?: number; start?: number },
): Promise<Received> {
  const { expectedSize, start } = options;
  const md5 = createHash('md5');
  // The descriptor is the handle's, which stays open (autoClose off) for the sync and the stat;
  // with `start`, every write is positional (pwrite) from there.
  const sink = createWriteStream('', { fd: handle.fd, autoClose: false, highWaterMark: WRITE_BUFFER_BYTES, start });
  let size = 0;
  let unsynced = 0;
  let sync: Promise<void> | undefined;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      body.off('data', onData);
      body.pause();
      // Writes in flight finish first: the descriptor is closed (and its number reused) only after.
      sink.end(() => reject(error));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (expectedSize !== undefined && size > expectedSize) return fail(new SizeMismatchError(expectedSize, 'more'));
      md5.update(chunk);
      unsynced += chunk.length;
      if (unsynced >= SYNC_EVERY_BYTES && !sync) {
        unsynced = 0;
        sync = handle.datasync().finally(() => {
          sync = undefined;
        });
      }
      if (!sink.write(chunk)) body.pause();
    };
    sink.on('drain', () => body.resume());
    sink.on('error', fail);
    sink.on('finish', resolve);
    body.on('data', onData);
    body.on('error', fail);
    // A client that goes away mid-body: 'aborted' on an HTTP request, 'close' before 'end' on any stream.
    body.on('aborted', () => fail(new Error('the client went away before the end of the body')));
    body.on('close', () => {
      if (!body.readableEnded) fail(new Error('the body stream closed before its end'));
    });
    body.on('end', () => sink.end());
    body.resume();
  });
  if (expectedSize !== undefined && size !== expectedSize) throw new SizeMismatchError(expectedSize, String(size));
  await sync;
  return { size, md5: md5.digest() };
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
   * are a SizeMismatchError (reading stops at the first byte too many).
   */
  receive(body: Readable, expectedSize?: number): Promise<Received> {
    return receiveInto(this.handle, body, { expectedSize });
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

export async function syncDirectory(dir: string): Promise<void> {
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

export async function writeFileDurably(
  tmpDir: string,
  finalPath: string,
  data: string | Buffer,
  options = { createFolders: true },
): Promise<number> {
  const temp = await TempFile.create(tmpDir);
  try {
    await temp.handle.writeFile(data);
    const ino = await temp.finish();
    await publish(temp.path, finalPath, options);
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
