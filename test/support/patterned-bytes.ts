import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';

/**
 * Large bodies made on the fly, never kept in the repository or in memory: a random 1 MiB
 * block, each chunk stamped with its offset so that no two chunks are alike and a misplaced
 * part changes the MD5. Chunk boundaries follow the offsets, so a part regenerates exactly.
 */
const BLOCK = randomBytes(1024 * 1024);

export function* patternedChunks(start: number, length: number): Generator<Buffer> {
  for (let offset = start; offset < start + length; ) {
    const size = Math.min(BLOCK.length, start + length - offset);
    const chunk = Buffer.allocUnsafe(size);
    BLOCK.copy(chunk, 0, 0, size);
    if (size >= 8) chunk.writeBigUInt64LE(BigInt(offset), 0);
    yield chunk;
    offset += size;
  }
}

/** PUTs a generated body with its Content-Length, honouring backpressure; resolves with status and ETag. */
export async function putPatterned(
  url: string,
  start: number,
  length: number,
  agent?: http.Agent,
): Promise<{ status: number; etag: string | undefined }> {
  const request = http.request(url, { method: 'PUT', agent, headers: { 'content-length': String(length) } });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  for (const chunk of patternedChunks(start, length)) {
    if (!request.write(chunk)) await Promise.race([once(request, 'drain'), answered]);
  }
  request.end();
  const response = await answered;
  response.resume();
  await once(response, 'end');
  return { status: response.statusCode ?? 0, etag: response.headers.etag };
}
