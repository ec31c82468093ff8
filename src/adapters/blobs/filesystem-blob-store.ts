import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { assertBlobKey, blobPrefixProblem } from '../../domain/uploads/blob-key.js';
import { multipartEtag, singlePutEtag } from '../../domain/uploads/etag.js';
import { type BlobGrant, type GrantCheck, signBlobUrl, verifyBlobUrl } from '../../domain/uploads/signed-url.js';
import { isMultipart, type PlannedPart, partSizeFor, planParts, uploadSizeProblem } from '../../domain/uploads/upload-parts.js';
import type { BlobInfo, BlobStore, EmbeddedBlobEndpoint, ListedBlob, OpenedBlob, UploadPlan } from '../../ports/blob-store.js';
import { BlobNotFoundError, SizeMismatchError, UploadNotFoundError } from '../../ports/blob-store.js';
import { type Clock, systemClock } from '../../ports/clock.js';
import { publish, sweepTemporaryFiles, TempFile, writeFileDurably } from './durable-files.js';
import {
  assemblyPath,
  createUpload,
  isAssemblyFile,
  type Manifest,
  readManifest,
  recordedParts,
  removeUpload,
  writePart,
} from './multipart-assembly.js';

/**
 * Blobs as files under `<dataDir>/blobs`, uploaded and downloaded through the embedded blob
 * endpoint (http/blob-routes.ts) with addresses signed here:
 *
 *   objects/<key>                 the bytes
 *   meta/<key>.json               { size, etag, ino }: the ETag of a multipart object cannot be
 *                                 recomputed from its bytes, so it is kept beside them, bound
 *                                 to the object's inode; a stale or missing one (a crash
 *                                 between the two renames) is recomputed as a single-PUT ETag
 *   uploads/<uploadId>/           a multipart upload assembled in place (multipart-assembly.ts)
 *   tmp/<pid>-<random>            files being written (durable-files.ts)
 *
 * The database remains the record of each object's ETag (docs/blob-store.md); the metadata file
 * serves the endpoint's ETag header and head().
 */
export interface FilesystemBlobStoreOptions {
  /** The folder of the store, `<dataDir>/blobs`. */
  root: string;
  /** The endpoint's public address, `<publicUrl>/blob`. */
  publicBaseUrl: string;
  signingKey: Buffer;
  /** Multipart above this size, in parts of this size. */
  partSize: number;
  clock?: Clock;
}

