import { createNode, type OrgFixture } from './fixtures.js';
import type { TestPlatform } from './platform.js';

/** Every row a twin write may touch: twins, drafts, their changes, live objects, and the audit trail (a refusal's snapshot: refuser(() => twinSnapshot(t, org))). */
export async function twinSnapshot(t: TestPlatform, org: OrgFixture) {
  const db = t.platform.regions[org.region].store.db;
  return {
    twins: await db.selectFrom('twins').selectAll().orderBy('id').execute(),
    drafts: await db.selectFrom('twin_drafts').selectAll().orderBy('id').execute(),
    changes: await db.selectFrom('twin_draft_changes').selectAll().orderBy('id').execute(),
    objects: await db.selectFrom('twin_objects').selectAll().orderBy('id').execute(),
    audit: await db.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
  };
}

/** A new site (under a new division) and its id. */
export async function createSite(org: OrgFixture, name = 'Plant'): Promise<string> {
  const divisionId = await createNode(org, org.orgId, 'division', 'Division');
  return createNode(org, divisionId, 'site', name);
}

/** Opens a draft of the site's twin through the API; throws on anything but 201. */
export async function openDraft(
  org: OrgFixture,
  siteId: string,
  name = 'Draft',
): Promise<{ id: string; [key: string]: unknown }> {
  const response = await org.admin.post(`/v1/twin/${siteId}/drafts`, { name });
  if (response.status !== 201) throw new Error(`draft failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The audit events of one target, oldest first, details parsed. */
export async function auditOf(t: TestPlatform, org: OrgFixture, targetId: string) {
  const rows = await t.platform.regions[org.region].store.db
    .selectFrom('audit_events')
    .selectAll()
    .where('org_id', '=', org.orgId)
    .where('target_id', '=', targetId)
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}
