import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** The kinds of file a build (viewer, console) writes, by extension; any other name is 404. */
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** A plain file name (no folder, no dot first): nothing outside the folder can be named. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export interface BuiltAsset {
  bytes: Buffer;
  contentType: string;
  /** The first 16 hex digits of the file's SHA-256: its ETag and its `?v=` in the page. */
  hash: string;
}

/**
 * Built browser files (the viewer's config.viewerAssetsDir, the console's consoleAssetsDir), read on first use and again when the file
 * changes (its size or time): a rebuild is served without a restart.
 */
export class BuiltAssets {
  private readonly cache = new Map<string, BuiltAsset & { mtimeMs: number; size: number }>();

  constructor(readonly folder: string) {}

  async get(name: string): Promise<BuiltAsset | undefined> {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!FILE_NAME.test(name) || !contentType) return undefined;
    const file = path.join(this.folder, name);
    let stat: Awaited<ReturnType<typeof fs.stat>>;
    try {
      stat = await fs.stat(file);
    } catch {
      return undefined;
    }
    if (!stat.isFile()) return undefined;
    const cached = this.cache.get(name);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
    const bytes = await fs.readFile(file);
    const asset = {
      bytes,
      contentType,
      hash: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
      mtimeMs: stat.mtimeMs,
      size: stat.size,
    };
    this.cache.set(name, asset);
    return asset;
  }
}