interface Meta {
  size: number;
  etag: string;
  ino: number;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;

function missing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export class FilesystemBlobStore implements BlobStore, EmbeddedBlobEndpoint {
  private readonly clock: Clock;
  private readonly dirs: { objects: string; meta: string; uploads: string; tmp: string };
  private readonly changing = new Map<string, Promise<void>>();
  /** Per upload id: parts being received, and the completion running; see receive() and completeLocked(). */
  private readonly partsArriving = new Map<string, number>();
  private readonly completing = new Map<string, Promise<unknown>>();

  private constructor(private readonly options: FilesystemBlobStoreOptions) {
    this.clock = options.clock ?? systemClock;
    const dir = (name: string) => path.join(options.root, name);
    this.dirs = { objects: dir('objects'), meta: dir('meta'), uploads: dir('uploads'), tmp: dir('tmp') };
  }

  /** Creates the folders and sweeps temporary files left by a process that died mid-write. */
  static async open(options: FilesystemBlobStoreOptions): Promise<FilesystemBlobStore> {
    const store = new FilesystemBlobStore(options);
    for (const dir of Object.values(store.dirs)) await fs.mkdir(dir, { recursive: true });
    await store.sweepTemporaryFiles();
    return store;
  }

  sweepTemporaryFiles(): Promise<number> {
    return sweepTemporaryFiles(this.dirs.tmp);
  }

  private objectPath(key: string): string {
    assertBlobKey(key);
    return path.join(this.dirs.objects, key);
  }

  private metaPath(key: string): string {
    return path.join(this.dirs.meta, `${key}.json`);
  }

  private uploadDir(uploadId: string): string {
    if (!UPLOAD_ID.test(uploadId)) throw new UploadNotFoundError(`no upload "${uploadId}"`);
    return path.join(this.dirs.uploads, uploadId);
  }

  private sign(grant: BlobGrant): string {
    return signBlobUrl(this.options.publicBaseUrl, grant, this.options.signingKey);
  }

  /** The endpoint's check of a request against its signed address, on this store's clock. */
  authorize(method: string, key: string, query: Record<string, string | undefined>): GrantCheck {
    return verifyBlobUrl(method, key, query, this.options.signingKey, this.clock.now());
  }

  async beginUpload(key: string, size: number, expiresAt: Date): Promise<UploadPlan> {
    assertBlobKey(key);
    const problem = uploadSizeProblem(size);
    if (problem) throw new Error(problem);
    const partSize = partSizeFor(size, this.options.partSize);
    if (!isMultipart(size, partSize)) {
      return { kind: 'single', url: this.sign({ method: 'PUT', key, size, expiresAt }), expiresAt };
    }
    const uploadId = randomBytes(16).toString('hex');
    await createUpload(this.uploadDir(uploadId), this.dirs.tmp, { key, size, partSize });
    const parts = planParts(size, partSize).map((part) => ({
      ...part,
      url: this.sign({ method: 'PUT', key, size: part.size, uploadId, partNumber: part.partNumber, expiresAt }),
    }));
    return { kind: 'multipart', uploadId, partSize, parts, expiresAt };
  }

  private manifest(uploadId: string): Promise<Manifest | undefined> {
    return readManifest(this.uploadDir(uploadId));
  }

  /** A part's file in an upload begun before assembly in place (a manifest without ino). */
  private partPath(uploadId: string, partNumber: number): string {
    return path.join(this.uploadDir(uploadId), `part-${String(partNumber).padStart(5, '0')}`);
  }

  /**
   * A signed PUT's body: the whole object, or one part of a multipart upload. Exactly the
   * signed number of bytes or SizeMismatchError, and nothing under the final name then.
   */
  async receive(grant: BlobGrant, body: Readable): Promise<BlobInfo> {
    if (grant.size === undefined) throw new SizeMismatchError(0, 'unsigned');
    const uploadId = grant.uploadId;
    if (uploadId === undefined) return this.store(grant.key, body, grant.size);
    // A completion of this upload is running: the part waits for its end, then finds the upload
    // over or still open. Counted from here on, a part makes a completion wait for it (no await
    // between the last check and the count).
    for (let running = this.completing.get(uploadId); running; running = this.completing.get(uploadId)) {
      await running.catch(() => {});
    }
    this.partsArriving.set(uploadId, (this.partsArriving.get(uploadId) ?? 0) + 1);
    try {
      return await this.receivePart(grant, uploadId, body);
    } finally {
      const left = (this.partsArriving.get(uploadId) ?? 1) - 1;
      if (left > 0) this.partsArriving.set(uploadId, left);
      else this.partsArriving.delete(uploadId);
    }
  }

  private async receivePart(grant: BlobGrant, uploadId: string, body: Readable): Promise<BlobInfo> {
    const manifest = await this.manifest(uploadId);
    const planned = manifest && planParts(manifest.size, manifest.partSize)[(grant.partNumber ?? 0) - 1];
    if (!manifest || manifest.key !== grant.key || !planned || planned.size !== grant.size) {
      throw new UploadNotFoundError(`no part ${grant.partNumber} of upload ${uploadId} for this key`);
    }
    if (manifest.ino === undefined) return this.receivePartFile(grant, uploadId, planned, body);
    const offset = (planned.partNumber - 1) * manifest.partSize;
    try {
      // One upload of a part at a time: two would interleave their bytes in the assembly file.
      // The name cannot be a blob key (a key has no space).
      const { size, md5 } = await this.locked(`upload ${uploadId} part ${planned.partNumber}`, () =>
        writePart(this.uploadDir(uploadId), this.dirs.tmp, { ...planned, offset }, body),
      );
      return { size, etag: singlePutEtag(md5) };
    } catch (error) {
      if (missing(error)) throw new UploadNotFoundError(`upload ${uploadId} ended while part ${grant.partNumber} arrived`);
      throw error;
    }
  }

  /** A part of an upload begun before assembly in place: its own file, joined at completion. */
  private async receivePartFile(grant: BlobGrant, uploadId: string, planned: PlannedPart, body: Readable): Promise<BlobInfo> {
    const temp = await TempFile.create(this.dirs.tmp);
    try {
      const { size, md5 } = await temp.receive(body, planned.size);
      await temp.finish();
      // Never recreates the upload's folder: completed or aborted meanwhile, the part is refused.
      await publish(temp.path, this.partPath(uploadId, planned.partNumber), { createFolders: false });
      return { size, etag: singlePutEtag(md5) };
    } catch (error) {
      await temp.discard();
      if (missing(error)) throw new UploadNotFoundError(`upload ${uploadId} ended while part ${grant.partNumber} arrived`);
      throw error;
    }
  }

  /** Streams into a temporary file, then renames it over the key and records its metadata. */
  private async store(key: string, body: Readable, expectedSize?: number): Promise<BlobInfo> {
    const finalPath = this.objectPath(key);
    const temp = await TempFile.create(this.dirs.tmp);
    try {
      const { size, md5 } = await temp.receive(body, expectedSize);
      const info = { size, etag: singlePutEtag(md5) };
      await this.locked(key, () => this.commit(temp, finalPath, key, info));
      return info;
    } catch (error) {
      await temp.discard();
      throw error;
    }
  }

  /**
   * Runs changes of one key's object one after the other: the bytes and their metadata are two
   * renames, and two writers interleaving them would bind the metadata to the other's file.
   * One process serves a filesystem store, so a lock in memory is enough.
   */
  private async locked<T>(key: string, change: () => Promise<T>): Promise<T> {
    const previous = this.changing.get(key) ?? Promise.resolve();
    const current = previous.then(change, change);
    const tail = current.then(
      () => {},
      () => {},
    );
    this.changing.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.changing.get(key) === tail) this.changing.delete(key);
    }
  }

  /** Publishes a finished temporary file as the key's object, then its metadata; callers hold the key's lock. */
  private async commit(temp: TempFile, finalPath: string, key: string, info: BlobInfo): Promise<void> {
    const ino = await temp.finish();
    await publish(temp.path, finalPath);
    await this.writeMeta(key, { ...info, ino });
  }

  private async writeMeta(key: string, meta: Meta): Promise<void> {
    await writeFileDurably(this.dirs.tmp, this.metaPath(key), JSON.stringify(meta));
  }

  completeUpload(key: string, upload: { uploadId?: string; size: number }): Promise<BlobInfo | undefined> {
    assertBlobKey(key);
    return this.locked(key, () => this.completeLocked(key, upload));
  }

  private async completeLocked(key: string, upload: { uploadId?: string; size: number }): Promise<BlobInfo | undefined> {
    const manifest = upload.uploadId === undefined ? undefined : await this.manifest(upload.uploadId);
    // Single PUT, or a multipart upload completed before (its folder is removed last).
    if (!manifest || upload.uploadId === undefined) return this.head(key);
    if (manifest.key !== key || manifest.size !== upload.size) {
      throw new Error(`upload ${upload.uploadId} is of another key or size`);
    }
    const uploadId = upload.uploadId;
    if (manifest.ino === undefined) return this.completePartFiles(key, uploadId, manifest);
    // A part still arriving is not there yet.
    if (this.partsArriving.has(uploadId)) return undefined;
    const completion = this.completeAssembled(key, uploadId, { ...manifest, ino: manifest.ino });
    this.completing.set(uploadId, completion);
    try {
      return await completion;
    } finally {
      this.completing.delete(uploadId);
    }
  }

  /**
   * Every part recorded: the assembly file is synced and renamed to the key (no byte is read
   * or copied), its metadata written with the ETag from the recorded MD5s, the upload removed.
   */
  private async completeAssembled(
    key: string,
    uploadId: string,
    manifest: Manifest & { ino: number },
  ): Promise<BlobInfo | undefined> {
    const dir = this.uploadDir(uploadId);
    const md5s = await recordedParts(dir, planParts(manifest.size, manifest.partSize));
    if (!md5s) return undefined;
    const info = { size: manifest.size, etag: multipartEtag(md5s) };
    const assembly = assemblyPath(dir);
    const handle = await fs.open(assembly, 'r').catch((error) => (missing(error) ? undefined : Promise.reject(error)));
    if (handle) {
      try {
        if (!isAssemblyFile(manifest, await handle.stat())) {
          throw new Error(`the assembly file of upload ${uploadId} is not the one planned`);
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await publish(assembly, this.objectPath(key));
    } else {
      // Renamed by a completion cut short before its metadata or the upload's removal.
      if (!isAssemblyFile(manifest, await fs.stat(this.objectPath(key)).catch(() => undefined))) return undefined;
    }
    await this.writeMeta(key, { ...info, ino: manifest.ino });
    await removeUpload(dir);
    return info;
  }

  /** Completes an upload begun before assembly in place: its part files joined into one new file. */
  private async completePartFiles(key: string, uploadId: string, manifest: Manifest): Promise<BlobInfo | undefined> {
    const parts = planParts(manifest.size, manifest.partSize);
    for (const part of parts) {
      const stat = await fs.stat(this.partPath(uploadId, part.partNumber)).catch(() => undefined);
      if (stat?.size !== part.size) return undefined;
    }
    let info: BlobInfo;
    try {
      info = await this.concatenate(key, uploadId, parts);
    } catch (error) {
      // A concurrent completion of the same upload finished first and removed the parts.
      if (missing(error) && !(await this.manifest(uploadId))) return this.head(key);
      throw error;
    }
    await removeUpload(this.uploadDir(uploadId));
    return info;
  }

  /** The parts, in order, into one new file; each part's MD5 is taken on the way for the ETag. */
  private async concatenate(key: string, uploadId: string, parts: PlannedPart[]): Promise<BlobInfo> {
    const temp = await TempFile.create(this.dirs.tmp);
    try {
      const md5s: Buffer[] = [];
      let size = 0;
      for (const part of parts) {
        const source = createReadStream(this.partPath(uploadId, part.partNumber), { highWaterMark: 1024 * 1024 });
        const received = await temp.receive(source);
        md5s.push(received.md5);
        size += received.size;
      }
      const info = { size, etag: multipartEtag(md5s) };
      await this.commit(temp, this.objectPath(key), key, info);
      return info;
    } catch (error) {
      await temp.discard();
      throw error;
    }
  }

  async abortUpload(key: string, uploadId?: string): Promise<void> {
    if (uploadId !== undefined) await removeUpload(this.uploadDir(uploadId));
    await this.delete(key);
  }

  /** Opens the object (undefined when there is none); its ETag from the metadata bound to this very file. */
  async open(key: string): Promise<OpenedBlob | undefined> {
    let handle: FileHandle;
    try {
      handle = await fs.open(this.objectPath(key), 'r');
    } catch (error) {
      if (missing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new Error(`blob "${key}" is not a file`);
      const etag = await this.etagOf(key, handle, stat.ino, stat.size);
      return {
        size: stat.size,
        etag,
        stream: (range) =>
          handle.createReadStream({
            start: range?.start ?? 0,
            end: range?.end ?? Math.max(0, stat.size - 1),
            highWaterMark: 256 * 1024,
          }),
        close: () => handle.close(),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private async etagOf(key: string, handle: FileHandle, ino: number, size: number): Promise<string> {
    const meta = await fs
      .readFile(this.metaPath(key), 'utf8')
      .then((text) => JSON.parse(text) as Meta)
      .catch(() => undefined);
    if (meta && meta.ino === ino && meta.size === size) return meta.etag;
    // Written by a process that died between publishing the bytes and their metadata.
    const md5 = createHash('md5');
    const buffer = Buffer.alloc(1024 * 1024);
    for (let position = 0; position < size; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      md5.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    const etag = singlePutEtag(md5.digest());
    await this.writeMeta(key, { size, etag, ino });
    return etag;
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    const blob = await this.open(key);
    if (!blob) return undefined;
    await blob.close();
    return { size: blob.size, etag: blob.etag };
  }

  /** The bytes only: no ETag, so the metadata file is not read (a tile's GET paid for it on every request). */
  async read(key: string, range?: { start: number; end: number }): Promise<Readable> {
    let handle: FileHandle;
    try {
      handle = await fs.open(this.objectPath(key), 'r');
    } catch (error) {
      if (missing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new BlobNotFoundError(key);
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new Error(`blob "${key}" is not a file`);
      if (stat.size === 0) {
        await handle.close();
        return Readable.from([]);
      }
      const start = range?.start ?? 0;
      const end = range?.end ?? stat.size - 1;
      // A buffer no larger than what is read: small files (tiles) need no 256 KiB buffer each.
      return handle.createReadStream({ start, end, highWaterMark: Math.min(256 * 1024, end - start + 1) });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** One open, one read, one close: for a tile, far less work than a read stream. */
  async readBuffer(key: string, size: number, range?: { start: number; end: number }): Promise<Buffer> {
    let handle: FileHandle;
    try {
      handle = await fs.open(this.objectPath(key), 'r');
    } catch (error) {
      if (missing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new BlobNotFoundError(key);
      throw error;
    }
    try {
      const start = range?.start ?? 0;
      const length = (range?.end ?? size - 1) - start + 1;
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, start);
      if (bytesRead !== length) throw new Error(`blob "${key}" is shorter than ${size} bytes`);
      return buffer;
    } finally {
      await handle.close();
    }
  }

  write(key: string, body: Readable | Buffer): Promise<BlobInfo> {
    return this.store(key, Buffer.isBuffer(body) ? Readable.from([body]) : body);
  }

  async downloadUrl(key: string, expiresAt: Date, options: { fileName: string; contentType?: string }): Promise<string> {
    assertBlobKey(key);
    return this.sign({ method: 'GET', key, expiresAt, ...options });
  }

  delete(key: string): Promise<void> {
    const objectPath = this.objectPath(key);
    return this.locked(key, async () => {
      await fs.rm(objectPath, { force: true });
      await fs.rm(this.metaPath(key), { force: true });
    });
  }

  /** The files under objects/<prefix>, walked depth first. */
  async *listPrefix(prefix: string): AsyncIterable<ListedBlob> {
    if (!prefix.endsWith('/') || blobPrefixProblem(prefix)) throw new Error(`"${prefix}" is not a folder's prefix`);
    const walk = async function* (dir: string, keyPrefix: string): AsyncGenerator<ListedBlob> {
      const entries = await fs
        .readdir(dir, { withFileTypes: true })
        .catch((error) => (missing(error) ? [] : Promise.reject(error)));
      for (const entry of entries) {
        const key = `${keyPrefix}${entry.name}`;
        if (entry.isDirectory()) yield* walk(path.join(dir, entry.name), `${key}/`);
        else if (entry.isFile()) yield { key, size: (await fs.stat(path.join(dir, entry.name))).size };
      }
    };
    yield* walk(path.join(this.dirs.objects, prefix), prefix);
  }

  async deletePrefix(prefix: string): Promise<void> {
    const problem = blobPrefixProblem(prefix);
    if (problem) throw new Error(problem);
    const slash = prefix.lastIndexOf('/');
    const folder = prefix.slice(0, slash + 1);
    const start = prefix.slice(slash + 1);
    // The same names lead to objects/<key> and meta/<key>.json.
    for (const tree of [this.dirs.objects, this.dirs.meta]) {
      const dir = path.join(tree, folder);
      const names = await fs.readdir(dir).catch((error) => (missing(error) ? [] : Promise.reject(error)));
      for (const name of names) {
        if (name.startsWith(start)) await fs.rm(path.join(dir, name), { recursive: true, force: true });
      }
    }
    for (const uploadId of await fs.readdir(this.dirs.uploads)) {
      const manifest = UPLOAD_ID.test(uploadId) ? await this.manifest(uploadId) : undefined;
      if (manifest?.key.startsWith(prefix)) await removeUpload(this.uploadDir(uploadId));
    }
  }

  async close(): Promise<void> {}
}
