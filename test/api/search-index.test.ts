import { describe, expect, it } from 'vitest';
import { createTree, insertDataNode, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/**
 * Name search through the trigram index (FTS5 on SQLite, pg_trgm on PostgreSQL) answers exactly what
 * a scan of the names would: the index only narrows the candidates.
 */
describe('name search on the trigram index', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let folderId: string;
  const NAMES = [
    'North Facade Scan 0417',
    'north facade mesh',
    'South FACADE plan',
    'Progress_50% done',
    'Progress 50 percent',
    'Progress_X50a done',
    'xy',
    'Ünïcode Façade Überblick',
    'say "hi" there',
  ];

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    ({ folderId } = await createTree(org));
    for (const name of NAMES) await insertDataNode(t, org, folderId, { kind: 'pointCloud', name });
  });

  const search = async (query: string, match?: string) => {
    const params = new URLSearchParams({ searchNameQuery: query, ...(match ? { searchNameMatch: match } : {}) });
    const response = await org.admin.get(`/v1/nodes/search?${params}`);
    expect(response.status).toBe(200);
    return response.body.map((node: { name: string }) => node.name) as string[];
  };
  /** What a scan would give: names containing the text, case-insensitively, ordered by lower-cased name. */
  const expected = (query: string, all: string[] = NAMES) =>
    all
      .filter((name) => name.toLowerCase().includes(query.toLowerCase()))
      .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));

  it('contains matches anywhere in the name, case-insensitively, in name order', async () => {
    for (const query of ['facade', 'FACADE', 'h facade s', 'ade sc', 'Scan 0417', 'façade', 'ÜBERBLICK', 'progress']) {
      expect(await search(query), query).toEqual(expected(query));
    }
  });

  it('matches % and _ literally', async () => {
    expect(await search('_50%')).toEqual(['Progress_50% done']);
    expect(await search('50%')).toEqual(['Progress_50% done']);
    expect(await search('ss_')).toEqual(['Progress_50% done', 'Progress_X50a done']);
    expect(await search('%')).toEqual(['Progress_50% done']);
  });

  it('matches double quotes, which the index query language would otherwise read', async () => {
    expect(await search('"hi"')).toEqual(['say "hi" there']);
    expect(await search('y "h')).toEqual(['say "hi" there']);
  });

  it('answers queries shorter than a trigram by scan', async () => {
    expect(await search('xy')).toEqual(expected('xy'));
    expect(await search('Ü')).toEqual(expected('ü'));
    // Empty text matches every name: the organization, division, site, folder and the items.
    expect(await search('')).toHaveLength(NAMES.length + 4);
  });

  it('finds nothing for text that is in no name', async () => {
    expect(await search('zzzz')).toEqual([]);
    expect(await search('facadex')).toEqual([]);
  });

  it('startsWith and exact are unchanged', async () => {
    expect(await search('north', 'startsWith')).toEqual(['north facade mesh', 'North Facade Scan 0417']);
    expect(await search('NORTH FACADE MESH', 'exact')).toEqual(['north facade mesh']);
    expect(await search('facade', 'startsWith')).toEqual([]);
  });

  it('follows renames and hard deletes', async () => {
    const before = await org.admin.get(`/v1/nodes/search?searchNameQuery=${encodeURIComponent('south facade')}`);
    const id = before.body[0].id as string;
    expect((await org.admin.patch(`/v1/nodes/${id}`, { name: 'Roof Drone Survey' })).status).toBe(200);
    expect(await search('south facade')).toEqual([]);
    expect(await search('drone surv')).toEqual(['Roof Drone Survey']);
    expect((await org.admin.delete(`/v1/nodes/${id}`)).status).toBe(204);
    expect(await search('drone surv')).toEqual([]);
    expect((await org.admin.get(`/v1/nodes/search?searchNameQuery=drone%20surv&includeTrashed=true`)).body).toHaveLength(1);
    expect((await org.admin.delete(`/v1/nodes/${id}/hard`)).status).toBe(204);
    expect((await org.admin.get(`/v1/nodes/search?searchNameQuery=drone%20surv&includeTrashed=true`)).body).toHaveLength(0);
  });
});
