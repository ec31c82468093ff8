import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The embedded default's data directory as a backup sees it (docs/architecture.md, "Stores";
 * docs/blob-store.md): one SQLite file per store, and the filesystem blob store's objects with
 * their metadata files. Uploads in progress (blobs/uploads) and files being written (blobs/tmp)
 * are no part of a backup.
 */
export const STORE_FILE = /^(global|region_[a-z]+)\.sqlite$/;

export function objectPath(key: string): string {
  return `blobs/objects/${key}`;
}

export function metaPath(key: string): string {
  return `blobs/meta/${key}.json`;
}

/** The key of a metadata file's path, or undefined for another file. */
export function keyOfMetaPath(file: string): string | undefined {
  return file.startsWith('blobs/meta/') && file.endsWith('.json') ? file.slice('blobs/meta/'.length, -'.json'.length) : undefined;
}

/** The store files of a data directory, global.sqlite first. */
export async function storeFiles(dataDir: string): Promise<string[]> {
  const names = (await fs.readdir(dataDir).catch(() => [] as string[])).filter((name) => STORE_FILE.test(name));
  return names.sort((a, b) => (a === 'global.sqlite' ? -1 : b === 'global.sqlite' ? 1 : a.localeCompare(b)));
}

/** The keys of the objects under a prefix (ending in "/"), walked in the data directory. */
export async function keysUnder(dataDir: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  const walk = async (dir: string, keyPrefix: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
      throw error;
    });
    for (const entry of entries) {
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), `${keyPrefix}${entry.name}/`);
      else if (entry.isFile()) keys.push(`${keyPrefix}${entry.name}`);
    }
  };
  await walk(path.join(dataDir, objectPath(prefix)), prefix);
  return keys;
}

/** Whether a folder is absent or empty: where a backup or a restore may write. */
export async function isEmptyOrAbsent(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** Whether `inner` is `outer` or lies below it. */
export function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(path.resolve(outer), path.resolve(inner));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
