import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import { newNodeRow } from '../../src/adapters/db/repositories/node-rows.js';
import type { GlobalSchema, NodeRow, RegionalSchema, UserOrganizationRow, UserRow } from '../../src/adapters/db/schema.js';
import { adminService } from '../../src/composition/platform-services.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID } from '../../src/domain/people/roles.js';
import type { Platform } from '../../src/platform.js';
import type { AdminService } from '../../src/services/admin-service.js';
import type { BenchClient } from './permission-store.js';

/** What the list benchmark asks for. */
export interface ListStore {
  orgId: string;
  nodes: number;
  trashRoots: number;
  /** A folder of 120 children, in the first division (the group user reads it). */
  browseFolderId: string;
  /** Organization Administrator on the organization node. */
  admin: BenchClient;
  /** In 50 groups: two give Viewer on a division each (a fifth of the trash), the other 48 on one small site each elsewhere. */
  user: BenchClient;
  people: number;
  scimToken: string | undefined;
}

const DIVISIONS = 10;
const SITE_NODES = 1000;
const FOLDER_ITEMS = 49;
const BATCH = 1000;
/** The trash: whole folders (with their items) and single items, 5,000 entries in all. */
const TRASHED_FOLDERS = 500;
const TRASHED_ITEMS = 4500;
const GROUPS = 50;

/** Rows written in batches, in transactions of a few thousand rows each. */
class BatchWriter<Row> {
  private rows: Row[] = [];
  constructor(private readonly write: (rows: Row[]) => Promise<unknown>) {}
  async add(row: Row): Promise<void> {
    this.rows.push(row);
    if (this.rows.length >= BATCH) await this.flush();
  }
  async flush(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    if (rows.length) await this.write(rows);
  }
}

async function client(admin: AdminService, orgId: string, name: string, scopes: string[]): Promise<BenchClient> {
  const app = await admin.createApplication({ orgId, name, flow: 'client-credentials', scopes });
  return { clientId: app.clientId, clientSecret: app.clientSecret as string, userId: app.serviceUserId as string };
}

/**
 * An organization of `nodes` nodes straight in the stores: 10 divisions of sites of 1,000 nodes
 * (folders of 49 items), a trash of 5,000 entries spread evenly over the tree (500 folders with
 * their items, 4,500 single items, at scattered instants), a folder of 120 children to browse,
 * an administrator and a user whose access comes through groups; with `people`, that many
 * people in the organization and a SCIM token.
 */
