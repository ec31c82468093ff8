import { createHash } from 'node:crypto';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { errorFromResponse } from './errors.js';
import { type PartAnswer, putPart } from './part-put.js';
import type { FetchLike } from './token-endpoint.js';

/** Bytes to upload: a file path (streamed, never read whole) or bytes in memory. */
export type UploadSource = string | Uint8Array;

/** One signed address of a multipart upload, as an initiation answers it. */
export interface UploadPartTarget {
  partNumber: number;
  size: number;
  uploadUrl: string;
}

/**
 * One file of an upload, as far as it got: JSON, so the caller can store it and resume. The
 * signed addresses are in it (they are the authorization of the PUTs: keep the state private).
 */
export interface FileUploadState {
  /** The site file's id, or the upload session file's id. */
  id: string;
  name: string;
  size: number;
  /** The file it was read from, and its modification time: a resume refuses a changed file. */
  path?: string;
  modifiedAtMs?: number;
  /** One PUT of the whole file... */
  uploadUrl?: string;
  /** ...or a multipart upload: every part but the last has partSize bytes. */
  partSize?: number;
  parts?: UploadPartTarget[];
  /** The parts sent, with the ETag each answered (bare). A single PUT is part 1. */
  done: { partNumber: number; etag: string }[];
  /** The addresses and the reservation end then. */
  expiresAt: string;
}

export interface UploadProgress {
  /** Bytes sent so far, parts done before a resume included. */
  sentBytes: number;
  totalBytes: number;
}

export interface PartUploadOptions {
  /** Parts in flight at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (progress: UploadProgress) => void;
  /**
   * The fetch of the PUTs (they carry no token: the address is signed). Without one, the parts
   * are sent with node:http, the file piped to the socket (part-put.ts says why).
   */
  fetch?: FetchLike;
  /** Attempts of one part on a network error or a 5xx (default 3). */
  attempts?: number;
}

/** An upload's addresses expired before it finished: start it again. */
export class UploadExpiredError extends Error {
  override readonly name = 'UploadExpiredError';
}

const CHUNK_BYTES = 1024 * 1024;

/** Reads ranges of the source; a path is opened once and read at positions, so parts go in parallel. */
export class ByteReader {
  private constructor(
    readonly size: number,
    private readonly bytes: Uint8Array | undefined,
    private readonly handle: FileHandle | undefined,
    readonly path: string | undefined,
    readonly modifiedAtMs: number | undefined,
  ) {}

  static async open(source: UploadSource): Promise<ByteReader> {
    if (typeof source !== 'string') return new ByteReader(source.byteLength, source, undefined, undefined, undefined);
    const info = await stat(source);
    if (!info.isFile()) throw new Error(`${source} is not a file`);
    return new ByteReader(info.size, undefined, await open(source, 'r'), source, Math.trunc(info.mtimeMs));
  }

  /** The bytes from `start`, in chunks of at most a MiB; `onBytes` hears each as it is read for sending. */
  async *range(start: number, length: number, onBytes: (count: number) => void): AsyncGenerator<Uint8Array> {
    for (let position = start; position < start + length; ) {
      const count = Math.min(CHUNK_BYTES, start + length - position);
      let chunk: Uint8Array;
      if (this.bytes) chunk = this.bytes.subarray(position, position + count);
      else {
        const buffer = Buffer.allocUnsafe(count);
        const { bytesRead } = await (this.handle as FileHandle).read(buffer, 0, count, position);
        if (bytesRead === 0) throw new Error(`${this.path} is shorter than when the upload began`);
        chunk = buffer.subarray(0, bytesRead);
      }
      position += chunk.byteLength;
      onBytes(chunk.byteLength);
      yield chunk;
    }
  }

