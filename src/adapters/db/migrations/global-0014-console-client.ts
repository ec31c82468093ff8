import type { Kysely } from 'kysely';

/**
 * The platform's web console as a public web client (domain/oauth/console-client.ts says why its
 * redirect address is relative). The values are written out: a migration keeps what it did when
 * the constant moves on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = new Date().toISOString();
  await db
    .insertInto('oauth_applications')
    .values({
      client_id: 'rdp-console',
      org_id: 'platform',
      name: 'Reality Data Platform console',
      flow: 'authorization-code',
      is_native: 0,
      redirect_uris: JSON.stringify(['/console/callback']),
      secret_hash: null,
      scopes:
        'read:basic read:user write:user read:hierarchy write:hierarchy read:assetlibrary write:assetlibrary download:assetlibrary read:webhooks write:webhooks',
      service_user_id: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}
