import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { newNodeRow } from '../../src/adapters/db/repositories/node-rows.js';
import type { GroupMemberRow, GroupRow, MembershipRow, NodeRow, RegionalSchema } from '../../src/adapters/db/schema.js';
import { adminService } from '../../src/composition/platform-services.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID } from '../../src/domain/people/roles.js';
import type { Platform } from '../../src/platform.js';
import type { AdminService } from '../../src/services/admin-service.js';
import { seededRandom } from '../../test/support/seeded-random.js';

/** An application's credentials and its service user. */
export interface BenchClient {
  clientId: string;
  clientSecret: string;
  userId: string;
}

/** What the permission-check benchmark asks about. */
export interface PermissionStore {
  orgId: string;
  /** A node 10 levels below the organization. */
  targetId: string;
  /** In 50 groups; one of them, given a role on the target's division, is its only way in. */
  user: BenchClient;
  /** Organization Administrator on the organization node, in no group. */
  admin: BenchClient;
  counts: { users: number; groups: number; groupMembers: number; groupMemberships: number };
}

export interface PermissionStoreSize {
  users: number;
  groups: number;
  groupMembers: number;
  divisions: number;
  sitesPerDivision: number;
}

export const FULL_SIZE: PermissionStoreSize = {
  users: 10_000,
  groups: 2_000,
  groupMembers: 100_000,
  divisions: 20,
  sitesPerDivision: 10,
};

const USER_GROUPS = 50;
const TARGET_DEPTH = 10;
const BATCH = 500;

async function insertBatches<Row>(rows: Row[], insert: (batch: Row[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH));
}

async function benchClient(admin: AdminService, orgId: string, name: string, scopes: string[]): Promise<BenchClient> {
  const app = await admin.createApplication({ orgId, name, flow: 'client-credentials', scopes });
  return { clientId: app.clientId, clientSecret: app.clientSecret as string, userId: app.serviceUserId as string };
}

/**
 * Seeds, directly in the stores and in a few transactions, an organization of `size.users`
 * people, `size.groups` groups with `size.groupMembers` members and one or two memberships on
 * nodes each, a tree of divisions and sites, and a chain of folders down to a node 10 levels deep.
 */
