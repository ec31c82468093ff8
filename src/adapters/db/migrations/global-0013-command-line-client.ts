import type { Kysely } from 'kysely';

/**
 * The platform's own native public client, which `rdp login` uses (domain/oauth/command-line-client.ts
 * says why). The values are written out: a migration keeps what it did when the constant moves on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = new Date().toISOString();
  await db
    .insertInto('oauth_applications')
    .values({
      client_id: 'rdp-cli',
      org_id: 'platform',
      name: 'rdp command line',
      flow: 'authorization-code',
      is_native: 1,
      redirect_uris: JSON.stringify(['http://127.0.0.1/callback']),
      secret_hash: null,
      scopes: 'read:basic read:hierarchy write:hierarchy',
      service_user_id: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}
