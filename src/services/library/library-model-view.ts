import type { ModelTag, ModelViewRow } from '../../adapters/db/repositories/library-model-repository.js';
import type { LibraryModelRow } from '../../adapters/db/schema.js';
import type { ModelFormat } from '../../domain/library/model-formats.js';

/** A signed, expiring address of one of a model's files. */
export interface DownloadLink {
  url: string;
  expiresAt: string;
}

export interface ModelDownloadLinks {
  original: DownloadLink;
  preview: DownloadLink | null;
}

/** A model as the API shows it (docs/design/asset-library.md#models). */
export interface LibraryModelView {
  id: string;
  name: string;
  description: string;
  status: LibraryModelRow['status'];
  file: { name: string; size: number; format: ModelFormat | null; etag: string | null };
  previewable: boolean;
  previewUnavailableReason: LibraryModelRow['preview_unavailable_reason'];
  thumbnailUrl: string | null;
  failureReason?: string;
  tags?: { id: string; name: string; color: string | null }[];
  downloadLinks?: ModelDownloadLinks | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export function libraryModelThumbnailUrl(apiUrl: string, modelId: string): string {
  return `${apiUrl}/v1/asset-library/models/${encodeURIComponent(modelId)}/thumbnail`;
}

/** The view of a row; `tags` and `downloadLinks` only when asked for (undefined leaves them out). */
export function libraryModelView(
  row: ModelViewRow,
  apiUrl: string,
  extras: { tags?: ModelTag[]; downloadLinks?: ModelDownloadLinks | null } = {},
): LibraryModelView {
  const view: LibraryModelView = {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    file: {
      name: row.file_name,
      size: Number(row.stored_bytes ?? row.declared_bytes),
      format: row.format as ModelFormat | null,
      etag: row.etag,
    },
    previewable: row.previewable === 1,
    previewUnavailableReason: row.preview_unavailable_reason,
    thumbnailUrl: row.thumbnail_blob_key ? libraryModelThumbnailUrl(apiUrl, row.id) : null,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.failure_reason !== null) view.failureReason = row.failure_reason;
  if (extras.tags) view.tags = extras.tags.map((tag) => ({ id: tag.id, name: tag.name, color: tag.color }));
  if (extras.downloadLinks !== undefined) view.downloadLinks = extras.downloadLinks;
  return view;
}
