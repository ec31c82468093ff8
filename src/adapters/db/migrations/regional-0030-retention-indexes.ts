import type { Kysely } from 'kysely';

/**
 * The housekeeper's retention (docs/operations.md, "Retention") deletes in bounded batches; each
 * batch finds its rows through one of these indexes instead of scanning the table:
 * uploads that passed their time (pending to expire, expired to remove), upload sessions by state
 * and expiry, finished webhook deliveries and events by age (and the deliveries of a page of
 * events, which the removal of events looks up), audit events by age across organizations.
 * (Embed sessions have theirs since regional-0022.)
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('stored_objects_state_expiry').on('stored_objects').columns(['state', 'expires_at']).execute();
  await db.schema.createIndex('upload_sessions_state_expiry').on('upload_sessions').columns(['state', 'expires_at']).execute();
  // Finished deliveries are those without a next attempt: both columns, so a batch reads its rows in order.
  await db.schema
    .createIndex('webhook_deliveries_finished')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'created_at'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
  await db.schema.createIndex('webhook_events_created').on('webhook_events').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('audit_events_occurred').on('audit_events').columns(['occurred_at', 'id']).execute();
}
