import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { reportReady } from '../support/child-server.js';

/**
 * The baseline of bench/tiles.ts: bare node:http serving the files of one folder
 * (RDP_BENCH_TILE_DIR) and exactly that work per request: open the file, read it whole, send it
 * with an ETag (from its size and modification time, as static servers make one) and its length;
 * a stored gzip (`.gz`, as the platform stores tiles) with `content-encoding: gzip`, as it is.
 * No token, no access check, no database, no rate limit, no metadata file.
 */
const dir = process.env.RDP_BENCH_TILE_DIR as string;

const server = http.createServer(async (request, response) => {
  const relative = (request.url ?? '/').split('?', 1)[0] as string;
  try {
    const handle = await fs.open(path.join(dir, path.normalize(relative)), 'r');
    try {
      const stat = await handle.stat();
      const bytes = await handle.readFile();
      response.writeHead(200, {
        etag: `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`,
        'content-type': 'application/octet-stream',
        'content-length': bytes.length,
        ...(relative.endsWith('.gz') ? { 'content-encoding': 'gzip' } : {}),
      });
      response.end(bytes);
    } finally {
      await handle.close();
    }
  } catch {
    if (!response.headersSent) response.writeHead(404).end();
  }
});

server.listen(0, '127.0.0.1', () => reportReady((server.address() as { port: number }).port));
