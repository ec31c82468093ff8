import type { Schema } from '@reality-data-platform/sdk/browser';

export type LibraryModel = Schema<'LibraryModel'>;
export type LibraryTag = Schema<'LibraryTag'>;
export type ModelAsset = Schema<'ModelAsset'>;
export type ModelStatus = LibraryModel['status'];

/** A model's state in words, as the person reads it on the list and on its screen. */
export const STATUS_WORDS: Record<ModelStatus, string> = {
  pendingUpload: 'Waiting for its file',
  processing: 'Making its preview',
  ready: 'Ready',
  failed: 'Preview failed',
};

/** Whether a preview is (or will be) made, and why not, in words. */
export function previewWords(model: LibraryModel): string {
  if (model.status === 'pendingUpload') return 'Its file is not uploaded yet.';
  if (model.status === 'failed') return `No preview: ${model.failureReason ?? 'the preview could not be made.'}`;
  switch (model.previewUnavailableReason) {
    case 'Processing':
      return 'The preview and thumbnail are being made.';
    case 'OriginalTooLarge':
      return 'No preview: the file is larger than the 200 MB a preview is made of.';
    case 'UnsupportedFormat':
      return `No preview: ${formatName(model)} files are stored as they are, without a preview (previews are made of glTF, GLB, OBJ, STL and PLY).`;
    default:
      return model.previewable ? 'Previewable: a preview and a thumbnail were made.' : 'No preview.';
  }
}

export function formatName(model: LibraryModel): string {
  return model.file.format ? model.file.format.toUpperCase() : 'Unknown format';
}

/** Models in these states change on their own (the upload, the worker): their screen watches them. */
export function isSettled(model: LibraryModel): boolean {
  return model.status === 'ready' || model.status === 'failed';
}

export function modelHref(model: { id: string }): string {
  return `/library/models/${model.id}`;
}
