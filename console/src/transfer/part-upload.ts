import { multipartEtag } from './multipart-etag.js';
import { type PartTarget, putPart } from './put-part.js';

/** One file of an upload, as far as it got. */
export interface UploadFile {
  file: File;
  /** The platform's id of the file's upload, once it has one (its bytes reserved against the quota). */
  id?: string;
  parts: PartTarget[];
  partSize: number;
  /** ETag (bare hex MD5) of each part sent, by part number: kept across a pause (and a reload: upload-journal). */
  done: Map<number, string>;
  /** Bytes of the parts done plus those in flight now. */
  sentBytes: number;
}

export type UploadStatus = 'uploading' | 'paused' | 'finalizing' | 'done' | 'failed';

/** A file about to be uploaded: nothing sent, no address yet. */
export function newUploadFile(file: File): UploadFile {
  return { file, parts: [], partSize: file.size, done: new Map(), sentBytes: 0 };
}

/** Where a creation answer says to PUT a file: one address, or parts. */
export interface UploadTarget {
  uploadUrl?: string;
  partSize?: number;
  parts?: PartTarget[];
}

/** Takes a creation answer's addresses into `entry`: one PUT is part 1 of the whole file. */
export function targetInto(entry: UploadFile, target: UploadTarget): void {
  entry.parts = target.uploadUrl ? [{ partNumber: 1, size: entry.file.size, uploadUrl: target.uploadUrl }] : (target.parts ?? []);
  entry.partSize = target.partSize ?? entry.file.size;
}

/** The ETag finalize checks: the store's own for one PUT, `md5(part md5s)-N` for parts (as S3 makes it). */
export function fileEtag(entry: UploadFile): string {
  const etags = entry.parts.map((part) => entry.done.get(part.partNumber) as string);
  return entry.parts.length === 1 ? (etags[0] as string) : multipartEtag(etags);
}

/** Parts in flight at once, over all the files of an upload. */
const CONCURRENCY = 4;

/**
 * An upload straight to the storage's signed addresses, pausable: `open` gets the addresses,
 * every part not done is PUT (several at once, the bytes sent told as they go), then `finalize`.
 * Pausing stops the parts in flight; the parts done stay done, so resuming sends only the
 * others. Bundle inputs and library models are both sent by it (docs/console.md, "Uploads").
 */
export abstract class PartUpload {
  status: UploadStatus = 'uploading';
  error: unknown;
  private inFlight = new Set<AbortController>();
  private listeners = new Set<() => void>();

  constructor(readonly files: UploadFile[]) {}

  /** Gets the addresses of the files that have none yet (the upload's ids and reservations). */
  protected abstract open(): Promise<void>;
  protected abstract finalize(): Promise<void>;
  /** Heard after each part done, and after open: a subclass keeps its state (upload-journal). */
  protected progressed(): void {}

  get totalBytes(): number {
    return this.files.reduce((sum, file) => sum + file.file.size, 0);
  }

  get sentBytes(): number {
    return this.files.reduce((sum, file) => sum + file.sentBytes, 0);
  }

  /** Parts of every file (0 until the addresses are known), and those done. */
  get partCount(): number {
    return this.files.reduce((sum, file) => sum + file.parts.length, 0);
  }

  get partsDone(): number {
    return this.files.reduce((sum, file) => sum + file.done.size, 0);
  }

  /** Read through a getter: a pause happens while run() awaits, which TypeScript's narrowing cannot see. */
  private get paused(): boolean {
    return this.status === 'paused';
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Opens what is not open yet, sends the parts not sent yet, then finalizes. */
  async run(): Promise<void> {
    this.status = 'uploading';
    this.error = undefined;
    this.changed();
    try {
      await this.open();
      this.progressed();
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

  /** Settles when the upload is done (or fails), however many pauses and resumes come first. */
  settled(): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.status !== 'done' && this.status !== 'failed') return;
        unsubscribe();
        if (this.status === 'done') resolve();
        else reject(this.error);
      };
      const unsubscribe = this.subscribe(check);
      check();
    });
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
          this.progressed();
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
}

/** An upload that has its addresses already and nothing to finalize itself: what `sendFile` sends. */
class PlainUpload extends PartUpload {
  protected async open(): Promise<void> {}
  protected async finalize(): Promise<void> {}
}

/**
 * Sends one file to the addresses a creation answered (an attachment's), telling the bytes sent
 * as they go, and answers the ETag its finalize checks; throws what stopped it.
 */
export async function sendFile(file: File, target: UploadTarget, onSent: (bytes: number) => void): Promise<string> {
  const entry = newUploadFile(file);
  targetInto(entry, target);
  const upload = new PlainUpload([entry]);
  const unsubscribe = upload.subscribe(() => onSent(upload.sentBytes));
  try {
    await upload.run();
  } finally {
    unsubscribe();
  }
  if (upload.status === 'failed') throw upload.error;
  return fileEtag(entry);
}
