import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { PlannedPart } from '../../domain/uploads/upload-parts.js';
import { type Received, receiveInto, syncDirectory, writeFileDurably } from './durable-files.js';

/**
 * A multipart upload of the filesystem store, assembled in place so that completing it costs
 * the same for 6 MiB as for 1 TiB: the plan fixes every part's size and offset, so each part is
 * written straight into one file of the upload at its offset, and completion renames that file.
 *
 *   uploads/<uploadId>/manifest.json    { key, size, partSize, ino, born }: the assembly file's
 *   uploads/<uploadId>/object           the assembly file, every part at its offset
 *   uploads/<uploadId>/part-00001.json  { size, md5 }: the part's bytes are durable in the file
 *
 * A part's marker is written (durably) only after its bytes are synced, and removed (durably)
 * before the part is written again, so a crash at any moment leaves every part either recorded
 * with the bytes it names or missing. Two uploads of one part at once are serialised by the
 * store. The rename keeps the inode and its birth time, which the manifest names: a completion
 * cut short after the rename recognises the object under the key as this upload's file (a
 * reused inode has another birth time) and finishes.
 */
export interface Manifest {
  key: string;
  size: number;
  partSize: number;
  /** The assembly file's inode; absent in an upload begun before assembly in place (one file per part). */
  ino?: number;
  /** Its birth time (ms; 0 where the filesystem keeps none): with the inode, names the file even if an inode is reused. */
  born?: number;
}

/** Whether a file's stat is the upload's assembly file, before or after its rename. */
export function isAssemblyFile(
  manifest: Manifest,
  stat: { ino: number; birthtimeMs: number; size: number } | undefined,
): boolean {
  if (!stat) return false;
  return stat.ino === manifest.ino && stat.birthtimeMs === (manifest.born ?? 0) && stat.size === manifest.size;
}

interface PartMarker {
  size: number;
  md5: string;
}

const ASSEMBLY = 'object';
const MANIFEST = 'manifest.json';

function missing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export function assemblyPath(dir: string): string {
  return path.join(dir, ASSEMBLY);
}

function markerPath(dir: string, partNumber: number): string {
  return path.join(dir, `part-${String(partNumber).padStart(5, '0')}.json`);
}

export async function readManifest(dir: string): Promise<Manifest | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/** The upload's folder with its empty assembly file, then its manifest naming the file's inode. */
export async function createUpload(dir: string, tmpDir: string, manifest: Omit<Manifest, 'ino' | 'born'>): Promise<void> {
  await fs.mkdir(dir);
  const handle = await fs.open(assemblyPath(dir), 'wx', 0o600);
  let stat: { ino: number; birthtimeMs: number };
  try {
    stat = await handle.stat();
  } finally {
    await handle.close();
  }
  const full: Manifest = { ...manifest, ino: stat.ino, born: stat.birthtimeMs };
  // Writing the manifest syncs the folder, which makes the assembly file's entry durable too.
  await writeFileDurably(tmpDir, path.join(dir, MANIFEST), JSON.stringify(full), { createFolders: false });
}

/**
 * Receives one part into the assembly file at its offset, syncs it, then records its MD5.
 * An upload completed or aborted meanwhile shows as ENOENT (its folder is gone).
 */
export async function writePart(
  dir: string,
  tmpDir: string,
  part: PlannedPart & { offset: number },
  body: Readable,
): Promise<Received> {
  const marker = markerPath(dir, part.partNumber);
  // Sent again: the old record goes first, so a rewrite cut short leaves the part missing, never stale.
  const recorded = await fs.stat(marker).then(
    () => true,
    (error) => (missing(error) ? false : Promise.reject(error)),
  );
  if (recorded) {
    await fs.rm(marker, { force: true });
    await syncDirectory(dir);
  }
  const handle = await fs.open(assemblyPath(dir), 'r+');
  let received: Received;
  try {
    received = await receiveInto(handle, body, { expectedSize: part.size, start: part.offset });
    await handle.datasync();
  } finally {
    await handle.close();
  }
  const record: PartMarker = { size: received.size, md5: received.md5.toString('hex') };
  await writeFileDurably(tmpDir, marker, JSON.stringify(record), { createFolders: false });
  return received;
}

/** Every part's recorded MD5 in order, or undefined while one is missing. */
export async function recordedParts(dir: string, parts: PlannedPart[]): Promise<Buffer[] | undefined> {
  const md5s: Buffer[] = [];
  for (const part of parts) {
    let record: PartMarker;
    try {
      record = JSON.parse(await fs.readFile(markerPath(dir, part.partNumber), 'utf8')) as PartMarker;
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
    if (record.size !== part.size) return undefined;
    md5s.push(Buffer.from(record.md5, 'hex'));
  }
  return md5s;
}

/**
 * Removes an upload's folder, its manifest first (durably): a removal cut short leaves no
 * manifest naming parts half gone, so a later completion finds the upload over.
 */
export async function removeUpload(dir: string): Promise<void> {
  try {
    await fs.rm(path.join(dir, MANIFEST));
    await syncDirectory(dir);
  } catch (error) {
    if (!missing(error)) throw error;
  }
  await fs.rm(dir, { recursive: true, force: true });
}
