import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { buildManifest, MANIFEST_FILE, type ManifestFile } from '../../domain/backups/backup-manifest.js';
import { type BlobReference, isPrefix } from '../../domain/backups/blob-references.js';
import { writeFileDurably } from '../blobs/durable-files.js';
import { BlobReferenceRepository } from '../db/repositories/blob-reference-repository.js';
import type { RegionalSchema } from '../db/schema.js';
import { BackupRefusedError } from './backup-refused.js';
import { isEmptyOrAbsent, isWithin, keysUnder, metaPath, objectPath, storeFiles } from './data-dir-layout.js';
import { HashedCopies } from './hashed-copies.js';

export interface EmbeddedBackupOptions {
  dataDir: string;
  to: string;
  now: () => Date;
  /** Snapshots taken at most, when blobs the last one named were removed meanwhile (see below). */
  attempts?: number;
}

export interface BackupSummary {
  to: string;
  stores: string[];
  files: number;
  bytes: number;
  /** The snapshots taken: more than one when a blob went between a snapshot and its copy. */
  snapshots: number;
  /** From the first snapshot to the manifest written. */
  seconds: number;
}

/**
 * SQLite's online backup of one store, in one step: the copy is the store as of one read
 * transaction, which in WAL mode never blocks the server's writers (a copy in many steps would
 * start over at every commit meanwhile). The copy is set to rollback-journal mode, so it is one
 * file; the server sets WAL again when it opens it.
 */
