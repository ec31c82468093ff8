import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../scripts/openapi-document.js';
import type { ApiResponse, OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { createSite } from '../support/twins.js';
import { uploadBytes } from '../support/uploads.js';

type Document = { paths: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>> };

describe('a 201 answers where the created thing is', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  it('openapi.json declares a Location header on every 201', () => {
    const document = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as Document;
    const created = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.responses?.['201'])
        .map(([method, operation]) => ({ name: `${method} ${path}`, headers: operation.responses?.['201']?.headers })),
    );
    expect(created.length).toBeGreaterThan(20);
    const without = created.filter((operation) => !operation.headers?.Location).map((operation) => operation.name);
    expect(without).toEqual([]);
  });

  /** The Location of a 201, checked to lie under the region's base address; GET on it answers the same id. */
  async function followed(response: ApiResponse, path: string) {
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const location = response.headers.get('location');
    expect(location).toBe(`${t.regionUrl('eu')}${path}`);
    const read = await org.admin.get(path);
    expect(read.status).toBe(200);
    return read.body;
  }

  it('nodes, bundles, upload sessions, site files, groups, drafts, points of interest and embed sessions answer a Location that reads them', async () => {
    const division = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'North' });
    expect((await followed(division, `/v1/nodes/${division.body.id}`)).name).toBe('North');

    const siteId = await createSite(org);
    const bundle = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name: 'Scan' });
    expect((await followed(bundle, `/v1/nodes/${bundle.body.id}`)).id).toBe(bundle.body.id);
    const session = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
    const sessionPath = `/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}`;
    expect((await followed(session, sessionPath)).id).toBe(session.body.id);
    const file = await org.admin.post(`${sessionPath}/files`, { name: 'scan.laz', size: 10 });
    expect((await followed(file, sessionPath)).files.map((listed: { id: string }) => listed.id)).toEqual([file.body.id]);

    // A site file is read once it is finalized; its Location is where it is from the start.
    const bytes = Buffer.from('notes');
    const siteFile = await org.admin.post('/v1/site-files', { parentId: siteId, name: 'notes.txt', size: bytes.length });
    const { etag } = await uploadBytes(siteFile.body, bytes);
    expect((await org.admin.post(`/v1/site-files/${siteFile.body.id}/finalize`, { etag })).status).toBe(200);
    expect((await followed(siteFile, `/v1/site-files/${siteFile.body.id}`)).id).toBe(siteFile.body.id);

    const group = await org.admin.post('/v1/groups', { name: 'Surveyors' });
    expect((await followed(group, `/v1/groups/${group.body.id}`)).name).toBe('Surveyors');

    const draft = await org.admin.post(`/v1/twin/${siteId}/drafts`, { name: 'Pumps' });
    expect((await followed(draft, `/v1/twin/${draft.body.id}`)).id).toBeDefined();
    const poi = await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, { name: 'Pump', position: { x: 1, y: 2, z: 3 } });
    expect((await followed(poi, `/v1/twin/${siteId}/points-of-interest/${poi.body.id}`)).name).toBe('Pump');

    const embed = await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: ['https://app.example.com'] });
    expect((await followed(embed, `/v1/embed-sessions/${embed.body.id}`)).id).toBe(embed.body.id);
  });

  it('a custom role answers the address its PATCH and DELETE take', async () => {
    const role = await org.admin.post('/v1/roles', { name: 'Reviewer', permissions: ['read'] });
    expect(role.status).toBe(201);
    const location = role.headers.get('location') ?? '';
    expect(location).toBe(`${t.regionUrl('eu')}/v1/roles/${role.body.id}`);
    const renamed = await org.admin.patch(location.slice(t.regionUrl('eu').length), { name: 'Checker' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Checker');
  });
});
