import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { reportReady } from '../support/child-server.js';

/**
 * The baseline for the blob benchmarks: bare node:http on the same folder
 * (RDP_BENCH_BLOB_DIR). PUT /<name> streams the body to a file while computing its MD5 and
 * fsyncs the file before it answers with the MD5 as ETag: the bytes stored, as a PUT to a store
 * promises. GET /<name> pipes fs.createReadStream. No signature, no temporary name and rename,
 * no sync of the folder, no metadata file: those are the platform's own costs.
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
      const handle = await fs.promises.open(file, 'w');
      try {
        await pipeline(request, hashing, fs.createWriteStream(file, { fd: handle.fd, autoClose: false }));
        await handle.sync();
      } finally {
        await handle.close();
      }
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
