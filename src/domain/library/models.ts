import { validationError } from '../errors.js';
import { MAX_TAGS_PER_MODEL } from './tags.js';

/** The rules of asset library models (docs/design/asset-library.md#models, docs/asset-library.md). */

/** A model's description: up to this many characters (code points). */
export const MODEL_DESCRIPTION_MAX_LENGTH = 2000;

/** How long a signed download link of a model's original or preview works. */
export const MODEL_DOWNLOAD_LINK_SECONDS = 3600;

/** Where a model's bytes live: the original, and the preview and thumbnail the worker writes. */
export function libraryModelBlobPrefix(orgId: string, modelId: string): string {
  return `orgs/${orgId}/library/${modelId}/`;
}

export function libraryModelOriginalKey(orgId: string, modelId: string): string {
  return `${libraryModelBlobPrefix(orgId, modelId)}original`;
}

/**
 * Where the worker stores a model's preview and thumbnail: beside its original (in the folder of
 * `originalKey`), so removing the model's prefix removes them too.
 */
export function modelPreviewKeys(originalKey: string): { preview: string; thumbnail: string } {
  const prefix = originalKey.slice(0, originalKey.lastIndexOf('/') + 1);
  return { preview: `${prefix}preview.glb`, thumbnail: `${prefix}thumbnail.png` };
}

/**
 * The set of tags asked for a model: duplicates collapse (the order of first appearance kept);
 * more than MAX_TAGS_PER_MODEL distinct ids is 400 naming tagIds.
 */
export function distinctTagIds(tagIds: readonly string[]): string[] {
  const distinct = [...new Set(tagIds)];
  if (distinct.length > MAX_TAGS_PER_MODEL) {
    throw validationError(`body.tagIds: a model carries at most ${MAX_TAGS_PER_MODEL} tags (${distinct.length} given)`);
  }
  return distinct;
}

/** The file name a preview downloads under: the original's name with .glb for its extension. */
export function previewFileName(originalName: string): string {
  const dot = originalName.lastIndexOf('.');
  return `${dot > 0 ? originalName.slice(0, dot) : originalName}.preview.glb`;
}
