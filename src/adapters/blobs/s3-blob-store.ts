import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  type Part,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../../config/config.js';
import { assertBlobKey, blobPrefixProblem } from '../../domain/uploads/blob-key.js';
import { attachmentDisposition } from '../../domain/uploads/content-disposition.js';
import { parseEtag } from '../../domain/uploads/etag.js';
import { isMultipart, MIN_PART_SIZE, partSizeFor, planParts, uploadSizeProblem } from '../../domain/uploads/upload-parts.js';
import { type BlobInfo, BlobNotFoundError, type BlobStore, type ListedBlob, type UploadPlan } from '../../ports/blob-store.js';
import { type Clock, systemClock } from '../../ports/clock.js';

/**
 * Blobs in an S3-compatible bucket. Clients upload and download with presigned URLs straight
 * to the bucket; the body length is part of every signed PUT (Content-Length is a signed
 * header), so S3 refuses a body of another size. S3 computes the ETags itself.
 */
export interface S3BlobStoreOptions {
  client: S3Client;
  bucket: string;
  partSize: number;
  clock?: Clock;
}

/** SigV4 presigned URLs last at most seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

function notFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotFound' ||
      error.name === 'NoSuchKey' ||
      error.name === 'NoSuchUpload' ||
      error.$metadata.httpStatusCode === 404)
  );
}

function etagOf(raw: string | undefined): string {
  const etag = parseEtag(raw);
  if (!etag) throw new Error(`the S3 server answered an ETag we cannot read: ${raw}`);
  return etag;
}

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly clock: Clock;

  constructor(private readonly options: S3BlobStoreOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.clock = options.clock ?? systemClock;
  }

  static fromConfig(config: S3Config, partSize: number, clock?: Clock): S3BlobStore {
    const client = new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
    });
    return new S3BlobStore({ client, bucket: config.bucket, partSize, ...(clock ? { clock } : {}) });
  }

  private expiresIn(expiresAt: Date): number {
    const seconds = Math.ceil((expiresAt.getTime() - this.clock.now().getTime()) / 1000);
    if (seconds < 1 || seconds > MAX_PRESIGN_SECONDS) {
      throw new Error(`a presigned URL expires 1 s to 7 days from now, not at ${expiresAt.toISOString()}`);
    }
    return seconds;
  }

  async beginUpload(key: string, size: number, expiresAt: Date): Promise<UploadPlan> {
    assertBlobKey(key);
    const problem = uploadSizeProblem(size);
    if (problem) throw new Error(problem);
    const expiresIn = this.expiresIn(expiresAt);
    const Bucket = this.bucket;
    const partSize = partSizeFor(size, this.options.partSize);
    if (!isMultipart(size, partSize)) {
      const command = new PutObjectCommand({ Bucket, Key: key, ContentLength: size });
      return { kind: 'single', url: await getSignedUrl(this.client, command, { expiresIn }), expiresAt };
    }
    const { UploadId: uploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key: key }));
    if (!uploadId) throw new Error('the S3 server gave no upload id');
    const parts = await Promise.all(
      planParts(size, partSize).map(async (part) => {
        const command = new UploadPartCommand({
          Bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber: part.partNumber,
          ContentLength: part.size,
        });
        return { ...part, url: await getSignedUrl(this.client, command, { expiresIn }) };
      }),
    );
    return { kind: 'multipart', uploadId, partSize, parts, expiresAt };
  }

  private async listParts(key: string, uploadId: string): Promise<Part[] | undefined> {
    const parts: Part[] = [];
    let marker: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
        );
        parts.push(...(page.Parts ?? []));
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
    return parts;
  }

  async completeUpload(key: string, upload: { uploadId?: string; size: number }): Promise<BlobInfo | undefined> {
    assertBlobKey(key);
    if (upload.uploadId === undefined) return this.head(key);
    const parts = await this.listParts(key, upload.uploadId);
    // No such upload: completed before (or aborted), so what is there is the answer.
    if (!parts) return this.head(key);
    parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    const size = parts.reduce((sum, part) => sum + (part.Size ?? 0), 0);
    if (!completeParts(parts) || size !== upload.size) return undefined;
    const completed: CompletedPart[] = parts.map((part) => ({ PartNumber: part.PartNumber, ETag: part.ETag }));
    const result = await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: upload.uploadId,
        MultipartUpload: { Parts: completed },
      }),
    );
    return { size, etag: etagOf(result.ETag) };
  }

  async abortUpload(key: string, uploadId?: string): Promise<void> {
    assertBlobKey(key);
    if (uploadId !== undefined) {
      try {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
      } catch (error) {
        if (!notFound(error)) throw error;
      }
    }
    await this.delete(key);
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    assertBlobKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, etag: etagOf(head.ETag) };
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async read(key: string, range?: { start: number; end: number }): Promise<Readable> {
    assertBlobKey(key);
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range && `bytes=${range.start}-${range.end}` }),
      );
      if (!(object.Body instanceof Readable)) throw new Error('the S3 client gave no stream');
      return object.Body;
    } catch (error) {
      if (notFound(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  /** One PUT up to the part size; a larger stream goes up as a multipart upload, one part in memory at a time. */
  async write(key: string, body: Readable | Buffer): Promise<BlobInfo> {
    assertBlobKey(key);
    const Bucket = this.bucket;
    const partSize = this.options.partSize;
    if (Buffer.isBuffer(body) && body.length <= partSize) {
      const put = await this.client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentLength: body.length }));
      return { size: body.length, etag: etagOf(put.ETag) };
    }
    const chunks = partsOf(Buffer.isBuffer(body) ? Readable.from([body]) : body, partSize);
    const first = await chunks.next();
    const firstPart = first.done ? Buffer.alloc(0) : first.value;
    const second = first.done ? undefined : await chunks.next();
    if (!second || second.done) {
      const put = await this.client.send(
        new PutObjectCommand({ Bucket, Key: key, Body: firstPart, ContentLength: firstPart.length }),
      );
      return { size: firstPart.length, etag: etagOf(put.ETag) };
    }
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key: key }));
    try {
      const parts: CompletedPart[] = [];
      let size = 0;
      let partNumber = 0;
      for (const part of [firstPart, second.value]) {
        partNumber += 1;
        parts.push(await this.uploadPart(key, UploadId, partNumber, part));
        size += part.length;
      }
      for await (const part of chunks) {
        partNumber += 1;
        parts.push(await this.uploadPart(key, UploadId, partNumber, part));
        size += part.length;
      }
      const done = await this.client.send(
        new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }),
      );
      return { size, etag: etagOf(done.ETag) };
    } catch (error) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId })).catch(() => {});
      throw error;
    }
  }

  private async uploadPart(key: string, uploadId: string | undefined, partNumber: number, body: Buffer): Promise<CompletedPart> {
    const { ETag } = await this.client.send(
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: partNumber,
        Body: body,
        ContentLength: body.length,
      }),
    );
    return { PartNumber: partNumber, ETag };
  }

  async downloadUrl(key: string, expiresAt: Date, options: { fileName: string; contentType?: string }): Promise<string> {
    assertBlobKey(key);
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: attachmentDisposition(options.fileName),
      ...(options.contentType ? { ResponseContentType: options.contentType } : {}),
    });
    return getSignedUrl(this.client, command, { expiresIn: this.expiresIn(expiresAt) });
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Lists and deletes in pages of 1,000. In-progress multipart uploads are the caller's to abort. */
  async *listPrefix(prefix: string): AsyncIterable<ListedBlob> {
    if (!prefix.endsWith('/') || blobPrefixProblem(prefix)) throw new Error(`"${prefix}" is not a folder's prefix`);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) yield { key: object.Key, size: object.Size ?? 0 };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async deletePrefix(prefix: string): Promise<void> {
    const problem = blobPrefixProblem(prefix);
    if (problem) throw new Error(problem);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (keys.length > 0) {
        const result = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
        );
        const failed = result.Errors ?? [];
        if (failed.length > 0)
          throw new Error(`S3 could not delete ${failed.length} objects, e.g. ${failed[0]?.Key}: ${failed[0]?.Message}`);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/**
 * Parts S3 will join: numbered 1..N, all but the last of one size of at least 5 MiB, the last
 * no larger. (The part size is not re-derived from the configuration, which may have changed
 * since the upload began.)
 */
function completeParts(parts: Part[]): boolean {
  if (parts.length === 0 || !parts.every((part, i) => part.PartNumber === i + 1)) return false;
  const partSize = parts[0]?.Size ?? 0;
  const last = parts[parts.length - 1]?.Size ?? 0;
  if (parts.length === 1) return true;
  return partSize >= MIN_PART_SIZE && last <= partSize && parts.slice(0, -1).every((part) => part.Size === partSize);
}

/** A stream cut into buffers of `size` bytes (the last shorter), each copied once. */
async function* partsOf(stream: Readable, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    let data = chunk as Buffer;
    while (length + data.length >= size) {
      const take = size - length;
      pending.push(data.subarray(0, take));
      yield Buffer.concat(pending);
      data = data.subarray(take);
      pending = [];
      length = 0;
    }
    if (data.length > 0) {
      pending.push(data);
      length += data.length;
    }
  }
  if (length > 0) yield Buffer.concat(pending);
}
