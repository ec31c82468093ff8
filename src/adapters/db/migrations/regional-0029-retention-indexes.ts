import type { Kysely } from 'kysely';

/**
 * The housekeeper's retention (docs/operations.md, "Retention") deletes in bounded batches; each
 * batch finds its rows through one of these indexes instead of scanning the table:
 * uploads that passed their time (pending to expire, expired to remove), upload sessions by state
 * and expiry, webhook deliveries and events by age (and the deliveries of an event, which the
 * removal of events asks for each one), audit events by age across organizations.
 * (Embed sessions have theirs since regional-0022.)
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('stored_objects_state_expiry').on('stored_objects').columns(['state', 'expires_at']).execute();
  await db.schema.createIndex('upload_sessions_state_expiry').on('upload_sessions').columns(['state', 'expires_at']).execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').column('created_at').execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
  await db.schema.createIndex('webhook_events_created').on('webhook_events').column('created_at').execute();
  await db.schema.createIndex('audit_events_occurred').on('audit_events').columns(['occurred_at', 'id']).execute();
}
