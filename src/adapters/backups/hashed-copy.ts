import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One file to copy, and what the copy holds: its size and SHA-256, or nothing when the source is gone. */
export interface CopyRequest {
  from: string;
  /** Absent: the file is only hashed. */
  to?: string;
  /** The hash recorded for the file as it was (inode and size): while they match, the bytes are copied, not hashed again. */
  known?: { sha256: string; size: number; ino: number };
}

/** `hashed` false: the known hash was taken. */
export type CopyResult = { size: number; sha256: string; ino: number; hashed: boolean } | { missing: true };

const CHUNK = 1024 * 1024;

/**
 * Copies a file and hashes it in one pass over its bytes (each chunk read once, hashed, written):
 * the backup's and the restore's copy. A source that does not exist is `missing`, not an error.
 * Synchronous, for a copy thread (hash-copy-thread.ts) that does nothing else.
 */
export function copyHashed({ from, to, known }: CopyRequest, buffer = Buffer.allocUnsafe(CHUNK)): CopyResult {
  let source: number;
  try {
    source = fs.openSync(from, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    throw error;
  }
  try {
    const { ino, size: sourceSize } = fs.fstatSync(source);
    if (to) fs.mkdirSync(path.dirname(to), { recursive: true });
    if (to && known && known.ino === ino && known.size === sourceSize) {
      // The kernel copies (copy_file_range, as cp does); no byte passes through here.
      fs.copyFileSync(from, to);
      return { size: sourceSize, sha256: known.sha256, ino, hashed: false };
    }
    const target = to ? fs.openSync(to, 'w') : undefined;
    try {
      const hash = createHash('sha256');
      let size = 0;
      for (;;) {
        const read = fs.readSync(source, buffer, 0, buffer.length, null);
        if (read === 0) break;
        const chunk = buffer.subarray(0, read);
        hash.update(chunk);
        if (target !== undefined)
          for (let written = 0; written < read; ) written += fs.writeSync(target, chunk, written, read - written);
        size += read;
      }
      return { size, sha256: hash.digest('hex'), ino, hashed: true };
    } finally {
      if (target !== undefined) fs.closeSync(target);
    }
  } finally {
    fs.closeSync(source);
  }
}
