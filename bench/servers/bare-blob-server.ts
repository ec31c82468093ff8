import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { reportReady } from '../support/child-server.js';

/**
 * The baseline for the blob benchmarks: bare node:http on the same folder
 * (RDP_BENCH_BLOB_DIR). PUT /<name> streams the body to a file while computing its MD5;
 * GET /<name> pipes fs.createReadStream. No signature, no fsync, no rename.
 */
const dir = process.env.RDP_BENCH_BLOB_DIR as string;

const server = http.createServer(async (request, response) => {
  const file = path.join(dir, path.basename(request.url ?? '/'));
  try {
    if (request.method === 'PUT') {
      const md5 = createHash('md5');
      const hashing = new Transform({
        transform(chunk, _encoding, done) {
          md5.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(request, hashing, fs.createWriteStream(file));
      response.writeHead(200, { etag: `"${md5.digest('hex')}"` }).end();
      return;
    }
    const { size } = await fs.promises.stat(file);
    response.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
    await pipeline(fs.createReadStream(file), response);
  } catch {
    if (!response.headersSent) response.writeHead(500).end();
  }
});

server.listen(0, '127.0.0.1', () => reportReady((server.address() as { port: number }).port));
