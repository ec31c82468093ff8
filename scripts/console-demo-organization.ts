import { readFile } from 'node:fs/promises';
import type { ApiClient, ApiResponse, OrgFixture } from '../test/support/fixtures.js';
import { createNode, createOrg } from '../test/support/fixtures.js';
import { boxGlb, boxObj } from '../test/support/model-samples.js';
import { PASSWORD } from '../test/support/oauth-flow.js';
import { processedPointCloud } from '../test/support/processed-point-cloud.js';
import type { TestPlatform } from '../test/support/start-platform.js';
import { SCAN_STATION } from '../test/support/terrestrial-scan.js';
import { uploadBytes } from '../test/support/uploads.js';
import { seedComparison } from './console-demo-comparison.js';

/** What the screenshots open: the ids of the seeded things, and the person who signs in. */
export interface DemoOrganization {
  org: OrgFixture;
  administrator: { email: string; password: string };
  divisionId: string;
  siteId: string;
  bundleId: string;
  /** A site whose twin shows a comparison of two scans of its deck as a heat map, and that comparison. */
  pierId: string;
  comparisonId: string;
  modelId: string;
  groupId: string;
}

/** The answer, or an error naming the request: a seed that half works would only show broken screens. */
async function ok(request: Promise<ApiResponse>, what: string): Promise<any> {
  const response = await request;
  if (response.status >= 300) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A point of the sample scan's twin, in metres from its station (the scan's coordinates are UTM). */
const nearStation = (x: number, y: number, z: number) => ({
  x: SCAN_STATION.x + x,
  y: SCAN_STATION.y + y,
  z: SCAN_STATION.z + z,
});

/**
 * A believable organization, seeded through the public API (and the admin service where the API
 * has no route: the organization and its people): divisions and sites, a processed scan that is
 * a site's twin layer, points of interest, nested zones and metadata, a draft, a comparison of
 * two scans of another site shown in its twin, library models
 * with previews, a group, an invitation; the audit trail records the writes.
 */