export async function seedPermissionStore(platform: Platform, size: PermissionStoreSize = FULL_SIZE): Promise<PermissionStore> {
  const admin = adminService(platform);
  const org = await admin.createOrganization({ name: 'Permission Bench Ltd', region: 'eu' });
  const roles = await admin.listRoles(org.id);
  const viewer = roles.find((role) => role.name === 'Viewer')?.id as string;
  const adminClient = await benchClient(admin, org.id, 'Bench admin', ['read:hierarchy']);
  await admin.grantMembership({ nodeId: org.id, principalId: adminClient.userId, roleId: ORGANIZATION_ADMINISTRATOR_ROLE_ID });
  const userClient = await benchClient(admin, org.id, 'Bench user', ['read:hierarchy']);

  const now = new Date().toISOString();
  const rand = seededRandom(5);
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)] as T;

  // People of the organization (global store).
  const people = Array.from({ length: size.users }, (_, i) => ({
    id: randomUUID(),
    email: `person-${i}@bench.example`,
    password_hash: null,
    first_name: 'Person',
    last_name: String(i),
    kind: 'user' as const,
    deactivated_at: null,
    tokens_not_before: null,
    created_at: now,
    updated_at: now,
  }));
  await platform.stores.global.db.transaction().execute(async (tx) => {
    await insertBatches(people, (batch) => tx.insertInto('users').values(batch).execute());
    const links = people.map((person) => ({
      user_id: person.id,
      org_id: org.id,
      is_admin: 0,
      deactivated_at: null,
      scim_external_id: null,
      created_at: now,
      updated_at: now,
    }));
    await insertBatches(links, (batch) => tx.insertInto('user_organizations').values(batch).execute());
  });

  // The tree: divisions of sites, and in the first division a chain of folders down to the target.
  const db = platform.region('eu').store.db as Kysely<RegionalSchema>;
  const root = (await platform.region('eu').nodes.findById(org.id)) as NodeRow;
  const nodes: NodeRow[] = [];
  const add = (parent: NodeRow, kind: string, name: string) => {
    const row = newNodeRow(parent, { kind, name, now, ...(kind === 'site' ? { address: '1 Bench Road' } : {}) });
    nodes.push(row);
    return row;
  };
  const divisions = Array.from({ length: size.divisions }, (_, d) => add(root, 'division', `Division ${d}`));
  const sitesOf = divisions.map((division, d) =>
    Array.from({ length: size.sitesPerDivision }, (_, s) => add(division, 'site', `Site ${d}-${s}`)),
  );
  let target = add(sitesOf[0]?.[0] as NodeRow, 'folder', 'Level 3');
  while (target.depth < TARGET_DEPTH) target = add(target, 'folder', `Level ${target.depth + 1}`);

  // Groups, mostly owned by a division, each with a membership or two inside its division.
  const groups: GroupRow[] = [];
  const memberships: MembershipRow[] = [];
  for (let g = 0; g < size.groups; g += 1) {
    const d = g % size.divisions;
    const orgWide = g % 10 === 9;
    const id = randomUUID();
    const name = `Group ${String(g).padStart(4, '0')}`;
    groups.push({
      id,
      org_id: org.id,
      name,
      name_key: name.toLowerCase(),
      division_id: orgWide ? null : (divisions[d] as NodeRow).id,
      scim_managed: 0,
      scim_external_id: null,
      saml_linked: 0,
      created_at: now,
      updated_at: now,
    });
    const places = new Set<string>([pick(sitesOf[d] as NodeRow[]).id]);
    if (rand() < 0.5) places.add(orgWide ? org.id : (divisions[d] as NodeRow).id);
    for (const nodeId of places)
      memberships.push({ node_id: nodeId, principal_id: id, principal_type: 'group', role_id: viewer, created_at: now });
  }
  // The benchmark user's groups: the first reaches the target through its division, high in the
  // tree; the other 49 are groups of other divisions (their memberships are checked, and miss).
  const entry = groups[0] as GroupRow;
  memberships.push({
    node_id: (divisions[0] as NodeRow).id,
    principal_id: entry.id,
    principal_type: 'group',
    role_id: viewer,
    created_at: now,
  });
  const elsewhere = groups.filter((group, g) => g % size.divisions !== 0 && group.division_id !== null);
  const userGroups = [entry, ...elsewhere.slice(0, USER_GROUPS - 1)];

  const seen = new Set<string>();
  const groupMembers: GroupMemberRow[] = [];
  const join = (groupId: string, userId: string) => {
    const key = `${groupId} ${userId}`;
    if (seen.has(key)) return;
    seen.add(key);
    groupMembers.push({ group_id: groupId, user_id: userId, created_at: now });
  };
  for (const group of userGroups) join(group.id, userClient.userId);
  while (groupMembers.length < size.groupMembers) join(pick(groups).id, pick(people).id);

  await db.transaction().execute(async (tx: Transaction<RegionalSchema>) => {
    await insertBatches(nodes, (batch) => tx.insertInto('nodes').values(batch).execute());
    await insertBatches(groups, (batch) => tx.insertInto('groups').values(batch).execute());
    await insertBatches(groupMembers, (batch) => tx.insertInto('group_members').values(batch).execute());
    await insertBatches(memberships, (batch) =>
      tx
        .insertInto('memberships')
        .values(batch)
        .onConflict((oc) => oc.columns(['node_id', 'principal_id']).doNothing())
        .execute(),
    );
  });
  return {
    orgId: org.id,
    targetId: target.id,
    user: userClient,
    admin: adminClient,
    counts: {
      users: people.length,
      groups: groups.length,
      groupMembers: groupMembers.length,
      groupMemberships: memberships.length,
    },
  };
}