  /** Where the bytes are, for a sender that reads them itself (part-put.ts). */
  get source(): { path: string } | { bytes: Uint8Array } {
    return this.bytes ? { bytes: this.bytes } : { path: this.path as string };
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}

/**
 * Sends the parts of `file` not yet in `file.done`, at most `concurrency` at once, each streamed
 * from the reader with its Content-Length. After each part, its ETag joins `file.done` and
 * `onPartDone` runs (the caller stores the state there). A network error or a 5xx is retried;
 * a refusal (403: the address expired or is not valid) is not. On abort or failure, the parts
 * in flight are stopped and the error is thrown; the parts done stay in `file.done`.
 */
export async function sendParts(
  file: FileUploadState,
  reader: ByteReader,
  options: PartUploadOptions & { onPartDone: () => Promise<void>; progress: ProgressCounter },
): Promise<void> {
  const targets: UploadPartTarget[] = file.uploadUrl
    ? [{ partNumber: 1, size: file.size, uploadUrl: file.uploadUrl }]
    : (file.parts ?? []);
  const doneNumbers = new Set(file.done.map((part) => part.partNumber));
  const pending = targets.filter((target) => !doneNumbers.has(target.partNumber));
  if (pending.length === 0) return;
  if (Date.parse(file.expiresAt) <= Date.now()) {
    throw new UploadExpiredError(`The upload addresses of ${file.name} expired at ${file.expiresAt}: start the upload again`);
  }
  const partSize = file.partSize ?? file.size;
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const send: PartSender = options.fetch
    ? fetchPart(options.fetch)
    : (url, range, onBytes, stopped) => putPart(url, reader.source, range.start, range.length, onBytes, stopped);
  const attempts = Math.max(1, options.attempts ?? 3);
  let failure: unknown;

  const worker = async () => {
    for (let target = pending.shift(); target && failure === undefined; target = pending.shift()) {
      const start = (target.partNumber - 1) * partSize;
      const etag = await sendOnePart(send, target, start, reader, options.progress, signal, attempts);
      file.done.push({ partNumber: target.partNumber, etag });
      file.done.sort((a, b) => a.partNumber - b.partNumber);
      await options.onPartDone();
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, pending.length));
  await Promise.all(
    Array.from({ length: concurrency }, () =>
      worker().catch((error: unknown) => {
        failure ??= error;
        stop.abort(error);
      }),
    ),
  );
  if (failure !== undefined) throw options.signal?.aborted ? (options.signal.reason ?? failure) : failure;
}

/** Sends one part's bytes and answers the response's status, headers and (error) body. */
type PartSender = (
  url: string,
  range: { start: number; length: number; reader: ByteReader },
  onBytes: (count: number) => void,
  signal: AbortSignal,
) => Promise<PartAnswer>;

/** A part sent with the caller's fetch: the range streamed as the body (Node streams to web form). */
function fetchPart(send: FetchLike): PartSender {
  return async (url, { start, length, reader }, onBytes, signal) => {
    // Through a Node stream and its web form: undici sends that several times faster than the bare async generator.
    const body = Readable.toWeb(Readable.from(reader.range(start, length, onBytes)));
    const response = await send(url, {
      method: 'PUT',
      body: body as unknown as BodyInit,
      headers: { 'content-length': String(length) },
      signal,
      duplex: 'half',
    } as RequestInit);
    return { status: response.status, headers: response.headers, body: await response.text().catch(() => '') };
  };
}

async function sendOnePart(
  send: PartSender,
  target: UploadPartTarget,
  start: number,
  reader: ByteReader,
  progress: ProgressCounter,
  signal: AbortSignal,
  attempts: number,
): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    let counted = 0;
    signal.throwIfAborted();
    try {
      const answer = await send(
        target.uploadUrl,
        { start, length: target.size, reader },
        (count) => {
          counted += count;
          progress.add(count);
        },
        signal,
      );
      if (answer.status >= 200 && answer.status < 300) {
        const etag = answer.headers.get('etag');
        return etag ? etag.replace(/^W\//, '').replaceAll('"', '').toLowerCase() : await localEtag(reader, start, target.size);
      }
      const response = new Response(answer.body, { status: answer.status, headers: answer.headers });
      const error = await errorFromResponse(response);
      if (response.status < 500 || attempt >= attempts) throw Object.assign(error, { retryable: false });
      progress.add(-counted);
    } catch (error) {
      if (signal.aborted || (error as { retryable?: boolean }).retryable === false || attempt >= attempts) {
        progress.add(-counted);
        throw error;
      }
      progress.add(-counted);
    }
    await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** (attempt - 1)));
  }
}

/** A part's MD5 read back from the source, for a store that answers no ETag. */
async function localEtag(reader: ByteReader, start: number, length: number): Promise<string> {
  const digest = createHash('md5');
  for await (const chunk of reader.range(start, length, () => undefined)) digest.update(chunk);
  return digest.digest('hex');
}

/**
 * The ETag the platform checks at finalize, as S3 computes it: a single PUT's own; for N parts
 * the MD5 of the concatenated binary part MD5s, then `-N`.
 */
export function uploadEtag(file: FileUploadState): string {
  if (file.uploadUrl) return (file.done[0] as { etag: string }).etag;
  const digest = createHash('md5');
  for (const part of file.done) digest.update(Buffer.from(part.etag, 'hex'));
  return `${digest.digest('hex')}-${file.done.length}`;
}

/** Progress over every file of an upload, told to the caller at most every 64 KiB and at the end. */
export class ProgressCounter {
  private sent = 0;
  private lastTold = -1;

  constructor(
    readonly total: number,
    private readonly listener: ((progress: UploadProgress) => void) | undefined,
  ) {}

  add(count: number): void {
    this.sent += count;
    if (count < 0 || this.sent - this.lastTold >= 64 * 1024 || this.sent === this.total) this.tell();
  }

  tell(): void {
    this.lastTold = this.sent;
    this.listener?.({ sentBytes: this.sent, totalBytes: this.total });
  }
}

/** The bytes of the parts already done, counted as sent when an upload resumes. */
export function doneBytes(file: FileUploadState): number {
  if (file.uploadUrl) return file.done.length > 0 ? file.size : 0;
  const sizes = new Map((file.parts ?? []).map((part) => [part.partNumber, part.size]));
  return file.done.reduce((sum, part) => sum + (sizes.get(part.partNumber) ?? 0), 0);
}
