import type { Kysely } from 'kysely';

/**
 * An embed session's purpose (docs/embedding.md): `embed`, one made through POST
 * /v1/embed-sessions for an integrator's page, or `viewer`, the short one a signed-in reader's own
 * viewer takes (GET /v1/twin/{ctx}/iframe), which the list of a twin's sessions leaves out. The
 * sessions made before are counted as `embed`. The list reads a site's sessions by site.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('embed_sessions')
    .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('embed'))
    .execute();
  await db.schema.createIndex('embed_sessions_site').on('embed_sessions').columns(['site_id', 'created_at']).execute();
}
