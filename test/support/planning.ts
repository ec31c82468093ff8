import { expect } from 'vitest';
import { type ApiResponse, type OrgFixture, snapshot } from './fixtures.js';
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

/** Sends a request that must be refused, checks its answer and that nothing was stored. */
export async function refusedPlanningRequest(
  t: TestPlatform,
  org: OrgFixture,
  send: () => Promise<ApiResponse>,
  status: number,
  error: string,
  message?: string | RegExp,
): Promise<ApiResponse> {
  const before = await planningSnapshot(t, org);
  const response = await send();
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ statusCode: status, error });
  if (message !== undefined) expect(response.body.message).toMatch(message);
  expect(await planningSnapshot(t, org)).toEqual(before);
  return response;
}

/** A planning project made from the bundle through the API; throws on anything but 201. */
export async function createProject(org: OrgFixture, bundleId: string, body: object = {}) {
  const response = await org.admin.post(`/v1/bundles/${bundleId}/project`, body);
  if (response.status !== 201) throw new Error(`project failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; name: string; parentId: string; defaultLayout: { id: string } };
}
