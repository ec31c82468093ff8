import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Kept-alive connections for the parts of an upload: one per part in flight, reused by the next. */
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

export interface PartAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * PUTs `length` bytes of a file (from `start`), or of bytes in memory, to a signed address with
 * node:http, the file piped straight into the socket: fetch with a streamed body goes through web
 * streams, which took a good part of a core at a few hundred MiB/s (bench/cli-upload.ts) on a
 * machine whose other core runs the platform. `onBytes` hears each chunk as it is read. The
 * answer's body is read (at most 64 KiB kept) so the connection is reused.
 */
export async function putPart(
  url: string,
  source: { path: string } | { bytes: Uint8Array },
  start: number,
  length: number,
  onBytes: (count: number) => void,
  signal: AbortSignal,
): Promise<PartAnswer> {
  const address = new URL(url);
  const agent = agents[address.protocol as keyof typeof agents];
  if (!agent) throw new Error(`Unsupported upload address ${address.protocol}`);
  const body =
    'path' in source
      ? createReadStream(source.path, { start, end: start + length - 1, highWaterMark: 1024 * 1024 })
      : Readable.from([source.bytes.subarray(start, start + length)]);
  body.on('data', (chunk: Buffer) => onBytes(chunk.length));
  const request = (address.protocol === 'https:' ? https : http).request(address, {
    method: 'PUT',
    agent,
    signal,
    headers: { 'content-length': String(length) },
  });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  // A refusal may come before the whole body is sent (and the connection be closed): the answer
  // is what counts then. A file shorter than when the upload began fails on its Content-Length.
  const sending = pipeline(body, request).then(
    () => undefined,
    (error: unknown) => error,
  );
  const response = await answered;
  const sendFailure = await sending;
  if (sendFailure !== undefined && (response.statusCode ?? 0) < 300) throw sendFailure;
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (kept < 64 * 1024) {
      chunks.push(chunk);
      kept += chunk.length;
    }
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return { status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') };
}
