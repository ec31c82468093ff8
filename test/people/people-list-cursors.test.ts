import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, OrgFixture } from '../support/fixtures.js';
import { groupSnapshot } from '../support/groups.js';
import { peopleSnapshot } from '../support/invitations.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { createScimClient, SCIM_ERROR, SCIM_GROUP, type ScimClient } from '../support/scim.js';

type Item = Record<string, unknown>;

/**
 * Cursors on the lists of people (docs/api-decisions.md, "Cursors"): groups, roles, memberships,
 * invitations and SCIM /Groups. Each is walked by Next-Cursor from an offset-paged first page and
 * must answer what one large page answers; a cursor that is no cursor of the list is 400 in the
 * list's error shape, and stores nothing.
 */
describe('cursor pagination of groups, roles, memberships, invitations and SCIM Groups', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let scim: ScimClient;
  withPlatformAndOrg((started) => ({ t, org } = started));

  const COUNT = 7;
  beforeAll(async () => {
    for (let i = 0; i < COUNT; i += 1) {
      const group = await org.admin.post('/v1/groups', { name: `Group ${i} ${randomUUID().slice(0, 4)}` });
      expect(group.status).toBe(201);
      const role = await org.admin.post('/v1/roles', { name: `Role ${i} ${randomUUID().slice(0, 4)}`, permissions: ['read'] });
      expect(role.status).toBe(201);
      const member = await org.admin.request('PUT', `/v1/nodes/${org.orgId}/memberships/${group.body.id}`, {
        roleId: role.body.id,
      });
      expect(member.status).toBe(200);
      const email = `invitee-${i}-${randomUUID().slice(0, 6)}@example.test`;
      expect((await org.admin.post('/v1/invitations', { email, roleId: 'organization-reader' })).status).toBe(201);
    }
    ({ client: scim } = await createScimClient(t, org));
    for (let i = 0; i < COUNT; i += 1) {
      const response = await scim.post('/Groups', {
        schemas: [SCIM_GROUP],
        displayName: `SCIM ${i} ${randomUUID().slice(0, 4)}`,
      });
      expect(response.status).toBe(201);
    }
  });

  /** Every page by Next-Cursor from a first page by offset; checks the last page has none. */
  async function walk(client: ApiClient, path: string, key: (item: Item) => string) {
    const seen: string[] = [];
    let response = await client.get<Item[]>(path);
    for (let page = 1; ; page += 1) {
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      seen.push(...response.body.map(key));
      const cursor = response.headers.get('next-cursor');
      if (!cursor) return { seen, pages: page };
      response = await client.get<Item[]>(`${path}&cursor=${encodeURIComponent(cursor)}`);
      if (page > 100) throw new Error('the walk does not end');
    }
  }

  const lists: { path: string; key: (item: Item) => string; at_least: number }[] = [
    { path: '/v1/groups?limit=3', key: (item) => item.id as string, at_least: COUNT },
    { path: '/v1/roles?limit=3', key: (item) => item.id as string, at_least: COUNT },
    { path: '/v1/invitations?limit=3', key: (item) => item.id as string, at_least: COUNT },
    {
      path: '/v1/nodes/{org}/memberships?limit=3&expand=principal',
      key: (item) => item.principalId as string,
      at_least: COUNT,
    },
  ];

  for (const list of lists) {
    it(`${list.path.split('?')[0]}: walks every item once by cursor, as one page answers them; a bad cursor is 400`, async () => {
      const path = list.path.replace('{org}', org.orgId);
      const everything = await org.admin.get<Item[]>(path.replace('limit=3', 'limit=500'));
      expect(everything.status).toBe(200);
      expect(everything.headers.get('next-cursor')).toBeNull();
      const all = everything.body.map(list.key);
      expect(all.length).toBeGreaterThanOrEqual(list.at_least);
      const { seen, pages } = await walk(org.admin, path, list.key);
      expect(seen).toEqual(all);
      expect(pages).toBeGreaterThanOrEqual(3);
      // Offsets keep working (their page is chosen along the list's index first).
      const byOffset = await org.admin.get<Item[]>(`${path}&offset=4`);
      expect(byOffset.body.map(list.key)).toEqual(all.slice(4, 7));
      expect((await org.admin.get<Item[]>(`${path}&offset=${all.length}`)).body).toEqual([]);

      const before = { people: await peopleSnapshot(t, org), groups: await groupSnapshot(t, org) };
      for (const cursor of ['not-a-cursor', Buffer.from('{"s":"x","k":["a"]}').toString('base64url')]) {
        const bad = await org.admin.get(`${path}&cursor=${cursor}`);
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({
          statusCode: 400,
          error: 'ValidationError',
          message: 'querystring.cursor: is not a cursor this list returned',
        });
      }
      // A cursor of another list is refused, not read as a position in this one.
      const foreign = (await org.admin.get('/v1/users?limit=1')).headers.get('next-cursor') as string;
      const elsewhere = await org.admin.get(`${path}&cursor=${encodeURIComponent(foreign)}`);
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.message).toMatch(/^querystring\.cursor: (belongs to another|is not a cursor)/);
      const withOffset = (await org.admin.get<Item[]>(path)).headers.get('next-cursor') as string;
      const both = await org.admin.get(`${path}&offset=3&cursor=${encodeURIComponent(withOffset)}`);
      expect(both.status).toBe(400);
      expect(both.body.message).toBe('querystring.cursor: cannot be combined with offset');
      expect({ people: await peopleSnapshot(t, org), groups: await groupSnapshot(t, org) }).toEqual(before);
    });
  }

  it('/v1/roles without paging fields answers every role, with no cursor', async () => {
    const response = await org.admin.get<Item[]>('/v1/roles');
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThanOrEqual(COUNT + 2);
    expect(response.headers.get('next-cursor')).toBeNull();
    const offset = await org.admin.get<Item[]>('/v1/roles?offset=2&limit=2');
    expect(offset.body.map((role) => role.id)).toEqual(response.body.slice(2, 4).map((role) => role.id));
  });

  it('/v1/groups: a cursor is bound to the filter it came with', async () => {
    const first = await org.admin.get<Item[]>('/v1/groups?limit=1');
    const cursor = encodeURIComponent(first.headers.get('next-cursor') as string);
    const other = await org.admin.get(
      `/v1/groups?limit=1&name=${encodeURIComponent(first.body[0]?.name as string)}&cursor=${cursor}`,
    );
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/^querystring\.cursor: belongs to another/);
  });

  it('SCIM /Groups: cursor pages (RFC 9865) walk every group once in the order made; bad cursors are invalidCursor', async () => {
    const byIndex = (await scim.get('/Groups?count=100&excludedAttributes=members')).body.Resources.map(
      (group: Item) => group.id,
    );
    expect(byIndex).toHaveLength(COUNT);
    const seen: string[] = [];
    let cursor = '';
    for (let page = 1; page < 100; page += 1) {
      const response = await scim.get(`/Groups?count=3&cursor=${encodeURIComponent(cursor)}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body).toMatchObject({ totalResults: COUNT });
      expect(response.body.startIndex).toBeUndefined();
      seen.push(...response.body.Resources.map((group: Item) => group.id));
      if (!response.body.nextCursor) break;
      cursor = response.body.nextCursor;
    }
    expect(seen).toEqual(byIndex);
    // Index paging is unchanged, and answers no cursor.
    const indexPage = await scim.get('/Groups?startIndex=4&count=3&excludedAttributes=members');
    expect(indexPage.body.nextCursor).toBeUndefined();
    expect(indexPage.body.Resources.map((group: Item) => group.id)).toEqual(byIndex.slice(3, 6));

    const first = (await scim.get('/Groups?count=2&cursor=')).body.nextCursor as string;
    const before = await groupSnapshot(t, org);
    const refusal = async (path: string, scimType: string) => {
      const response = await scim.get(path);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType });
    };
    await refusal('/Groups?cursor=not-a-cursor', 'invalidCursor');
    await refusal(
      `/Groups?cursor=${encodeURIComponent(first)}&filter=${encodeURIComponent('displayName eq "x"')}`,
      'invalidCursor',
    );
    await refusal(`/Groups?cursor=${encodeURIComponent(first)}&startIndex=2`, 'invalidValue');
    const usersCursor = (await scim.get('/Users?count=1&cursor=')).body.nextCursor;
    if (usersCursor) await refusal(`/Groups?cursor=${encodeURIComponent(usersCursor)}`, 'invalidCursor');
    expect(await groupSnapshot(t, org)).toEqual(before);
  });
});
