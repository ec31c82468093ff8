import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/domain/access/permissions.js';
import { ApiClient, createTree, insertDataNode, link, type OrgFixture, snapshot } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** 255 characters (code points) each: ASCII, two-byte UTF-8, and astral emoji (two UTF-16 units). */
const LONGEST = ['n'.repeat(255), 'é'.repeat(255), '😀'.repeat(255), ` ${'x'.repeat(253)} `];
const INVALID = ['', 'n'.repeat(256), 'é'.repeat(256), '😀'.repeat(256)];

describe('node create, read and update', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    tree = await createTree(org);
  });

  const refused = refuser(() => snapshot(t, org));

  it('creates a division, a site and a folder and returns each full object', async () => {
    const division = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'East' });
    expect(division.status).toBe(201);
    expect(division.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'East',
      type: 'division',
      parentId: org.orgId,
      organizationId: org.orgId,
      createdAt: expect.stringMatching(ISO),
      updatedAt: division.body.createdAt,
      isProcessing: false,
      isFailed: false,
      trashedAt: null,
    });
    const site = await org.admin.post(`/v1/nodes/${division.body.id}/site`, { name: 'Plant', address: '2 Quay Road' });
    expect(site.status).toBe(201);
    expect(site.body).toMatchObject({ name: 'Plant', type: 'site', parentId: division.body.id, address: '2 Quay Road' });
    const folder = await org.admin.post(`/v1/nodes/${site.body.id}/folder`, { name: 'Scans' });
    expect(folder.status).toBe(201);
    expect(folder.body).toMatchObject({ name: 'Scans', type: 'folder', parentId: site.body.id });
    expect(folder.body).not.toHaveProperty('address');
    const topFolder = await org.admin.post(`/v1/nodes/${division.body.id}/folder`, { name: 'Shared' });
    expect(topFolder.status).toBe(201);

    for (const created of [division, site, folder]) {
      const read = await org.admin.get(`/v1/nodes/${created.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ ...created.body, derivatives: [], sources: [], permissions: [...PERMISSIONS] });
    }
  });

  it('creates divisions only under the organization and keeps the hierarchy rules', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      [tree.divisionId, 'division', { name: 'Nested division' }],
      [tree.siteId, 'division', { name: 'Division in site' }],
      [org.orgId, 'site', { name: 'Site at top', address: 'Nowhere' }],
      [org.orgId, 'folder', { name: 'Folder at top' }],
      [tree.siteId, 'site', { name: 'Site in site', address: 'Inside' }],
    ];
    for (const [parentId, kind, body] of cases) {
      await refused(() => org.admin.post(`/v1/nodes/${parentId}/${kind}`, body), 409, 'DoesNotMeetHierarchyConstraints');
    }
  });

  it('requires a site address', async () => {
    const response = await refused(
      () => org.admin.post(`/v1/nodes/${tree.divisionId}/site`, { name: 'No address' }),
      400,
      'ValidationError',
    );
    expect(response.body.message).toContain('address');
  });

  it('refuses an empty or over-long name or address and stores nothing', async () => {
    for (const value of INVALID) {
      const folder = await refused(
        () => org.admin.post(`/v1/nodes/${tree.siteId}/folder`, { name: value }),
        400,
        'ValidationError',
      );
      expect(folder.body.message).toContain('name');
      await refused(() => org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: value }), 400, 'ValidationError');
      await refused(() => org.admin.patch(`/v1/nodes/${tree.folderId}`, { name: value }), 400, 'ValidationError');
      const site = await refused(
        () => org.admin.post(`/v1/nodes/${tree.divisionId}/site`, { name: 'Site', address: value }),
        400,
        'ValidationError',
      );
      expect(site.body.message).toContain('address');
      await refused(() => org.admin.patch(`/v1/nodes/${tree.siteId}`, { address: value }), 400, 'ValidationError');
    }
  });

  it('stores a 255-character name and address exactly as given, never trimmed', async () => {
    for (const value of LONGEST) {
      const site = await org.admin.post(`/v1/nodes/${tree.divisionId}/site`, { name: value, address: value });
      expect(site.status).toBe(201);
      expect(site.body.name).toBe(value);
      expect(site.body.address).toBe(value);
      const read = await org.admin.get(`/v1/nodes/${site.body.id}`);
      expect(read.body.name).toBe(value);
      expect(read.body.address).toBe(value);
      const stored = await t.platform.regions[org.region].nodes.findById(site.body.id);
      expect(stored?.name).toBe(value);
      expect(stored?.address).toBe(value);

      const renamed = await org.admin.patch(`/v1/nodes/${tree.folderId}`, { name: value });
      expect(renamed.status).toBe(200);
      expect((await org.admin.get(`/v1/nodes/${tree.folderId}`)).body.name).toBe(value);
    }
  });

  it('renames a node and updates a site address', async () => {
    const before = (await org.admin.get(`/v1/nodes/${tree.siteId}`)).body;
    t.clock.advance(60_000);
    const renamed = await org.admin.patch(`/v1/nodes/${tree.siteId}`, { name: 'Renamed site' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: tree.siteId, name: 'Renamed site', address: before.address });
    expect(renamed.body.createdAt).toBe(before.createdAt);
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));

    const moved = await org.admin.patch(`/v1/nodes/${tree.siteId}`, { address: '10 New Street' });
    expect(moved.body).toMatchObject({ name: 'Renamed site', address: '10 New Street' });
    const both = await org.admin.patch(`/v1/nodes/${tree.siteId}`, { name: 'Site B', address: '11 New Street' });
    expect(both.body).toMatchObject({ name: 'Site B', address: '11 New Street' });
    const read = await org.admin.get(`/v1/nodes/${tree.siteId}`);
    expect(read.body).toMatchObject({ name: 'Site B', address: '11 New Street', updatedAt: both.body.updatedAt });
  });

  it('renames the organization everywhere it is named, api-info included', async () => {
    const renamed = await org.admin.patch(`/v1/nodes/${org.orgId}`, { name: 'Renamed Organization' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ type: 'organization', name: 'Renamed Organization' });
    const info = await new ApiClient(t.authUrl, org.admin.token).get('/oauth/api-info');
    expect(info.body.organization).toEqual({ id: org.orgId, name: 'Renamed Organization' });
  });

  it('refuses an address on a node that is not a site, and an empty update', async () => {
    for (const id of [tree.folderId, tree.divisionId]) {
      const response = await refused(() => org.admin.patch(`/v1/nodes/${id}`, { address: '1 Main St' }), 400, 'ValidationError');
      expect(response.body.message).toContain('address');
    }
    await refused(() => org.admin.patch(`/v1/nodes/${tree.folderId}`, {}), 400, 'ValidationError');
  });

  it('lists derivatives and sources on GET /v1/nodes/{nodeId}', async () => {
    const source = await insertDataNode(t, org, tree.siteId, { kind: 'dataBundle', name: 'Raw scan' });
    const derivative = await insertDataNode(t, org, tree.siteId, { kind: 'pointCloud', name: 'Cloud' });
    await link(t, org, 'derivative', source.id, derivative.id);
    const read = await org.admin.get(`/v1/nodes/${source.id}`);
    expect(read.body).toMatchObject({ type: 'dataBundle', derivatives: [{ id: derivative.id, name: 'Cloud' }], sources: [] });
    const back = await org.admin.get(`/v1/nodes/${derivative.id}`);
    expect(back.body).toMatchObject({ type: 'pointCloud', derivatives: [], sources: [{ id: source.id, name: 'Raw scan' }] });
  });

  it('browses children in case-insensitive name order, page by page', async () => {
    const parent = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'Paging' });
    for (const name of ['b', 'A', 'c', 'a2', 'B1']) {
      expect((await org.admin.post(`/v1/nodes/${parent.body.id}/folder`, { name })).status).toBe(201);
    }
    const all = await org.admin.get(`/v1/nodes/${parent.body.id}/browse`);
    const names = all.body.map((node: { name: string }) => node.name);
    expect(names).toEqual(['A', 'a2', 'b', 'B1', 'c']);
    const pages = [];
    for (let offset = 0; offset < 6; offset += 2) {
      const page = await org.admin.get(`/v1/nodes/${parent.body.id}/browse?limit=2&offset=${offset}`);
      expect(page.status).toBe(200);
      pages.push(page.body.map((node: { name: string }) => node.name));
    }
    expect(pages).toEqual([['A', 'a2'], ['b', 'B1'], ['c']]);
    expect((await org.admin.get(`/v1/nodes/${parent.body.id}/browse?offset=5`)).body).toEqual([]);

    const divisions = await org.admin.get(`/v1/nodes/${org.orgId}/browse`);
    expect(divisions.body.every((node: { type: string }) => node.type === 'division')).toBe(true);
  });
});
