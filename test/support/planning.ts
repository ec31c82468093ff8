import { type OrgFixture, snapshot } from './fixtures.js';
import type { TestPlatform } from './platform.js';
import { twinSnapshot } from './twins.js';

/** Every row a planning write may touch: the tree and its links, layouts, placements, twin rows and the audit trail. */
export async function planningSnapshot(t: TestPlatform, org: OrgFixture) {
  const db = t.platform.regions[org.region].store.db;
  return {
    tree: await snapshot(t, org),
    twin: await twinSnapshot(t, org),
    layouts: await db.selectFrom('planning_layouts').selectAll().orderBy('id').execute(),
    modelAssets: await db.selectFrom('planning_model_assets').selectAll().orderBy('id').execute(),
  };
}

/** A planning project made from the bundle through the API; throws on anything but 201. */
export async function createProject(org: OrgFixture, bundleId: string, body: object = {}) {
  const response = await org.admin.post(`/v1/bundles/${bundleId}/project`, body);
  if (response.status !== 201) throw new Error(`project failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; name: string; parentId: string; defaultLayout: { id: string } };
}
