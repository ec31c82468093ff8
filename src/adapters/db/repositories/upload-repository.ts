import { type ExpressionBuilder, type Kysely, sql, type Transaction } from 'kysely';
import type { Dialect } from '../database.js';
import type { BlobDeletionRow, RegionalSchema, StoredObjectRow, UploadSessionRow } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

export interface StoredBytes {
  bytes: number;
  etag: string;
  format: string | null;
  at: string;
}

/** What finalizing changes on a stored object's row: callers answer with `{ ...row, ...finalizedFields(stored) }`. */
export function finalizedFields(stored: StoredBytes) {
  return {
    state: 'finalized',
    reserved_bytes: 0,
    stored_bytes: stored.bytes,
    etag: stored.etag,
    format: stored.format,
    finalized_at: stored.at,
    multipart_upload_id: null,
  } satisfies Partial<StoredObjectRow>;
}

/**
 * The stored object of a processing's output: finalized at once (the worker wrote every byte
 * before), its key a prefix (the derivative's many files), its id the derivative node's.
 */
export function derivativeObjectRow(output: {
  id: string;
  orgId: string;
  name: string;
  bytes: number;
  blobPrefix: string;
  format: string;
  createdBy: string;
  at: string;
}): StoredObjectRow {
  return {
    id: output.id,
    org_id: output.orgId,
    purpose: 'derivative',
    node_id: output.id,
    parent_id: null,
    session_id: null,
    object_id: null,
    name: output.name,
    name_key: 'output',
    declared_bytes: output.bytes,
    reserved_bytes: 0,
    stored_bytes: output.bytes,
    blob_key: output.blobPrefix,
    multipart_upload_id: null,
    etag: null,
    format: output.format,
    state: 'finalized',
    created_by: output.createdBy,
    created_at: output.at,
    expires_at: output.at,
    finalized_at: output.at,
  };
}

/**
 * Stored objects (pending uploads and finalized bytes), upload sessions and the queue of blob
 * deletions of one region. Quota rules live in the services; this reads and writes rows.
 */
export class UploadRepository {
  constructor(
    readonly db: Kysely<RegionalSchema>,
    private readonly dialect: Dialect,
  ) {}

  async insertObject(tx: Db, row: StoredObjectRow): Promise<void> {
    await tx.insertInto('stored_objects').values(row).execute();
  }