export async function seedDemoOrganization(t: TestPlatform): Promise<DemoOrganization> {
  const org = await createOrg(t, {
    name: 'Nordhafen Energy',
    storageQuota: 2 * 1024 ** 3,
    adminApplicationName: 'Survey data import',
  });
  const api = org.admin;
  const person = async (firstName: string, lastName: string, role?: string) => {
    const email = `${firstName}.${lastName}@nordhafen.example`.toLowerCase();
    const user = await t.admin.createUser({ email, password: PASSWORD, firstName, lastName, orgId: org.orgId });
    if (role) await t.admin.grantMembership({ nodeId: org.orgId, principalId: user.id, roleId: org.roles[role] as string });
    return { id: user.id, email, password: PASSWORD };
  };
  const administrator = await person('Maria', 'Keller', 'Organization Administrator');
  const jonas = await person('Jonas', 'Weber', 'Organization Reader');
  const amira = await person('Amira', 'Haddad');
  const tomasz = await person('Tomasz', 'Nowak');

  const north = await createNode(org, org.orgId, 'division', 'North Sea terminals');
  const inland = await createNode(org, org.orgId, 'division', 'Inland plants');
  const site = await ok(
    api.post(`/v1/nodes/${north}/site`, { name: 'Bremerhaven quay', address: 'Am Containerterminal 1, 27568 Bremerhaven' }),
    'the site',
  );
  const siteId = site.id as string;
  const pier = await ok(
    api.post(`/v1/nodes/${north}/site`, { name: 'Cuxhaven pier', address: 'Neue Industriestraße 4, Cuxhaven' }),
    'a site',
  );
  await ok(api.post(`/v1/nodes/${inland}/site`, { name: 'Hanover substation', address: 'Hafenstraße 12, Hanover' }), 'a site');
  await ok(api.post(`/v1/nodes/${inland}/site`, { name: 'Kassel works', address: 'Sandershäuser Str. 30, Kassel' }), 'a site');
  await createNode(org, siteId, 'folder', 'Drawings');
  await createNode(org, siteId, 'folder', 'Inspection photos');

  // The sample scan, processed by the worker, is the site's twin layer.
  const scan = { name: 'sample-scan.laz', bytes: await readFile(new URL('../examples/sample-scan.laz', import.meta.url)) };
  const { bundleId, derivativeId } = await processedPointCloud(org, siteId, scan);
  await ok(api.patch(`/v1/nodes/${bundleId}`, { name: 'Quay scan, station 1' }), 'the bundle rename');
  await ok(api.patch(`/v1/nodes/${derivativeId}`, { name: 'Quay scan, station 1 (point cloud)' }), 'the point cloud rename');
  await ok(api.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`), 'the twin layer');

  const equipment = await ok(
    api.post('/v1/metadata-types', {
      name: 'Equipment',
      appliesTo: ['pointOfInterest', 'zone'],
      properties: [
        { section: 'Maintenance', name: 'Serial number', type: 'shortText', required: false },
        { section: 'Maintenance', name: 'Power', type: 'number', unit: 'kW', required: false },
      ],
    }),
    'the metadata type',
  );
  const twin = `/v1/twin/${siteId}`;
  const box = (x: number, y: number, size: number) => ({
    boxes: [{ center: nearStation(x, y, 2), size: { x: size, y: size, z: 6 }, rotation: { x: 0, y: 0, z: 0, w: 1 } }],
  });
  const yard = await ok(api.post(`${twin}/zones`, { name: 'Container yard', volume: box(0, 0, 30) }), 'a zone');
  await ok(api.post(`${twin}/zones`, { name: 'Reefer block A', volume: box(-6, 4, 8), parentZoneId: yard.id }), 'a zone');
  await ok(api.post(`${twin}/zones`, { name: 'Quay wall', volume: box(20, -10, 10), metadataTypeId: equipment.id }), 'a zone');
  const poi = (name: string, position: ReturnType<typeof nearStation>) =>
    ok(api.post(`${twin}/points-of-interest`, { name, position, metadataTypeId: equipment.id }), `the point ${name}`);
  const pump = await poi('Pump P-101', nearStation(9, 5, -0.8));
  await poi('Crane C-3', nearStation(-30, 24, 12));
  await poi('Gate 4', nearStation(28, -30, 1));
  await ok(
    api.patch(`${twin}/object/${pump.id}/metadata`, { sections: { Maintenance: { 'Serial number': 'SN-4711', Power: 7.5 } } }),
    'the pump metadata',
  );
  await ok(api.post(`${twin}/drafts`, { name: 'New bollards on berth 2' }), 'the draft');

  const comparisonId = await seedComparison(org, pier.id);
  const modelId = await seedLibrary(org);

  const group = await ok(api.post('/v1/groups', { name: 'Survey team', divisionId: north }), 'the group');
  for (const member of [amira, tomasz]) await ok(api.request('PUT', `/v1/groups/${group.id}/users/${member.id}`), 'a member');
  await ok(
    api.request('PUT', `/v1/nodes/${north}/memberships/${group.id}`, { roleId: org.roles.Contributor ?? org.roles.Viewer }),
    'the group role',
  );
  await ok(api.request('PUT', `/v1/nodes/${siteId}/memberships/${jonas.id}`, { roleId: org.roles.Viewer }), 'a role');
  await ok(api.post('/v1/invitations', { email: 'lena.hoffmann@nordhafen.example', roleId: org.roles.Viewer }), 'the invitation');

  return { org, administrator, divisionId: north, siteId, bundleId, pierId: pier.id, comparisonId, modelId, groupId: group.id };
}

/** Two models with tags, uploaded as files and previewed by the worker; answers the first one's id once both are ready. */
async function seedLibrary(org: OrgFixture): Promise<string> {
  const { client: library } = await org.serviceClient({
    scopes: 'read:basic read:assetlibrary write:assetlibrary',
    roleName: 'Organization Administrator',
    name: 'Catalogue import',
  });
  const tag = async (name: string) => (await ok(library.post('/v1/asset-library/tags', { name }), 'a tag')).id as string;
  const [pumps, housings, valves] = [await tag('Pumps'), await tag('Housings'), await tag('Valves')];
  const pump = await uploadModel(library, 'Pump housing PH-40', 'pump-housing.glb', await boxGlb(), [pumps, housings]);
  const valve = await uploadModel(library, 'Valve body DN100', 'valve-body.obj', Buffer.from(boxObj()), [valves]);
  for (const id of [pump, valve]) await readyModel(library, id);
  return pump;
}

async function uploadModel(library: ApiClient, name: string, fileName: string, bytes: Buffer, tagIds: string[]) {
  const description = `${name}, from the manufacturer's catalogue.`;
  const created = await ok(
    library.post('/v1/asset-library/models', { name, description, fileName, size: bytes.length, tagIds }),
    'a model',
  );
  const { etag } = await uploadBytes(created, bytes);
  await ok(library.post(`/v1/asset-library/models/${created.id}/finalize`, { etag: `"${etag}"` }), 'a model finalize');
  return created.id as string;
}

async function readyModel(library: ApiClient, id: string) {
  const since = Date.now();
  for (;;) {
    const model = await ok(library.get(`/v1/asset-library/models/${id}`), 'a model');
    if (model.status === 'ready') return;
    if (model.status === 'failed') throw new Error(`the preview of ${model.name} failed: ${JSON.stringify(model)}`);
    if (Date.now() - since > 60_000) throw new Error(`the preview of ${model.name} did not end within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
