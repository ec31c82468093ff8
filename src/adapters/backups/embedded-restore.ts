import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type BackupManifest, fileProblem, MANIFEST_FILE, parseManifest } from '../../domain/backups/backup-manifest.js';
import { BackupRefusedError } from './backup-refused.js';
import { isEmptyOrAbsent, isWithin, keyOfMetaPath, objectPath } from './data-dir-layout.js';
import { HashedCopies } from './hashed-copies.js';

export interface RestoreSummary {
  dataDir: string;
  stores: string[];
  files: number;
  bytes: number;
  createdAt: string;
}

async function readManifest(from: string): Promise<BackupManifest> {
  const text = await fs.readFile(path.join(from, MANIFEST_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new BackupRefusedError(`${from} holds no ${MANIFEST_FILE}: not a backup`);
    throw error;
  });
  const parsed = parseManifest(text);
  if ('problem' in parsed) throw new BackupRefusedError(parsed.problem);
  return parsed.manifest;
}

/**
 * A blob's metadata file is bound to its object's inode (docs/blob-store.md), which a copy
 * changes: each is bound again to the restored object, so multipart ETags are kept, with the
 * object's SHA-256 as the restore checked it.
 */
async function rebindMetadata(root: string, manifest: BackupManifest): Promise<void> {
  const hashes = new Map(manifest.files.map((file) => [file.path, file.sha256]));
  await HashedCopies.each(manifest.files, async (file) => {
    const key = keyOfMetaPath(file.path);
    if (key === undefined) return;
    const metaFile = path.join(root, file.path);
    const stat = await fs.stat(path.join(root, objectPath(key))).catch(() => undefined);
    if (!stat) return fs.rm(metaFile, { force: true });
    const meta = JSON.parse(await fs.readFile(metaFile, 'utf8')) as Record<string, unknown>;
    // The SHA-256 the restore just checked is the one the next backup takes (embedded-backup.ts).
    await fs.writeFile(metaFile, JSON.stringify({ ...meta, ino: stat.ino, sha256: hashes.get(objectPath(key)) }));
  });
}

/**
 * `rdp admin restore --from <dir>` (docs/operations.md, "Backups and restores"): into an empty
 * (or absent) data directory only. Every file the manifest lists is copied and hashed into a
 * folder beside the target; any file missing or differing from the manifest (size or SHA-256)
 * refuses the restore, naming each, and nothing is left. Complete, the folder is renamed to the
 * target: a restore is whole or absent.
 */
export async function restoreEmbedded(options: { from: string; dataDir: string }): Promise<RestoreSummary> {
  const from = path.resolve(options.from);
  const dataDir = path.resolve(options.dataDir);
  if (isWithin(dataDir, from) || isWithin(from, dataDir))
    throw new BackupRefusedError(`the data directory ${dataDir} and the backup ${from} overlap`);
  if (!(await isEmptyOrAbsent(dataDir))) throw new BackupRefusedError(`the data directory ${dataDir} is not empty`);
  const manifest = await readManifest(from);
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  const staging = path.join(path.dirname(dataDir), `.${path.basename(dataDir)}.restoring-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(staging);
  const copies = new HashedCopies();
  try {
    const problems: string[] = [];
    await HashedCopies.each(manifest.files, async (listed) => {
      const result = await copies.copy(path.join(from, listed.path), path.join(staging, listed.path));
      const problem = fileProblem(listed, 'missing' in result ? undefined : { size: result.size, sha256: result.sha256 });
      if (problem) problems.push(problem);
    });
    if (problems.length > 0)
      throw new BackupRefusedError('the backup does not match its manifest; nothing restored', problems.sort());
    await rebindMetadata(staging, manifest);
    // rmdir removes an empty folder only: one filled meanwhile refuses the restore.
    await fs.rmdir(dataDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return;
      throw error.code === 'ENOTEMPTY' ? new BackupRefusedError(`the data directory ${dataDir} is not empty`) : error;
    });
    await fs.rename(staging, dataDir);
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    throw error;
  } finally {
    await copies.close();
  }
  return {
    dataDir,
    stores: manifest.stores,
    files: manifest.files.length,
    bytes: manifest.files.reduce((sum, file) => sum + file.size, 0),
    createdAt: manifest.createdAt,
  };
}
