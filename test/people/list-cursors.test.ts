import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { createScimClient, entraUser, SCIM_ERROR, type ScimClient } from '../support/scim.js';

type Item = { id: string };

/** Every page of a list by Next-Cursor, from a first page that pages by offset; `between` runs after each page. */
async function walk(client: ApiClient, path: string, between: (page: number) => Promise<void> = async () => {}) {
  const seen: string[] = [];
  let response = await client.get<Item[]>(path);
  for (let page = 1; ; page += 1) {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    seen.push(...response.body.map((item) => item.id));
    const cursor = response.headers.get('next-cursor');
    if (!cursor) return seen;
    await between(page);
    response = await client.get<Item[]>(`${path}&cursor=${encodeURIComponent(cursor)}`);
    if (page > 100) throw new Error('the walk does not end');
  }
}

/** Every page of a SCIM list by nextCursor, from `cursor=` (the first page of cursor paging). */
async function walkScim(client: ScimClient, path: string, between: (page: number) => Promise<void> = async () => {}) {
  const seen: string[] = [];
  let cursor = '';
  for (let page = 1; ; page += 1) {
    const response = await client.get(`${path}&cursor=${encodeURIComponent(cursor)}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.startIndex).toBeUndefined();
    seen.push(...response.body.Resources.map((item: Item) => item.id));
    if (!response.body.nextCursor) return seen;
    cursor = response.body.nextCursor;
    await between(page);
    if (page > 100) throw new Error('the walk does not end');
  }
}

describe('cursor pagination of users, audit events and SCIM Users', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t } = started));
  beforeEach(async () => {
    org = await createOrg(t);
  });

  const member = (prefix: string) =>
    t.admin.createUser({
      email: `${prefix}-${randomUUID().slice(0, 8)}@example.test`,
      password: 'Pa55word-Pa55word',
      orgId: org.orgId,
    });

  it('/v1/users: walks every user once by e-mail address while people join, and binds the cursor to the filter', async () => {
    for (let i = 0; i < 7; i += 1) await createMember(t, org);
    const all = (await org.admin.get<Item[]>('/v1/users?limit=100')).body.map((user) => user.id);
    expect(all).toHaveLength(8);
    expect(await walk(org.admin, '/v1/users?limit=3')).toEqual(all);

    let late = '';
    const walked = await walk(org.admin, '/v1/users?limit=3', async (page) => {
      if (page !== 1) return;
      await member('aaaa'); // sorts before the cursor: not in this walk
      late = (await member('zzzz')).id; // after it: in this walk
    });
    expect(walked).toEqual([...all, late]);

    const cursor = (await org.admin.get('/v1/users?limit=1&kind=user')).headers.get('next-cursor') as string;
    const foreign = await org.admin.get(`/v1/users?kind=service&cursor=${encodeURIComponent(cursor)}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({
      statusCode: 400,
      error: 'ValidationError',
      message: expect.stringMatching(/^querystring\.cursor: belongs to another/),
    });
    const withOffset = await org.admin.get(`/v1/users?kind=user&offset=1&cursor=${encodeURIComponent(cursor)}`);
    expect(withOffset.status).toBe(400);
    expect(withOffset.body.message).toBe('querystring.cursor: cannot be combined with offset');
  });

  it('/v1/audit-events: walks the trail newest first, once, while events are added', async () => {
    const people: { id: string }[] = [];
    for (let i = 0; i < 5; i += 1) people.push(await createMember(t, org));
    for (const person of people)
      expect((await org.admin.patch(`/v1/users/${person.id}`, { firstName: 'Renamed' })).status).toBe(200);
    const all = (await org.admin.get<Item[]>('/v1/audit-events?limit=100')).body.map((event) => event.id);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const walked = await walk(org.admin, '/v1/audit-events?limit=2', async (page) => {
      // Newer events than the walk's start: not in it.
      if (page === 1) await org.admin.patch(`/v1/users/${people[0]?.id}`, { lastName: 'Later' });
    });
    expect(walked).toEqual(all);
    const filtered = await walk(org.admin, '/v1/audit-events?limit=2&action=user.updated');
    expect(filtered).toEqual((await org.admin.get<Item[]>('/v1/audit-events?action=user.updated')).body.map((event) => event.id));
  });

  it('SCIM /Users: cursor pages (RFC 9865) walk everyone once in join order; bad cursors are invalidCursor', async () => {
    const { client: scim } = await createScimClient(t, org);
    for (let i = 0; i < 5; i += 1) {
      expect((await scim.post('/Users', entraUser(`scim-${i}-${randomUUID().slice(0, 6)}@example.test`))).status).toBe(201);
    }
    const byIndex = (await scim.get('/Users?count=100')).body.Resources.map((user: Item) => user.id);
    expect(byIndex).toHaveLength(5);
    const first = await scim.get('/Users?count=2&cursor=');
    expect(first.body).toMatchObject({ totalResults: 5, itemsPerPage: 2, nextCursor: expect.any(String) });
    let joined = '';
    const walked = await walkScim(scim, '/Users?count=2', async (page) => {
      if (page === 2) joined = (await scim.post('/Users', entraUser(`late-${randomUUID().slice(0, 6)}@example.test`))).body.id;
    });
    expect(walked).toEqual([...byIndex, joined]);

    const refusal = async (path: string, scimType: string) => {
      const response = await scim.get(path);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType });
    };
    const cursor = encodeURIComponent(first.body.nextCursor);
    await refusal('/Users?cursor=not-a-cursor', 'invalidCursor');
    await refusal(`/Users?cursor=${cursor}&filter=${encodeURIComponent('userName eq "x@example.test"')}`, 'invalidCursor');
    await refusal(`/Users?cursor=${cursor}&startIndex=2`, 'invalidValue');
    // Another organization's SCIM token cannot use it.
    const other = await createOrg(t);
    const { client: otherScim } = await createScimClient(t, other);
    expect((await otherScim.get(`/Users?cursor=${cursor}`)).body.scimType).toBe('invalidCursor');
    const config = await scim.get('/ServiceProviderConfig');
    expect(config.body.pagination).toMatchObject({ cursor: true, index: true });
  });
});
