import { ok } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import { multipartEtag } from '../../transfer/multipart-etag.js';
import { type PartTarget, putPart } from '../../transfer/put-part.js';

/** One file of a bundle's upload, as far as it got. */
export interface UploadFile {
  file: File;
  /** The session file's id, once added (its bytes reserved against the quota). */
  id?: string;
  parts: PartTarget[];
  partSize: number;
  /** ETag (bare hex MD5) of each part sent, by part number: kept across a pause. */
  done: Map<number, string>;
  /** Bytes of the parts done plus those in flight now. */
  sentBytes: number;
}

export type UploadStatus = 'uploading' | 'paused' | 'finalizing' | 'done' | 'failed';

/** Parts in flight at once, over all the files of an upload. */
const CONCURRENCY = 4;

/**
 * A bundle's input uploaded from the browser, straight to the storage's signed addresses: an
 * upload session, each file added (its size reserved), every part PUT (several at once, with the
 * bytes sent so far told as they go), then the session finalized with the ETags. Pausing stops
 * the parts in flight; the parts done stay done, so resuming sends only the others, within the
 * same session (the SDK's uploadBundleInput does this for Node.js; it reads files from disk).
 */
export class BundleUpload {
  readonly files: UploadFile[];
  status: UploadStatus = 'uploading';
  error: unknown;
  private sessionId: string | undefined;
  private inFlight = new Set<AbortController>();
  private listeners = new Set<() => void>();

  constructor(
    private readonly session: ConsoleSession,
    readonly bundle: { id: string; name: string; parentId: string },
    files: File[],
  ) {
    this.files = files.map((file) => ({ file, parts: [], partSize: file.size, done: new Map(), sentBytes: 0 }));
  }

  get totalBytes(): number {
    return this.files.reduce((sum, file) => sum + file.file.size, 0);
  }

  get sentBytes(): number {
    return this.files.reduce((sum, file) => sum + file.sentBytes, 0);
  }

  /** Read through a getter: a pause happens while run() awaits, which TypeScript's narrowing cannot see. */
  private get paused(): boolean {
    return this.status === 'paused';
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Opens what is not open yet, sends the parts not sent yet, then finalizes. */
  async run(): Promise<void> {
    this.status = 'uploading';
    this.error = undefined;
    this.changed();
    try {
      await this.open();
      await this.sendParts();
      if (this.paused) return;
      this.status = 'finalizing';
      this.changed();
      await this.finalize();
      this.status = 'done';
    } catch (error) {
      if (this.paused) return;
      this.status = 'failed';
      this.error = error;
      for (const controller of this.inFlight) controller.abort();
    }
    this.changed();
  }

  /** Stops the parts in flight (their bytes are sent again on resume); the parts done stay done. */
  pause(): void {
    if (this.status !== 'uploading') return;
    this.status = 'paused';
    for (const controller of this.inFlight) controller.abort();
    this.changed();
  }

  resume(): Promise<void> {
    return this.run();
  }

  private async open(): Promise<void> {
    const bundleId = this.bundle.id;
    if (!this.sessionId) {
      const opened = await ok(
        this.session.api.POST('/v1/bundles/{bundleId}/upload-sessions', { params: { path: { bundleId } } }),
      );
      this.sessionId = opened.id;
    }
    const path = { bundleId, sessionId: this.sessionId };
    for (const entry of this.files) {
      if (entry.id) continue;
      const added = await ok(
        this.session.api.POST('/v1/bundles/{bundleId}/upload-sessions/{sessionId}/files', {
          params: { path },
          body: { name: entry.file.name, size: entry.file.size },
        }),
      );
      entry.id = added.id;
      entry.parts = added.uploadUrl
        ? [{ partNumber: 1, size: entry.file.size, uploadUrl: added.uploadUrl }]
        : (added.parts ?? []);
      entry.partSize = added.partSize ?? entry.file.size;
      this.changed();
    }
  }

  /** Every part not done, CONCURRENCY at a time over all the files; the first failure stops the rest. */
  private async sendParts(): Promise<void> {
    const queue = this.files.flatMap((entry) =>
      entry.parts.filter((part) => !entry.done.has(part.partNumber)).map((part) => ({ entry, part })),
    );
    const worker = async () => {
      for (let next = queue.shift(); next && this.status === 'uploading'; next = queue.shift()) {
        const { entry, part } = next;
        const controller = new AbortController();
        this.inFlight.add(controller);
        const start = (part.partNumber - 1) * entry.partSize;
        let counted = 0;
        try {
          const etag = await putPart(part, entry.file.slice(start, start + part.size), controller.signal, (loaded) => {
            entry.sentBytes += loaded - counted;
            counted = loaded;
            this.changed();
          });
          entry.done.set(part.partNumber, etag);
          entry.sentBytes += part.size - counted;
        } catch (error) {
          // A stopped or failed part counts as not sent.
          entry.sentBytes -= counted;
          if (this.paused) return;
          throw error;
        } finally {
          this.inFlight.delete(controller);
          this.changed();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  }

  private async finalize(): Promise<void> {
    const files = this.files.map((entry) => {
      const etags = entry.parts.map((part) => entry.done.get(part.partNumber) as string);
      return { id: entry.id as string, etag: entry.parts.length === 1 ? (etags[0] as string) : multipartEtag(etags) };
    });
    await ok(
      this.session.api.POST('/v1/bundles/{bundleId}/upload-sessions/{sessionId}/finalize', {
        params: { path: { bundleId: this.bundle.id, sessionId: this.sessionId as string } },
        body: { files },
      }),
    );
  }
}