export async function seedListStore(platform: Platform, nodes: number, people = 0): Promise<ListStore> {
  const admin = adminService(platform);
  const org = await admin.createOrganization({ name: 'List Bench Ltd', region: 'eu' });
  const viewer = (await admin.listRoles(org.id)).find((role) => role.name === 'Viewer')?.id as string;
  const adminClient = await client(admin, org.id, 'Bench admin', ['read:hierarchy', 'read:user', 'read:basic']);
  await admin.grantMembership({ nodeId: org.id, principalId: adminClient.userId, roleId: ORGANIZATION_ADMINISTRATOR_ROLE_ID });
  const userClient = await client(admin, org.id, 'Bench user', ['read:hierarchy']);

  const region = platform.region('eu');
  const db = region.store.db as Kysely<RegionalSchema>;
  const root = (await region.nodes.findById(org.id)) as NodeRow;
  const writer = new BatchWriter<NodeRow>((rows) => db.insertInto('nodes').values(rows).execute());
  const now = new Date().toISOString();
  let count = 1;
  let serial = 0;
  const add = async (parent: NodeRow, kind: string, name: string) => {
    const row = newNodeRow(parent, { kind, name, now, ...(kind === 'site' ? { address: '1 Bench Road' } : {}) });
    count += 1;
    await writer.add(row);
    return row;
  };
  // Scattered trash instants (a multiplicative hash of the entry's number): no order shared with the tree.
  let trashed = 0;
  const trashAt = () => new Date(Date.UTC(2026, 0, 1) + ((trashed++ * 2654435761) % 4_000_000_000)).toISOString();
  // Spread evenly over the tree: every folderEvery-th folder, and every itemEvery-th item of the
  // folders left (nearly all nodes are folders of 49 items).
  const folders = Math.floor(nodes / (FOLDER_ITEMS + 1));
  const folderEvery = Math.max(1, Math.floor(folders / TRASHED_FOLDERS));
  const itemsLeft = (folders - Math.min(TRASHED_FOLDERS, folders)) * FOLDER_ITEMS;
  const itemEvery = Math.max(1, Math.floor(itemsLeft / TRASHED_ITEMS));
  let trashedFolders = 0;
  let trashedItems = 0;
  let folderNumber = 0;
  let eligibleItems = 0;

  const divisions: NodeRow[] = [];
  for (let d = 0; d < DIVISIONS; d += 1) divisions.push(await add(root, 'division', `Division ${d}`));
  // Where the user's 48 other groups hold their roles: small sites without trash, so that the
  // user reads a fifth of the trash (divisions 0 and 1) whatever the organization's size.
  const groupSites: NodeRow[] = [];
  for (let g = 2; g < GROUPS; g += 1) {
    const site = await add(divisions[2 + (g % (DIVISIONS - 2))] as NodeRow, 'site', `Team site ${g}`);
    await add(site, 'folder', 'Drawings');
    groupSites.push(site);
  }
  const browseSite = await add(divisions[0] as NodeRow, 'site', 'Browse site');
  const browseFolder = await add(browseSite, 'folder', 'Browse folder');
  for (let i = 0; i < 120; i += 1) await add(browseFolder, 'pointCloud', `Scan ${String(i).padStart(3, '0')}`);

  for (let s = 0; count < nodes; s += 1) {
    const d = s % DIVISIONS;
    const site = await add(divisions[d] as NodeRow, 'site', `Site ${s}`);
    for (let level = 1, left = Math.min(SITE_NODES, nodes - count) - 1; left > 0; level += 1) {
      const folder = newNodeRow(site, { kind: 'folder', name: `Level ${level}`, now });
      folderNumber += 1;
      const trashFolder = folderNumber % folderEvery === 0 && trashedFolders < TRASHED_FOLDERS;
      if (trashFolder) {
        trashedFolders += 1;
        Object.assign(folder, { trashed_at: trashAt(), trash_root_id: folder.id });
      }
      count += 1;
      await writer.add(folder);
      left -= 1;
      for (let i = 0; i < FOLDER_ITEMS && left > 0; i += 1, left -= 1) {
        serial += 1;
        const item = newNodeRow(folder, { kind: 'pointCloud', name: `Scan ${level} ${serial}`, now });
        if (trashFolder) Object.assign(item, { trashed_at: folder.trashed_at, trash_root_id: folder.id });
        else if (++eligibleItems % itemEvery === 0 && trashedItems < TRASHED_ITEMS) {
          trashedItems += 1;
          Object.assign(item, { trashed_at: trashAt(), trash_root_id: item.id });
        }
        count += 1;
        await writer.add(item);
      }
    }
  }
  await writer.flush();

  // The user's groups: Viewer on divisions 0 and 1, and one site each in the other divisions.
  for (let g = 0; g < GROUPS; g += 1) {
    const id = randomUUID();
    const name = `Group ${g}`;
    await db
      .insertInto('groups')
      .values({
        id,
        org_id: org.id,
        name,
        name_key: name.toLowerCase(),
        division_id: null,
        scim_managed: 0,
        scim_external_id: null,
        saml_linked: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db.insertInto('group_members').values({ group_id: id, user_id: userClient.userId, created_at: now }).execute();
    const node = g < 2 ? (divisions[g] as NodeRow) : (groupSites[g - 2] as NodeRow);
    await db
      .insertInto('memberships')
      .values({ node_id: node.id, principal_id: id, principal_type: 'group', role_id: viewer, created_at: now })
      .execute();
  }

  let scimToken: string | undefined;
  if (people > 0) {
    await seedPeople(platform.stores.global.db as Kysely<GlobalSchema>, org.id, people);
    scimToken = (await admin.createScimToken({ orgId: org.id, name: 'Bench IdP' })).token;
  }
  return {
    orgId: org.id,
    nodes: count,
    trashRoots: trashedFolders + trashedItems,
    browseFolderId: browseFolder.id,
    admin: adminClient,
    user: userClient,
    people,
    scimToken,
  };
}

/** People of the organization, joined one second apart, e-mail addresses in no order of joining. */
async function seedPeople(db: Kysely<GlobalSchema>, orgId: string, people: number): Promise<void> {
  const users = new BatchWriter<UserRow>((rows) => db.insertInto('users').values(rows).execute());
  const places = new BatchWriter<Insertable<UserOrganizationRow>>((rows) =>
    db.insertInto('user_organizations').values(rows).execute(),
  );
  for (let i = 0; i < people; i += 1) {
    const id = randomUUID();
    const joined = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
    await users.add({
      id,
      email: `${id.slice(0, 8)}-${i}@bench.example`,
      password_hash: null,
      first_name: 'Person',
      last_name: String(i),
      kind: 'user',
      deactivated_at: null,
      tokens_not_before: null,
      created_at: joined,
      updated_at: joined,
    });
    await places.add({
      user_id: id,
      org_id: orgId,
      is_admin: 0,
      deactivated_at: null,
      tokens_not_before: joined,
      scim_external_id: null,
      scim_managed: 0,
      created_at: joined,
      updated_at: joined,
    });
  }
  await users.flush();
  await places.flush();
}