async function snapshotStore(source: string, target: string): Promise<void> {
  const live = new SQLite(source, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    await live.backup(target, { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
  const copy = new SQLite(target);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** What a store's copy names: read from the copy, so rows written after the snapshot play no part. */
async function referencesOf(copy: string): Promise<BlobReference[]> {
  const db = new Kysely<RegionalSchema>({ dialect: new SqliteDialect({ database: new SQLite(copy, { readonly: true }) }) });
  try {
    return await new BlobReferenceRepository(db).all();
  } finally {
    await db.destroy();
  }
}

/**
 * `rdp admin backup --to <dir>` on the embedded default while it serves (docs/operations.md,
 * "Backups and restores"): a snapshot of every store, then the blobs the snapshots name (with
 * their metadata files), then the manifest of every file's size and SHA-256. Blobs are written
 * before a row names them and never rewritten, so what a snapshot names is there; one removed
 * between the snapshot and its copy (a purge's deletion) means its row went after the snapshot,
 * so a new snapshot is taken, which no longer names it, and only blobs not yet copied are copied.
 * A blob still missing after `attempts` snapshots is one the store names but does not hold: the
 * backup is refused, naming it. Written in a folder beside `to`, renamed to it when complete.
 */
export async function backupEmbedded(options: EmbeddedBackupOptions): Promise<BackupSummary> {
  const { dataDir, now } = options;
  const started = now().getTime();
  const to = path.resolve(options.to);
  if (isWithin(to, dataDir)) throw new BackupRefusedError(`the backup's folder ${to} is inside the data directory ${dataDir}`);
  if (!(await isEmptyOrAbsent(to))) throw new BackupRefusedError(`the backup's folder ${to} is not empty`);
  const stores = await storeFiles(dataDir);
  if (!stores.includes('global.sqlite')) throw new BackupRefusedError(`no store found in ${dataDir} (RDP_DATA_DIR)`);
  await fs.mkdir(path.dirname(to), { recursive: true });
  const staging = path.join(path.dirname(to), `.${path.basename(to)}.partial-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(staging);
  const copies = new HashedCopies();
  try {
    const blobFiles = new Map<string, ManifestFile>();
    let problems: string[] = [];
    let snapshots = 0;
    let named = new Set<string>();
    while (snapshots === 0 || (problems.length > 0 && snapshots < (options.attempts ?? 3))) {
      snapshots += 1;
      const references: BlobReference[] = [];
      for (const store of stores) {
        await snapshotStore(path.join(dataDir, store), path.join(staging, store));
        if (store !== 'global.sqlite') references.push(...(await referencesOf(path.join(staging, store))));
      }
      ({ problems, named } = await copyBlobs(copies, dataDir, staging, references, blobFiles));
    }
    if (problems.length > 0)
      throw new BackupRefusedError('the stores name blobs the blob store does not hold (see rdp admin verify)', problems);
    // Blobs copied for an earlier snapshot that the last one no longer names stay out.
    for (const file of [...blobFiles.keys()].filter((file) => !named.has(file))) {
      await fs.rm(path.join(staging, file), { force: true });
      blobFiles.delete(file);
    }
    const storeLines = await Promise.all(stores.map((store) => hashed(copies, staging, store)));
    const files = [...storeLines, ...blobFiles.values()];
    const manifest = buildManifest(now().toISOString(), stores, files);
    await fs.writeFile(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
    // An empty folder given as the target is replaced; one filled meanwhile refuses the backup.
    await fs.rmdir(to).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return;
      throw error.code === 'ENOTEMPTY' ? new BackupRefusedError(`the backup's folder ${to} is not empty`) : error;
    });
    await fs.rename(staging, to);
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    return { to, stores, files: files.length, bytes, snapshots, seconds: (now().getTime() - started) / 1000 };
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    throw error;
  } finally {
    await copies.close();
  }
}

/**
 * The smallest blob whose hash is kept: below it hashing again costs less than writing the
 * metadata file durably (a tile of a few KiB).
 */
const RECORDED_FROM = 1024 * 1024;

type KnownHash = { sha256: string; size: number; ino: number };
type Fresh = { ino: number };
/** A blob's metadata file (docs/blob-store.md): its ETag and, once a backup hashed it, its SHA-256, bound to the object's inode and size. */
type BlobMeta = { size: number; etag: string; ino: number; sha256?: string };

async function readMeta(file: string): Promise<BlobMeta | undefined> {
  try {
    const meta = JSON.parse(await fs.readFile(file, 'utf8')) as BlobMeta;
    return Number.isInteger(meta.ino) && Number.isInteger(meta.size) ? meta : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps a blob's SHA-256 in its metadata file, bound like its ETag to the object's inode and
 * size: blobs are never changed in place, so the next backup copies the bytes without hashing
 * them again. Written as the store writes its files (in blobs/tmp, then renamed); a metadata file
 * the server changed meanwhile is left as it is.
 */
async function recordHash(dataDir: string, key: string, meta: BlobMeta, sha256: string): Promise<void> {
  const file = path.join(dataDir, metaPath(key));
  const now = await readMeta(file);
  if (!now || now.ino !== meta.ino || now.size !== meta.size || now.etag !== meta.etag) return;
  await writeFileDurably(path.join(dataDir, 'blobs/tmp'), file, JSON.stringify({ ...meta, sha256 }), { createFolders: false });
}

async function hashed(copies: HashedCopies, staging: string, file: string): Promise<ManifestFile> {
  const result = await copies.hash(path.join(staging, file));
  if ('missing' in result) throw new Error(`${file} vanished from the backup's folder`);
  return { path: file, size: result.size, sha256: result.sha256 };
}

/**
 * Copies the objects the references name (a prefix: every object under it) and their metadata
 * files, skipping what an earlier snapshot's pass copied (blobs are immutable once named).
 * Returns the problems (a blob missing, or of another size than its row says) and every file named.
 */
async function copyBlobs(
  copies: HashedCopies,
  dataDir: string,
  staging: string,
  references: BlobReference[],
  copied: Map<string, ManifestFile>,
): Promise<{ problems: string[]; named: Set<string> }> {
  const problems: string[] = [];
  const named = new Set<string>();
  const copy = async (file: string, known?: KnownHash): Promise<(ManifestFile & { fresh?: Fresh }) | undefined> => {
    named.add(file);
    const done = copied.get(file);
    if (done) return done;
    const result = await copies.copy(path.join(dataDir, file), path.join(staging, file), known);
    if ('missing' in result) return undefined;
    const line = { path: file, size: result.size, sha256: result.sha256 };
    copied.set(file, line);
    return result.hashed ? { ...line, fresh: { ino: result.ino } } : line;
  };
  // A missing metadata file is no problem: the store recomputes it (docs/blob-store.md).
  const copyWithMeta = async (key: string) => {
    const meta = await readMeta(path.join(dataDir, metaPath(key)));
    const object = await copy(
      objectPath(key),
      meta?.sha256 ? { sha256: meta.sha256, size: meta.size, ino: meta.ino } : undefined,
    );
    if (object?.fresh && object.size >= RECORDED_FROM && meta && meta.ino === object.fresh.ino && meta.size === object.size)
      await recordHash(dataDir, key, meta, object.sha256);
    if (object && meta) await copy(metaPath(key));
    return object;
  };
  await HashedCopies.each(references, async (reference) => {
    if (isPrefix(reference)) {
      const keys = await keysUnder(dataDir, reference.key);
      const objects = await Promise.all(keys.map(copyWithMeta));
      const bytes = objects.reduce((sum, object) => sum + (object?.size ?? 0), 0);
      if (keys.length === 0) problems.push(`${reference.key} (${reference.namedBy}) is missing`);
      else if (bytes < reference.bytes)
        problems.push(`${reference.key} (${reference.namedBy}) holds ${bytes} bytes where ${reference.bytes} are recorded`);
      return;
    }
    const object = await copyWithMeta(reference.key);
    if (!object) problems.push(`${reference.key} (${reference.namedBy}) is missing`);
    else if (object.size !== reference.bytes)
      problems.push(`${reference.key} (${reference.namedBy}) has ${object.size} bytes where ${reference.bytes} are recorded`);
  });
  return { problems, named };
}
