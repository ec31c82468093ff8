import { ok } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import { fileEtag, newUploadFile, PartUpload, targetInto, type UploadFile } from '../../transfer/part-upload.js';
import { forgetUpload, type JournalEntry, saveUpload } from './upload-journal.js';

export type { UploadFile, UploadStatus } from '../../transfer/part-upload.js';

/**
 * A bundle's input uploaded from the browser: an upload session, each file added (its size
 * reserved), every part PUT, then the session finalized with the ETags (the SDK's
 * uploadBundleInput does this for Node.js). Its state is journaled in IndexedDB as it goes, so
 * that after a reload the same files picked again send only the parts still missing
 * (upload-journal.ts; docs/console.md, "Uploads").
 */
export class BundleUpload extends PartUpload {
  private sessionId: string | undefined;

  constructor(
    private readonly session: ConsoleSession,
    readonly bundle: { id: string; name: string; parentId: string },
    files: UploadFile[],
    sessionId?: string,
  ) {
    super(files);
    this.sessionId = sessionId;
  }

  /** A new upload of these files. */
  static of(session: ConsoleSession, bundle: { id: string; name: string; parentId: string }, files: File[]): BundleUpload {
    return new BundleUpload(session, bundle, files.map(newUploadFile));
  }

  /** The journaled upload, its files picked again (mismatch() has checked them): the parts done stay done. */
  static resumed(session: ConsoleSession, entry: JournalEntry, picked: File[]): BundleUpload {
    const files = entry.files.map((kept) => {
      const file = picked.find((each) => each.name === kept.name && each.size === kept.size) as File;
      const done = new Map(kept.done);
      const sentBytes = kept.parts.filter((part) => done.has(part.partNumber)).reduce((sum, part) => sum + part.size, 0);
      return { file, id: kept.id, parts: kept.parts, partSize: kept.partSize, done, sentBytes };
    });
    return new BundleUpload(
      session,
      { id: entry.bundleId, name: entry.bundleName, parentId: entry.parentId },
      files,
      entry.sessionId,
    );
  }

  protected override progressed(): void {
    void saveUpload(this.journalEntry()).catch(() => undefined);
  }

  /** Forgets the journal when done: a finalized upload has nothing left to resume. */
  override async run(): Promise<void> {
    await super.run();
    if (this.status === 'done') await forgetUpload(this.bundle.id).catch(() => undefined);
  }

  private journalEntry(): JournalEntry {
    return {
      bundleId: this.bundle.id,
      bundleName: this.bundle.name,
      parentId: this.bundle.parentId,
      sessionId: this.sessionId,
      files: this.files.map((entry) => ({
        name: entry.file.name,
        size: entry.file.size,
        lastModified: entry.file.lastModified,
        id: entry.id,
        partSize: entry.partSize,
        parts: entry.parts,
        done: [...entry.done],
      })),
    };
  }

  protected async open(): Promise<void> {
    const bundleId = this.bundle.id;
    if (!this.sessionId) {
      const opened = await ok(
        this.session.api.POST('/v1/bundles/{bundleId}/upload-sessions', { params: { path: { bundleId } } }),
      );
      this.sessionId = opened.id;
      this.progressed();
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
      targetInto(entry, added);
      this.progressed();
      this.changed();
    }
  }

  protected async finalize(): Promise<void> {
    const files = this.files.map((entry) => ({ id: entry.id as string, etag: fileEtag(entry) }));
    await ok(
      this.session.api.POST('/v1/bundles/{bundleId}/upload-sessions/{sessionId}/finalize', {
        params: { path: { bundleId: this.bundle.id, sessionId: this.sessionId as string } },
        body: { files },
      }),
    );
  }
}
