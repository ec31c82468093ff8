import type { Kysely } from 'kysely';

/**
 * People of an organization: deactivation and SCIM provisioning belong to a user's link with one
 * organization (a person may work for several); SCIM bearer tokens; the embedded mail outbox.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('user_organizations').addColumn('deactivated_at', 'text').execute();
  await db.schema.alterTable('user_organizations').addColumn('tokens_not_before', 'text').execute();
  await db.schema.alterTable('user_organizations').addColumn('scim_external_id', 'text').execute();
  await db.schema
    .alterTable('user_organizations')
    .addColumn('scim_managed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('user_organizations').addColumn('updated_at', 'text').execute();
  await db
    .updateTable('user_organizations')
    .set((eb) => ({ updated_at: eb.ref('created_at') }))
    .execute();

  await db.schema
    .createTable('scim_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('scim_tokens_org').on('scim_tokens').column('org_id').execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mail_outbox_created').on('mail_outbox').column('created_at').execute();
}
