import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture, snapshot } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/**
 * North (division)
 *   Harbour Site (site) > Scan 100% , Scan_A , ScanXA , scan 100 percent , Back\slash , École
 *   Shared Scans (folder)
 * South (division)
 *   Hill Site (site) > Scan South
 */
describe('GET /v1/nodes/search', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  const ids: Record<string, string> = {};

  async function create(parentId: string, kind: string, name: string, address?: string) {
    const response = await org.admin.post(`/v1/nodes/${parentId}/${kind}`, address ? { name, address } : { name });
    expect(response.status).toBe(201);
    ids[name] = response.body.id;
    return response.body.id as string;
  }

  /** Names found, sorted as the API sorts (case-insensitive name). */
  async function names(query: string, client = org.admin): Promise<string[]> {
    const response = await client.get(`/v1/nodes/search?${query}`);
    expect(response.status, query).toBe(200);
    return response.body.map((node: { name: string }) => node.name);
  }

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    const north = await create(org.orgId, 'division', 'North');
    const harbour = await create(north, 'site', 'Harbour Site', '1 Dock Road');
    for (const name of ['Scan 100%', 'Scan_A', 'ScanXA', 'scan 100 percent', 'Back\\slash', 'École']) {
      await create(harbour, 'folder', name);
    }
    await create(north, 'folder', 'Shared Scans');
    const south = await create(org.orgId, 'division', 'South');
    const hill = await create(south, 'site', 'Hill Site', '2 Hill Road');
    await create(hill, 'folder', 'Scan South');
  });

  it('matches contains by default, case-insensitively', async () => {
    // Name order is by code point of the lower-cased name: ' ' sorts before '%'.
    expect(await names('searchNameQuery=SCAN')).toEqual([
      'scan 100 percent',
      'Scan 100%',
      'Scan South',
      'Scan_A',
      'ScanXA',
      'Shared Scans',
    ]);
    expect(await names('searchNameQuery=site&searchNameMatch=contains')).toEqual(['Harbour Site', 'Hill Site']);
    expect(await names('searchNameQuery=école')).toEqual(['École']);
  });

  it('matches startsWith and exact, case-insensitively', async () => {
    expect(await names('searchNameQuery=har&searchNameMatch=startsWith')).toEqual(['Harbour Site']);
    expect(await names('searchNameQuery=SCAN%20S&searchNameMatch=startsWith')).toEqual(['Scan South']);
    expect(await names('searchNameQuery=harbour%20site&searchNameMatch=exact')).toEqual(['Harbour Site']);
    expect(await names('searchNameQuery=harbour&searchNameMatch=exact')).toEqual([]);
  });

  it('still accepts the earlier names nameQuery and nameMatch', async () => {
    expect(await names('nameQuery=hill&nameMatch=startsWith')).toEqual(['Hill Site']);
    expect(await names('nameQuery=north&nameMatch=exact')).toEqual(['North']);
    // The current name wins when both are given.
    expect(await names('searchNameQuery=south&nameQuery=north&searchNameMatch=exact')).toEqual(['South']);
  });

  it('matches LIKE wildcards and backslashes literally', async () => {
    expect(await names('searchNameQuery=100%25')).toEqual(['Scan 100%']);
    expect(await names('searchNameQuery=n_a')).toEqual(['Scan_A']);
    expect(await names('searchNameQuery=scan_&searchNameMatch=startsWith')).toEqual(['Scan_A']);
    expect(await names('searchNameQuery=%25&searchNameMatch=exact')).toEqual([]);
    expect(await names('searchNameQuery=_')).toEqual(['Scan_A']);
    expect(await names('searchNameQuery=%5C')).toEqual(['Back\\slash']);
    expect(await names('searchNameQuery=k%5Cs&searchNameMatch=contains')).toEqual(['Back\\slash']);
  });

  it('filters by type and by subtree', async () => {
    expect(await names('type=site')).toEqual(['Harbour Site', 'Hill Site']);
    expect(await names('type=division&type=site')).toEqual(['Harbour Site', 'Hill Site', 'North', 'South']);
    expect(await names(`searchNameQuery=scan&underNodeId=${ids.South}`)).toEqual(['Scan South']);
    expect(await names(`searchNameQuery=scan&type=folder&underNodeId=${ids.North}`)).toEqual([
      'scan 100 percent',
      'Scan 100%',
      'Scan_A',
      'ScanXA',
      'Shared Scans',
    ]);
    // The subtree root itself is part of its subtree.
    expect(await names(`searchNameQuery=hill&underNodeId=${ids['Hill Site']}`)).toEqual(['Hill Site']);
    const missing = await org.admin.get(`/v1/nodes/search?underNodeId=${randomUUID()}`);
    expect(missing.status).toBe(404);
  });

  it('leaves trashed nodes out unless includeTrashed or includeDeleted asks for them', async () => {
    const id = await create(ids['Hill Site'] as string, 'folder', 'Doomed scan');
    expect((await org.admin.delete(`/v1/nodes/${id}`)).status).toBe(204);
    expect(await names('searchNameQuery=doomed')).toEqual([]);
    expect(await names('searchNameQuery=doomed&includeTrashed=true')).toEqual(['Doomed scan']);
    expect(await names('searchNameQuery=doomed&includeDeleted=true')).toEqual(['Doomed scan']);
    expect(await names('searchNameQuery=doomed&includeDeleted=false')).toEqual([]);
  });

  it('pages with limit and offset', async () => {
    const all = await names('searchNameQuery=scan');
    const pages = [...(await names('searchNameQuery=scan&limit=4')), ...(await names('searchNameQuery=scan&limit=4&offset=4'))];
    expect(pages).toEqual(all);
    expect(await names('searchNameQuery=scan&limit=4&offset=100')).toEqual([]);
  });

  it('returns only nodes the caller may read', async () => {
    const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: ids['Hill Site'] as string });
    expect(await names('searchNameQuery=scan', viewer.client)).toEqual(['Scan South']);
    expect(await names('type=site', viewer.client)).toEqual(['Hill Site']);
    const forbidden = await viewer.client.get(`/v1/nodes/search?underNodeId=${ids.North}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toBe('Forbidden resource');

    const stranger = await org.serviceClient();
    expect(await names('searchNameQuery=scan', stranger.client)).toEqual([]);
    const other = await createOrg(t);
    expect(await names('searchNameQuery=scan', other.admin)).toEqual([]);
  });

  it('refuses unknown match modes and parameters with 400, storing nothing', async () => {
    const before = await snapshot(t, org);
    for (const query of ['searchNameMatch=fuzzy', 'nameMatch=regex', 'type=galaxy', 'limit=0', 'orderBy=name']) {
      const response = await org.admin.get(`/v1/nodes/search?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body).toMatchObject({ statusCode: 400, error: 'ValidationError' });
    }
    const overlong = await org.admin.get(`/v1/nodes/search?searchNameQuery=${'x'.repeat(256)}`);
    expect(overlong.status).toBe(400);
    expect(await snapshot(t, org)).toEqual(before);
  });
});
