import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/**
 * How a tile is stored and sent (docs/processing.md, "Tiles on the wire"): gzip at zlib's default
 * level. A tile's attribute views and their padding (point-content.ts) shrink to about half; on
 * zlib's thread pool, off the worker's main thread.
 */
export function gzipTile(bytes: Uint8Array): Promise<Buffer> {
  return gzipAsync(bytes, { level: 6 });
}
