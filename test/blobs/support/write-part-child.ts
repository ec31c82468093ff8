import { Readable } from 'node:stream';
import { FilesystemBlobStore } from '../../../src/adapters/blobs/filesystem-blob-store.js';

/**
 * Sends part argv[5] (argv[6] bytes of 0xab) of upload argv[4] of key argv[3] into the
 * filesystem store at argv[2], slowly enough to be killed in the middle (the crash test sends
 * SIGKILL once the assembly file holds some of it).
 */
const [root, key, uploadId, partNumber, size] = process.argv.slice(2) as [string, string, string, string, string];
const store = await FilesystemBlobStore.open({
  root,
  publicBaseUrl: 'http://127.0.0.1:1/blob',
  signingKey: Buffer.alloc(32, 1),
  partSize: 5 * 1024 * 1024,
});

async function* slowBytes() {
  const chunk = Buffer.alloc(64 * 1024, 0xab);
  for (let sent = 0; sent < Number(size); sent += chunk.length) {
    yield chunk.subarray(0, Math.min(chunk.length, Number(size) - sent));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const grant = {
  method: 'PUT' as const,
  key,
  size: Number(size),
  uploadId,
  partNumber: Number(partNumber),
  expiresAt: new Date(Date.now() + 3600_000),
};
await store.receive(grant, Readable.from(slowBytes()));
process.send?.('finished');
