import { randomUUID } from 'node:crypto';
import { newNodeRow } from '../../src/adapters/db/repositories/node-rows.js';
import type { NodeRow } from '../../src/adapters/db/schema.js';
import { adminService } from '../../src/composition/platform-services.js';
import { DATA_KINDS } from '../../src/domain/nodes/hierarchy.js';
import type { Platform } from '../../src/platform.js';
import type { BenchClient } from './permission-store.js';

const BATCH = 500;

/**
 * The browse benchmark's tree, through the store's own connection so that it is the same on
 * SQLite and PostgreSQL: a division of 10 sites of 500 nodes (folders of 49 data items), and a
 * site with the browsed folder of 20 data items. Returns the folder's id and the division's.
 */
export async function insertBrowseTree(platform: Platform, orgId: string): Promise<{ folderId: string; divisionId: string }> {
  const region = platform.region('eu');
  const root = (await region.nodes.findById(orgId)) as NodeRow;
  const now = new Date().toISOString();
  const rows: NodeRow[] = [];
  let serial = 0;
  const add = (parent: NodeRow, kind: string, name: string, address?: string) => {
    const row = newNodeRow(parent, { kind, name, now, address });
    rows.push(row);
    return row;
  };
  const item = (parent: NodeRow) => {
    serial += 1;
    return add(parent, DATA_KINDS[serial % DATA_KINDS.length] as string, `Capture ${String(serial).padStart(7, '0')}`);
  };
  const division = add(root, 'division', 'Infrastructure');
  for (let s = 0; s < 10; s += 1) {
    const site = add(division, 'site', `Depot ${s + 1}`, `${s + 1} Harbour Road`);
    let left = 499;
    for (let level = 1; left > 0; level += 1) {
      const folder = add(site, 'folder', `Level ${String(level).padStart(2, '0')}`);
      left -= 1;
      for (let i = 0; i < 49 && left > 0; i += 1, left -= 1) item(folder);
    }
  }
  const site = add(division, 'site', 'Central Station', '1 Station Avenue');
  const folder = add(site, 'folder', 'Survey 2024');
  for (let i = 0; i < 20; i += 1) item(folder);
  await region.store.db.transaction().execute(async (tx) => {
    for (let i = 0; i < rows.length; i += BATCH)
      await tx
        .insertInto('nodes')
        .values(rows.slice(i, i + BATCH))
        .execute();
  });
  return { folderId: folder.id, divisionId: division.id };
}

/**
 * The caller most callers are (issue 29): a service user, not an administrator, whose access
 * comes through a custom role ("Surveyor": read, download) given to a group ("Survey team") on
 * the division. Written in the store directly, as the permission benchmark's groups are.
 */
export async function insertGroupCaller(platform: Platform, orgId: string, divisionId: string): Promise<BenchClient> {
  const app = await adminService(platform).createApplication({
    orgId,
    name: 'Bench survey integration',
    flow: 'client-credentials',
    scopes: ['read:hierarchy'],
  });
  const userId = app.serviceUserId as string;
  const now = new Date().toISOString();
  const roleId = randomUUID();
  const groupId = randomUUID();
  await platform
    .region('eu')
    .store.db.transaction()
    .execute(async (tx) => {
      await tx
        .insertInto('roles')
        .values({
          org_id: orgId,
          id: roleId,
          name: 'Surveyor',
          name_key: 'surveyor',
          kind: 'custom',
          permissions: JSON.stringify(['read', 'download']),
          created_at: now,
          updated_at: now,
        })
        .execute();
      await tx
        .insertInto('groups')
        .values({
          id: groupId,
          org_id: orgId,
          name: 'Survey team',
          name_key: 'survey team',
          division_id: divisionId,
          scim_managed: 0,
          scim_external_id: null,
          saml_linked: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await tx.insertInto('group_members').values({ group_id: groupId, user_id: userId, created_at: now }).execute();
      await tx
        .insertInto('memberships')
        .values({ node_id: divisionId, principal_id: groupId, principal_type: 'group', role_id: roleId, created_at: now })
        .execute();
    });
  return { clientId: app.clientId, clientSecret: app.clientSecret as string, userId };
}
