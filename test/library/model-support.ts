import { randomUUID } from 'node:crypto';
import type { OrgFixture } from '../support/fixtures.js';
import type { TestPlatform } from '../support/platform.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const LIBRARY_SCOPES = 'read:basic read:assetlibrary write:assetlibrary download:assetlibrary';

/**
 * The model suites' platform: parts of 5 MiB (S3's least) so that a multipart upload is cheap,
 * uploads that expire after 10 minutes, and tokens that outlive the clock moves of the suites.
 */
export const LIBRARY_TEST_ENV = {
  RDP_UPLOAD_PART_SIZE_BYTES: String(5 * 1024 * 1024),
  RDP_UPLOAD_EXPIRY_SECONDS: '600',
  RDP_ACCESS_TOKEN_TTL_SECONDS: '86400',
};

/** A client with the library's scopes (download included unless given others) and a role on a node. */
export async function libraryClient(org: OrgFixture, roleName?: string, nodeId?: string, scopes = LIBRARY_SCOPES) {
  return org.serviceClient({ scopes, roleName, nodeId });
}

/** A name no other test uses. */
export function uniqueName(prefix = 'Tag') {
  return `${prefix} ${randomUUID().slice(0, 8)}`;
}

export function modelRow(t: TestPlatform, org: OrgFixture, id: string) {
  return t.platform.regions[org.region].store.db.selectFrom('library_models').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The rows a model write touches: the organization's models, tags, model-tag rows, audit trail and the deletion queue. */
export async function modelSnapshot(t: TestPlatform, org: OrgFixture) {
  const db = t.platform.regions[org.region].store.db;
  return {
    models: await db.selectFrom('library_models').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    tags: await db.selectFrom('library_tags').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    modelTags: await db
      .selectFrom('library_model_tags')
      .innerJoin('library_tags', 'library_tags.id', 'library_model_tags.tag_id')
      .selectAll('library_model_tags')
      .where('library_tags.org_id', '=', org.orgId)
      .orderBy('model_id')
      .orderBy('tag_id')
      .execute(),
    audit: await db.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    deletions: await db
      .selectFrom('blob_deletions')
      .select('blob_key')
      .where('blob_key', 'like', `orgs/${org.orgId}/%`)
      .orderBy('blob_key')
      .execute(),
  };
}
