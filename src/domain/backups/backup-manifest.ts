/**
 * The manifest of an embedded backup (docs/operations.md, "Backups and restores"): every file of
 * the backup with its size and SHA-256, paths relative to the backup's folder and laid out as in
 * a data directory. No I/O.
 */
export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'rdp-backup/1';

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof MANIFEST_FORMAT;
  createdAt: string;
  /** The SQLite stores copied, e.g. global.sqlite, region_eu.sqlite. */
  stores: string[];
  files: ManifestFile[];
}

/** What was found of a listed file: nothing, or its size and hash. */
export type FoundFile = { size: number; sha256: string } | undefined;

/** A relative path of letters, digits and `._=-` segments (blob keys' own alphabet), never leaving the folder. */
const SEGMENT = /^[A-Za-z0-9._=-]{1,255}$/;

function safePath(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return false;
  return value.split('/').every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..');
}

/** The manifest read from its JSON, or what is wrong with it. */
export function parseManifest(text: string): { manifest: BackupManifest } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${MANIFEST_FILE} is not JSON` };
  }
  const manifest = value as Partial<BackupManifest>;
  if (manifest?.format !== MANIFEST_FORMAT) return { problem: `${MANIFEST_FILE} is not an ${MANIFEST_FORMAT} manifest` };
  if (!Array.isArray(manifest.files) || !Array.isArray(manifest.stores)) return { problem: `${MANIFEST_FILE} lists no files` };
  const seen = new Set<string>();
  for (const file of manifest.files as Partial<ManifestFile>[]) {
    if (!safePath(file?.path) || file.path === MANIFEST_FILE || seen.has(file.path))
      return { problem: `${MANIFEST_FILE} lists an invalid path: ${JSON.stringify(file?.path)}` };
    if (!Number.isSafeInteger(file.size) || (file.size as number) < 0 || !/^[0-9a-f]{64}$/.test(file.sha256 ?? ''))
      return { problem: `${MANIFEST_FILE} gives no valid size and SHA-256 for ${file.path}` };
    seen.add(file.path);
  }
  if (!seen.has('global.sqlite')) return { problem: `${MANIFEST_FILE} lists no global.sqlite` };
  return { manifest: manifest as BackupManifest };
}

/** How a file differs from its line in the manifest, naming it; undefined when it matches. */
export function fileProblem(listed: ManifestFile, found: FoundFile): string | undefined {
  if (!found) return `${listed.path} is missing`;
  if (found.size !== listed.size) return `${listed.path} has ${found.size} bytes where the manifest says ${listed.size}`;
  if (found.sha256 !== listed.sha256)
    return `${listed.path} differs from the manifest (SHA-256 ${found.sha256}, listed ${listed.sha256})`;
  return undefined;
}

/** The manifest of the files copied, in path order (stable between runs of one snapshot). */
export function buildManifest(createdAt: string, stores: string[], files: ManifestFile[]): BackupManifest {
  return {
    format: MANIFEST_FORMAT,
    createdAt,
    stores: [...stores].sort(),
    files: [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
}
