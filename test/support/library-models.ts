import { randomUUID } from 'node:crypto';
import type { LibraryModelRow } from '../../src/adapters/db/schema.js';
import type { LibraryModelStatus } from '../../src/domain/records/regional.js';
import type { OrgFixture } from './fixtures.js';
import type { TestPlatform } from './platform.js';

/**
 * A model of the organization's asset library in the given status, written as a library_models
 * row in the platform's own database (no upload behind it). The only place tests make models this
 * way: once the library model routes are merged, this becomes the HTTP upload and finalize (and
 * the preview job for `ready`).
 */
export async function insertLibraryModel(
  t: TestPlatform,
  org: OrgFixture,
  { status = 'ready', name = 'Pump P-100' }: { status?: LibraryModelStatus; name?: string } = {},
): Promise<LibraryModelRow> {
  const now = t.clock.now().toISOString();
  const id = randomUUID();
  const finalized = status !== 'pendingUpload';
  const row: LibraryModelRow = {
    id,
    org_id: org.orgId,
    name,
    name_key: name.toLowerCase(),
    description: '',
    status,
    file_name: 'pump.glb',
    declared_bytes: 1024,
    reserved_bytes: finalized ? 0 : 1024,
    stored_bytes: finalized ? 1024 : null,
    blob_key: `library/${org.orgId}/${id}`,
    multipart_upload_id: null,
    upload_expires_at: finalized ? null : new Date(Date.parse(now) + 3_600_000).toISOString(),
    etag: finalized ? '"0123456789abcdef0123456789abcdef"' : null,
    format: finalized ? 'glb' : null,
    previewable: status === 'ready' ? 1 : 0,
    preview_unavailable_reason: status === 'processing' ? 'Processing' : null,
    preview_blob_key: null,
    preview_bytes: null,
    thumbnail_blob_key: null,
    thumbnail_bytes: null,
    failure_reason: status === 'failed' ? 'The model could not be read' : null,
    created_by: org.adminServiceUserId,
    updated_by: org.adminServiceUserId,
    created_at: now,
    updated_at: now,
    finalized_at: finalized ? now : null,
  };
  await t.platform.regions[org.region].store.db.insertInto('library_models').values(row).execute();
  return row;
}

/** Sets a model's status straight in the database (a model that stops being ready between a draft's write and its publish). */
export async function setLibraryModelStatus(t: TestPlatform, org: OrgFixture, id: string, status: LibraryModelStatus) {
  await t.platform.regions[org.region].store.db.updateTable('library_models').set({ status }).where('id', '=', id).execute();
}

/** Deletes a model's row straight in the database (as the library's delete will, once it exists). */
export async function deleteLibraryModel(t: TestPlatform, org: OrgFixture, id: string) {
  await t.platform.regions[org.region].store.db.deleteFrom('library_models').where('id', '=', id).execute();
}
