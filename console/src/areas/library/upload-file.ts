import { ok } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import { fileEtag, newUploadFile, PartUpload, targetInto, type UploadFile } from '../../transfer/part-upload.js';
import type { LibraryModel } from './library-types.js';

export interface ModelFields {
  name: string;
  description: string;
  tagIds: string[];
}

/**
 * A new library model's file, sent as bundle inputs are (transfer/part-upload.ts): the creation
 * reserves the size and answers where to PUT the bytes (parts for a large file), the upload can
 * be paused and resumed (only the parts not yet done go), then finalize checks the ETag and
 * reads the format.
 */
export class ModelUpload extends PartUpload {
  /** The model as finalize answered it, once done. */
  model: LibraryModel | undefined;
  private modelId: string | undefined;

  constructor(
    private readonly session: ConsoleSession,
    private readonly fields: ModelFields,
    file: File,
  ) {
    super([newUploadFile(file)]);
  }

  get file(): File {
    return this.entry.file;
  }

  /** Whether the model exists on the platform (created, its bytes reserved). */
  get created(): boolean {
    return this.modelId !== undefined;
  }

  private get entry(): UploadFile {
    return this.files[0] as UploadFile;
  }

  protected async open(): Promise<void> {
    if (this.modelId) return;
    const { file } = this.entry;
    const created = await ok(
      this.session.api.POST('/v1/asset-library/models', {
        body: { ...this.fields, fileName: file.name, size: file.size },
      }),
    );
    this.modelId = created.id;
    targetInto(this.entry, created);
    this.changed();
  }

  protected async finalize(): Promise<void> {
    this.model = await ok(
      this.session.api.POST('/v1/asset-library/models/{modelId}/finalize', {
        params: { path: { modelId: this.modelId as string } },
        body: { etag: fileEtag(this.entry) },
      }),
    );
  }
}
