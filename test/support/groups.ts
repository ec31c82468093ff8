import type { ApiClient, OrgFixture } from './fixtures.js';
import type { TestPlatform } from './platform.js';

/** Test helpers of the groups suite. */

function regionDb(t: TestPlatform, org: OrgFixture) {
  return t.platform.regions[org.region].store.db;
}

/** Every row a group request may write, for the organization: compare before and after a refused one. */
export async function groupSnapshot(t: TestPlatform, org: OrgFixture) {
  const db = regionDb(t, org);
  const groups = await db.selectFrom('groups').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute();
  const members = await db
    .selectFrom('group_members')
    .selectAll()
    .where('group_id', 'in', ['', ...groups.map((group) => group.id)])
    .orderBy('group_id')
    .orderBy('user_id')
    .execute();
  const memberships = await db.selectFrom('memberships').selectAll().orderBy('node_id').orderBy('principal_id').execute();
  const audit = await db.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute();
  return { groups, members, memberships, audit };
}

/** Sets flags the regional API does not set itself: SCIM management is the SCIM engineer's. */
export async function setGroupFlags(
  t: TestPlatform,
  org: OrgFixture,
  groupId: string,
  flags: { scim_managed?: number; saml_linked?: number },
) {
  await regionDb(t, org).updateTable('groups').set(flags).where('id', '=', groupId).execute();
}

/** The audit events of a target, oldest first. */
export async function auditOf(t: TestPlatform, org: OrgFixture, targetId: string) {
  const rows = await regionDb(t, org)
    .selectFrom('audit_events')
    .selectAll()
    .where('org_id', '=', org.orgId)
    .where('target_id', '=', targetId)
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

/** Creates a group through the API and returns its body; throws on anything but 201. */
export async function createGroup(client: ApiClient, name: string, divisionId?: string) {
  const response = await client.post('/v1/groups', divisionId === undefined ? { name } : { name, divisionId });
  if (response.status !== 201) throw new Error(`create group failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; name: string; divisionId: string | null };
}

export function put(client: ApiClient, path: string, body?: unknown) {
  return client.request('PUT', path, body);
}