  async findObject(id: string, db: Db = this.db): Promise<StoredObjectRow | undefined> {
    return db.selectFrom('stored_objects').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async objectsOfSession(sessionId: string, db: Db = this.db): Promise<StoredObjectRow[]> {
    return db
      .selectFrom('stored_objects')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Bytes reserved by uploads still pending and not expired: counted against the quota with the nodes' bytes. */
  async reservedBytes(tx: Db, orgId: string, now: string): Promise<number> {
    const row = await tx
      .selectFrom('stored_objects')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('reserved_bytes'), sql<number>`0`).as('bytes'))
      .where('org_id', '=', orgId)
      .where('state', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  /** A pending, unexpired upload of this name (as its key) into this parent or session. */
  async pendingNameTaken(tx: Db, parentId: string, nameKey: string, now: string, purpose: StoredObjectRow['purpose']) {
    const row = await tx
      .selectFrom('stored_objects')
      .select('id')
      .where('parent_id', '=', parentId)
      .where('name_key', '=', nameKey)
      .where('purpose', '=', purpose)
      .where('state', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A site file's identity is its parent and name: an active site file of the name, or one being uploaded. */
  async siteFileNameTaken(tx: Db, parentId: string, nameKey: string, now: string): Promise<boolean> {
    const existing = await tx
      .selectFrom('nodes')
      .select('id')
      .where('parent_id', '=', parentId)
      .where('name_key', '=', nameKey)
      .where('kind', '=', 'siteFile')
      .where('trashed_at', 'is', null)
      .executeTakeFirst();
    return existing !== undefined || this.pendingNameTaken(tx, parentId, nameKey, now, 'site-file');
  }

  /** An attachment's identity is its context, object and name: finalized, or pending and unexpired. */
  async attachmentNameTaken(tx: Db, contextId: string, objectId: string, nameKey: string, now: string): Promise<boolean> {
    const row = await tx
      .selectFrom('stored_objects')
      .select('id')
      .where('purpose', '=', 'attachment')
      .where('parent_id', '=', contextId)
      .where('object_id', '=', objectId)
      .where('name_key', '=', nameKey)
      .where((eb) => eb.or([eb('state', '=', 'finalized'), eb.and([eb('state', '=', 'pending'), eb('expires_at', '>', now)])]))
      .executeTakeFirst();
    return row !== undefined;
  }

  async attachmentsOf(contextId: string, objectId: string): Promise<StoredObjectRow[]> {
    return this.db
      .selectFrom('stored_objects')
      .selectAll()
      .where('purpose', '=', 'attachment')
      .where('parent_id', '=', contextId)
      .where('object_id', '=', objectId)
      .where('state', '=', 'finalized')
      .orderBy('name_key')
      .orderBy('id')
      .execute();
  }

  /** Marks a pending object finalized with what was stored; false when it was not pending (raced, expired). */
  async finalizeObject(tx: Db, id: string, stored: StoredBytes): Promise<boolean> {
    const result = await tx
      .updateTable('stored_objects')
      .set(finalizedFields(stored))
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async insertSession(tx: Db, row: UploadSessionRow): Promise<void> {
    await tx.insertInto('upload_sessions').values(row).execute();
  }

  async findSession(id: string, db: Db = this.db): Promise<UploadSessionRow | undefined> {
    return db.selectFrom('upload_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async openSessionOf(tx: Db, bundleId: string, now: string): Promise<UploadSessionRow | undefined> {
    return tx
      .selectFrom('upload_sessions')
      .selectAll()
      .where('bundle_id', '=', bundleId)
      .where('state', '=', 'open')
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  async finalizeSession(tx: Db, id: string, at: string): Promise<boolean> {
    const result = await tx
      .updateTable('upload_sessions')
      .set({ state: 'finalized', finalized_at: at })
      .where('id', '=', id)
      .where('state', '=', 'open')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Expires up to `limit` of what has passed its time: pending objects give their reservation back
   * and their bytes go to the deletion queue, with the multipart upload to abort; open sessions
   * close. Returns the number of rows expired (objects and sessions); the housekeeper repeats it
   * until none is left.
   */
  async expire(tx: Db, now: string, limit: number): Promise<number> {
    const expired = await tx
      .selectFrom('stored_objects')
      .select(['id', 'blob_key', 'multipart_upload_id'])
      .where('state', '=', 'pending')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    if (expired.length > 0) {
      const ids = expired.map((row) => row.id);
      await tx.updateTable('stored_objects').set({ state: 'expired', reserved_bytes: 0 }).where('id', 'in', ids).execute();
      const blobs = expired.map((row) => ({ key: row.blob_key, uploadId: row.multipart_upload_id }));
      await this.queueDeletions(tx, blobs, now);
    }
    const sessions = await tx
      .selectFrom('upload_sessions')
      .select('id')
      .where('state', '=', 'open')
      .where('expires_at', '<=', now)
      .limit(limit)
      .execute();
    if (sessions.length > 0) {
      const ids = sessions.map((row) => row.id);
      await tx
        .updateTable('upload_sessions')
        .set({ state: 'expired' })
        .where('id', 'in', ids)
        .where('state', '=', 'open')
        .execute();
    }
    return expired.length + sessions.length;
  }

  /**
   * Removes up to `limit` expired uploads and up to `limit` expired upload sessions whose time
   * ended before `cutoff`: ids found through the state and expiry indexes, then rows by primary
   * key. Their reservations were given back and their bytes queued when they expired (expire),
   * so only rows go. Returns the rows removed.
   */
  async deleteExpiredBefore(cutoff: string, limit: number): Promise<number> {
    const objects = await this.db
      .selectFrom('stored_objects')
      .select('id')
      .where('state', '=', 'expired')
      .where('expires_at', '<', cutoff)
      .limit(limit)
      .execute();
    const sessions = await this.db
      .selectFrom('upload_sessions')
      .select('id')
      .where('state', '=', 'expired')
      .where('expires_at', '<', cutoff)
      .limit(limit)
      .execute();
    let removed = 0;
    if (objects.length > 0) {
      const ids = objects.map((row) => row.id);
      removed += Number((await this.db.deleteFrom('stored_objects').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
    }
    if (sessions.length > 0) {
      const ids = sessions.map((row) => row.id);
      removed += Number((await this.db.deleteFrom('upload_sessions').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
    }
    return removed;
  }

  /** Queues bytes for the housekeeping: keys, prefixes (ending in "/"), and multipart uploads to abort. */
  async queueDeletions(tx: Db, blobs: { key: string; uploadId?: string | null }[], now: string): Promise<void> {
    if (blobs.length === 0) return;
    await tx
      .insertInto('blob_deletions')
      .values(blobs.map((blob) => ({ blob_key: blob.key, upload_id: blob.uploadId ?? null, requested_at: now })))
      .onConflict((oc) => oc.column('blob_key').doNothing())
      .execute();
  }

  /** The queue in order, `limit` at a time from after `after`, claimed or not (what an operator or a test sees). */
  async pendingDeletions(limit: number, after?: BlobDeletionRow): Promise<BlobDeletionRow[]> {
    let query = this.db.selectFrom('blob_deletions').selectAll().orderBy('requested_at').orderBy('blob_key').limit(limit);
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('requested_at', '>', after.requested_at),
          eb.and([eb('requested_at', '=', after.requested_at), eb('blob_key', '>', after.blob_key)]),
        ]),
      );
    }
    return query.execute();
  }

  /**
   * Claims up to `limit` entries of the queue, oldest first, for `owner` until `until`: entries
   * no one holds, or whose claim lapsed before `now` (its holder died). One statement, and the
   * condition is checked again on the row it updates, so two copies never both get an entry;
   * on PostgreSQL, rows another copy is claiming are skipped rather than waited for.
   */
  async claimDeletions(owner: string, limit: number, now: string, until: string): Promise<BlobDeletionRow[]> {
    const claimable = (eb: ExpressionBuilder<RegionalSchema, 'blob_deletions'>) =>
      eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]);
    const oldest = this.db
      .selectFrom('blob_deletions')
      .select('blob_key')
      .where(claimable)
      .orderBy('requested_at')
      .orderBy('blob_key')
      .limit(limit);
    const claimed = await this.db
      .updateTable('blob_deletions')
      .set({ claimed_by: owner, claimed_until: until })
      .where('blob_key', 'in', this.dialect === 'postgres' ? oldest.forUpdate().skipLocked() : oldest)
      .where(claimable)
      .returningAll()
      .execute();
    return claimed.sort((a, b) => a.requested_at.localeCompare(b.requested_at) || a.blob_key.localeCompare(b.blob_key));
  }

  /** Removes the entries done from the queue: only those `owner` still holds (a lapsed claim taken over is the new holder's). */
  async deletionsDone(owner: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.deleteFrom('blob_deletions').where('blob_key', 'in', keys).where('claimed_by', '=', owner).execute();
  }

  /** Gives back what `owner` holds and did not finish (its deletion failed): the next run tries again. */
  async releaseDeletions(owner: string): Promise<void> {
    await this.db
      .updateTable('blob_deletions')
      .set({ claimed_by: null, claimed_until: null })
      .where('claimed_by', '=', owner)
      .execute();
  }
}
