import { Readable } from 'node:stream';
import { FilesystemBlobStore } from '../../../src/adapters/blobs/filesystem-blob-store.js';

/**
 * Writes a large blob into the filesystem store at argv[2] under argv[3], slowly enough to be
 * killed in the middle (the crash test sends SIGKILL once the temporary file has grown).
 */
const [root, key] = process.argv.slice(2) as [string, string];
const store = await FilesystemBlobStore.open({
  root,
  publicBaseUrl: 'http://127.0.0.1:1/blob',
  signingKey: Buffer.alloc(32, 1),
  partSize: 5 * 1024 * 1024,
});

async function* slowBytes() {
  const chunk = Buffer.alloc(1024 * 1024, 0xab);
  for (let i = 0; i < 4096; i += 1) {
    yield chunk;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

process.send?.('writing');
await store.write(key, Readable.from(slowBytes()));
process.send?.('finished');
