import type { Readable } from 'node:stream';
import type { BlobGrant, GrantCheck } from '../domain/uploads/signed-url.js';

/**
 * Where the bytes of uploads and derivatives live: the filesystem under the data directory
 * (embedded) or an S3-compatible bucket (scale). Metadata stays in the database; this port
 * only holds bytes, addressed by keys (see domain/uploads/blob-key.ts).
 *
 * ETags are S3's (domain/uploads/etag.ts), bare: `<md5 hex>` for one PUT,
 * `<md5 of part md5s>-N` for N parts. HTTP headers carry them quoted.
 */
export interface BlobInfo {
  size: number;
  etag: string;
}

/** An object found under a prefix. */
export interface ListedBlob {
  key: string;
  size: number;
}

export interface UploadPart {
  partNumber: number;
  size: number;
  url: string;
}

/** Where the client PUTs the bytes: one signed URL, or one per part above the part size. */
export type UploadPlan =
  | { kind: 'single'; url: string; expiresAt: Date }
  | { kind: 'multipart'; uploadId: string; partSize: number; parts: UploadPart[]; expiresAt: Date };

export interface BlobStore {
  /** Signed, expiring target(s) for the client's PUT(s); multipart above the configured part size. */
  beginUpload(key: string, size: number, expiresAt: Date): Promise<UploadPlan>;
  /**
   * Completes an upload. Multipart: when every part is there (numbered 1..N, adding up to
   * `size`) they become the object, otherwise nothing changes and the result is undefined so
   * the client can still send what is missing. Single: the object as stored. Calling it again
   * after success returns the stored object. The caller compares size and ETag with its own.
   */
  completeUpload(key: string, upload: { uploadId?: string; size: number }): Promise<BlobInfo | undefined>;
  /** Discards what the upload left: its parts, and the object under `key` if it got that far. Idempotent. */
  abortUpload(key: string, uploadId?: string): Promise<void>;
  head(key: string): Promise<BlobInfo | undefined>;
  /** The bytes, or those of the inclusive range; BlobNotFoundError when there is no such object. */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /**
   * Optional: the bytes of an object of `size` bytes (or of the inclusive range) in one buffer, for
   * small objects (sendBlob, up to SMALL_BLOB_BYTES); BlobNotFoundError when there is no such object.
   */
  readBuffer?(key: string, size: number, range?: { start: number; end: number }): Promise<Buffer>;
  /** For outputs made on the server (derivatives, thumbnails); replaces any object under the key. */
  write(key: string, body: Readable | Buffer): Promise<BlobInfo>;
  /** A signed, expiring GET answering with this file name (Content-Disposition) and type. */
  downloadUrl(key: string, expiresAt: Date, options: { fileName: string; contentType?: string }): Promise<string>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix` (end it with `/` for a whole "folder"). */
  deletePrefix(prefix: string): Promise<void>;
  /** The objects under a prefix ending in `/` (a whole "folder"), with their sizes, in no set order. */
  listPrefix(prefix: string): AsyncIterable<ListedBlob>;
  /** Releases connections (S3); the platform calls it when it closes. */
  close(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`no blob under key "${key}"`);
  }
}

/** An object opened for reading: what it is, and its bytes on demand (the handle closes with the stream). */
export interface OpenedBlob extends BlobInfo {
  stream(range?: { start: number; end: number }): Readable;
  close(): Promise<void>;
}

/**
 * A store whose signed addresses this process serves itself (the filesystem store, through
 * http/blob-routes.ts); S3 serves its own and has none.
 */
export interface EmbeddedBlobEndpoint {
  /** Whether the signed query grants this method on this key (and what it grants). */
  authorize(method: string, key: string, query: Record<string, string | undefined>): GrantCheck;
  /** Stores a granted PUT's body; SizeMismatchError or UploadNotFoundError refuse it. */
  receive(grant: BlobGrant, body: Readable): Promise<BlobInfo>;
  open(key: string): Promise<OpenedBlob | undefined>;
}

/** A body longer or shorter than the size its address was signed for. */
export class SizeMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly received: string,
  ) {
    super(`the body has ${received} bytes where ${expected} were signed`);
  }
}

/** A part sent for a multipart upload that is not (or no longer) open. */
export class UploadNotFoundError extends Error {}
