import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { GlobalSchema, RegionalSchema } from '../../src/adapters/db/schema.js';
import type { Platform } from '../../src/platform.js';

const BATCH = 500;

async function inBatches<Row>(rows: Row[], write: (rows: Row[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

/**
 * The people lists of bench/lists.ts at depth: `count` each of groups (SCIM-managed organization
 * groups, so /v1/groups and SCIM /Groups both list them), custom roles, memberships on the
 * organization node (one per person, in the order they joined) and pending invitations, straight
 * in the stores, created one second apart and named in no order of creation.
 */
export async function seedPeopleLists(platform: Platform, orgId: string, count: number): Promise<void> {
  const region = platform.region('eu');
  const db = region.store.db as Kysely<RegionalSchema>;
  const global = platform.stores.global.db as Kysely<GlobalSchema>;
  const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
  const shuffled = (i: number) => ((i * 2654435761) % 4_294_967_296).toString(36).padStart(7, '0');
  const viewer = (await region.roles.list(orgId)).find((role) => role.name === 'Viewer')?.id as string;

  await inBatches(
    Array.from({ length: count }, (_, i) => {
      const name = `Group ${shuffled(i)} ${i}`;
      return {
        id: randomUUID(),
        org_id: orgId,
        name,
        name_key: name.toLowerCase(),
        division_id: null,
        scim_managed: 1,
        scim_external_id: null,
        saml_linked: 0,
        created_at: at(i),
        updated_at: at(i),
      };
    }),
    (rows) => db.insertInto('groups').values(rows).execute(),
  );
  await inBatches(
    Array.from({ length: count }, (_, i) => {
      const name = `Role ${shuffled(i)} ${i}`;
      return {
        id: randomUUID(),
        org_id: orgId,
        name,
        name_key: name.toLowerCase(),
        kind: 'custom' as const,
        permissions: '["read"]',
        created_at: at(i),
        updated_at: at(i),
      };
    }),
    (rows) => db.insertInto('roles').values(rows).execute(),
  );
  const people = await global
    .selectFrom('user_organizations')
    .select('user_id')
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .limit(count)
    .execute();
  await inBatches(
    people.map((person, i) => ({
      node_id: orgId,
      principal_id: person.user_id,
      principal_type: 'user' as const,
      role_id: viewer,
      created_at: at(i),
    })),
    (rows) => db.insertInto('memberships').values(rows).execute(),
  );
  const inviter = people[0]?.user_id as string;
  await inBatches(
    Array.from({ length: count }, (_, i) => ({
      id: randomUUID(),
      org_id: orgId,
      node_id: orgId,
      email: `invitee-${shuffled(i)}-${i}@bench.example`,
      role_id: viewer,
      state: 'pending' as const,
      token_hash: randomUUID(),
      invited_by: inviter,
      accepted_by: null,
      created_at: at(i),
      updated_at: at(i),
      accepted_at: null,
    })),
    (rows) => db.insertInto('invitations').values(rows).execute(),
  );
}
