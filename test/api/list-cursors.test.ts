import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApiClient,
  type ApiResponse,
  createNode,
  createOrg,
  insertDataNode,
  type OrgFixture,
  snapshot,
} from '../support/fixtures.js';
import { insertGroup } from '../support/people-users.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

type Listed = { id: string; name: string; trashedAt?: string | null };

/**
 * Every page of a list from `path`, following Next-Cursor from the first page (which pages by
 * offset as before) until a page answers none; `between` runs after each page.
 */
async function walk(client: ApiClient, path: string, between: (page: number) => Promise<void> = async () => {}) {
  const pages: Listed[][] = [];
  let response = await client.get<Listed[]>(path);
  for (;;) {
    expect(response.status).toBe(200);
    pages.push(response.body);
    const cursor = response.headers.get('next-cursor');
    if (!cursor) return pages;
    await between(pages.length);
    const separator = path.includes('?') ? '&' : '?';
    response = await client.get<Listed[]>(`${path}${separator}cursor=${encodeURIComponent(cursor)}`);
    if (pages.length > 100) throw new Error('the walk does not end');
  }
}

const ids = (rows: Listed[]) => rows.map((row) => row.id);

describe('cursor pagination of the trash and browse', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let divisionA: string;
  let divisionB: string;
  let siteA: string;
  let siteB: string;
  beforeAll(async () => {
    t = await startPlatform();
  });
  beforeEach(async () => {
    org = await createOrg(t);
    divisionA = await createNode(org, org.orgId, 'division', 'A');
    divisionB = await createNode(org, org.orgId, 'division', 'B');
    siteA = await createNode(org, divisionA, 'site', 'Site A');
    siteB = await createNode(org, divisionB, 'site', 'Site B');
  });
  afterAll(() => t.close());

  /** A trash root straight in the store: trashed at `at` (several share an instant: the id breaks ties). */
  const trashed = async (parentId: string, name: string, at: string) => {
    const row = await insertDataNode(t, org, parentId, { kind: 'pointCloud', name });
    await t.platform.regions[org.region].store.db
      .updateTable('nodes')
      .set({ trashed_at: at, trash_root_id: row.id })
      .where('id', '=', row.id)
      .execute();
    return row.id;
  };
  const instant = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
  /** The trash in list order: newest first, then by id. */
  const expectedOrder = (entries: { id: string; at: string }[]) =>
    [...entries].sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? 1 : -1)).map((entry) => entry.id);

  it('walks the trash exactly once in order, by pages of 3, also while entries come and go', async () => {
    const entries: { id: string; at: string }[] = [];
    for (let i = 0; i < 11; i += 1) {
      const at = instant(i % 4);
      entries.push({ id: await trashed(i % 2 ? siteA : siteB, `Scan ${i}`, at), at });
    }
    const order = expectedOrder(entries);
    expect(ids((await walk(org.admin, '/v1/trash?limit=3')).flat())).toEqual(order);
    // Offset paging is unchanged.
    expect(ids((await org.admin.get<Listed[]>('/v1/trash?limit=3&offset=3')).body)).toEqual(order.slice(3, 6));

    // Between pages: a new entry (newest: before the cursor, so not in the rest of this walk), an
    // entry of a later page restored, one of an earlier page restored: every other entry once.
    const restoredLater = order[8] as string;
    const restoredEarlier = order[0] as string;
    const pages = await walk(org.admin, '/v1/trash?limit=3', async (page) => {
      if (page !== 2) return;
      const added = await createNode(org, siteA, 'folder', 'Added');
      expect((await org.admin.delete(`/v1/nodes/${added}`)).status).toBe(204);
      for (const id of [restoredLater, restoredEarlier]) {
        expect((await org.admin.patch(`/v1/nodes/${id}/restore`)).status).toBe(200);
      }
    });
    expect(ids(pages.flat())).toEqual(order.filter((id) => id !== restoredLater));
  });

  it('lists only what a user may read through its groups and memberships, page by page', async () => {
    const { client, userId } = await org.serviceClient({ scopes: 'read:hierarchy' });
    const group = await insertGroup(t, org, { members: [userId] });
    await t.admin.grantMembership({ nodeId: divisionA, principalId: group, roleId: org.roles.Viewer as string });
    // A folder of site B read directly; the rest of site B not; a nested membership counts once.
    const folderB = await createNode(org, siteB, 'folder', 'Shared');
    await t.admin.grantMembership({ nodeId: folderB, principalId: userId, roleId: org.roles.Viewer as string });
    await t.admin.grantMembership({ nodeId: siteA, principalId: userId, roleId: org.roles.Viewer as string });
    const readable: { id: string; at: string }[] = [];
    const hidden: string[] = [];
    for (let i = 0; i < 9; i += 1) {
      const at = instant(i % 3);
      readable.push({ id: await trashed(i % 2 ? siteA : divisionA, `Readable ${i}`, at), at });
      readable.push({ id: await trashed(folderB, `Shared ${i}`, at), at });
      hidden.push(await trashed(siteB, `Hidden ${i}`, at));
    }
    // A group of which the user is no member gives nothing.
    const other = await insertGroup(t, org, {});
    await t.admin.grantMembership({ nodeId: org.orgId, principalId: other, roleId: org.roles.Viewer as string });

    const walked = ids((await walk(client, '/v1/trash?limit=4')).flat());
    expect(walked).toEqual(expectedOrder(readable));
    const all = ids((await walk(org.admin, '/v1/trash?limit=50')).flat());
    expect(new Set(all)).toEqual(new Set([...walked, ...hidden]));

    // A caller with no reading membership sees an empty trash.
    const { client: stranger } = await org.serviceClient({ scopes: 'read:hierarchy' });
    expect((await stranger.get('/v1/trash')).body).toEqual([]);
  });

  it("finds a reader's few entries behind many it may not read (the walk goes on past a chunk)", async () => {
    const { client, userId } = await org.serviceClient({ scopes: 'read:hierarchy' });
    const group = await insertGroup(t, org, { members: [userId] });
    await t.admin.grantMembership({ nodeId: siteA, principalId: group, roleId: org.roles.Viewer as string });
    const readable: { id: string; at: string }[] = [];
    for (let i = 0; i < 3; i += 1) readable.push({ id: await trashed(siteA, `Old ${i}`, instant(i)), at: instant(i) });
    // Newer than all of them, so listed before: more than a page's first chunk (2 * limit + 50).
    for (let i = 0; i < 60; i += 1) await trashed(siteB, `New ${i}`, instant(10 + i));
    const order = expectedOrder(readable);
    expect(ids((await walk(client, '/v1/trash?limit=2')).flat())).toEqual(order);
    expect(ids((await client.get<Listed[]>('/v1/trash?limit=2&offset=1')).body)).toEqual(order.slice(1, 3));
    expect(ids((await walk(org.admin, '/v1/trash?limit=7')).flat())).toHaveLength(63);
  });

  it('leaves out, for a reader of part of the organization, what lies below a node restricted to another provider', async () => {
    const { client, userId } = await org.serviceClient({ scopes: 'read:hierarchy' });
    const group = await insertGroup(t, org, { members: [userId] });
    await t.admin.grantMembership({ nodeId: divisionA, principalId: group, roleId: org.roles.Viewer as string });
    const below = await trashed(siteA, 'Below the restriction', instant(1));
    const beside = await trashed(divisionA, 'Beside it', instant(2));
    await t.admin.restrictNodeToIdentityProvider(siteA, 'corporate-okta');
    expect(ids((await client.get<Listed[]>('/v1/trash')).body)).toEqual([beside]);
    await t.admin.restrictNodeToIdentityProvider(siteA, null);
    expect(ids((await client.get<Listed[]>('/v1/trash')).body)).toEqual([beside, below]);
  });

  it('walks browse exactly once in name order while children are added and removed', async () => {
    const names = ['delta', 'Alpha', 'charlie', 'bravo', 'Echo', 'foxtrot', 'golf', 'alpha'];
    const created = new Map<string, string>();
    for (const name of names) created.set(await createNode(org, siteA, 'folder', name), name);
    const first = ids((await walk(org.admin, `/v1/nodes/${siteA}/browse?limit=3`)).flat());
    // The same order as one page by offset: by name without case, ties (Alpha, alpha) by id.
    expect(first).toEqual(ids((await org.admin.get<Listed[]>(`/v1/nodes/${siteA}/browse`)).body));
    expect(first.map((id) => created.get(id)?.toLowerCase())).toEqual(names.map((name) => name.toLowerCase()).sort());
    const pages = await walk(org.admin, `/v1/nodes/${siteA}/browse?limit=3`, async (page) => {
      if (page !== 1) return;
      await createNode(org, siteA, 'folder', 'aardvark'); // before the cursor: not in this walk
      await createNode(org, siteA, 'folder', 'zulu'); // after it: in this walk
      expect((await org.admin.delete(`/v1/nodes/${first[0]}`)).status).toBe(204); // on a page already read
      expect((await org.admin.delete(`/v1/nodes/${first[6]}`)).status).toBe(204); // on a later page
    });
    const walked = ids(pages.flat());
    expect(walked.slice(0, -1)).toEqual(first.filter((id) => id !== first[6]));
    expect(pages.flat().at(-1)?.name).toBe('zulu');
  });

  describe('refusals', () => {
    /** A refused cursor answers exactly the spec's error shape and stores nothing. */
    const refused = refuser(
      () => snapshot(t, org),
      (response, refusal) =>
        expect(response.body).toEqual({ statusCode: refusal.status, error: refusal.error, message: expect.any(String) }),
    );
    const cursorOf = async (client: ApiClient, path: string) => {
      const response: ApiResponse = await client.get(path);
      const cursor = response.headers.get('next-cursor');
      if (!cursor) throw new Error(`no cursor from ${path}`);
      return encodeURIComponent(cursor);
    };

    it('400 for a malformed cursor, one of another list, parent or caller, and a cursor with offset', async () => {
      for (let i = 0; i < 3; i += 1) {
        await trashed(siteA, `Scan ${i}`, instant(i));
        await createNode(org, siteA, 'folder', `Folder ${i}`);
        await createNode(org, siteB, 'folder', `Folder ${i}`);
      }
      const trash = await cursorOf(org.admin, '/v1/trash?limit=1');
      const browseA = await cursorOf(org.admin, `/v1/nodes/${siteA}/browse?limit=1`);
      const malformed = /^querystring\.cursor: is not a cursor this list returned$/;
      const foreign = /^querystring\.cursor: belongs to another list, caller or filter/;

      for (const bad of [
        'x',
        '!!!',
        Buffer.from('{"s":1}').toString('base64url'),
        Buffer.from('[1,2]').toString('base64url'),
        'a'.repeat(2049),
      ]) {
        const response = await org.admin.get(`/v1/trash?cursor=${bad}`);
        expect(response.status).toBe(400);
        expect(response.body.error).toBe('ValidationError');
      }
      await refused(() => org.admin.get('/v1/trash?cursor=eyJzIjoiYSIsImsiOlsiYSJdfQ'), 400, 'ValidationError', malformed);
      // A cursor is bound to its list, parent and caller.
      await refused(() => org.admin.get(`/v1/trash?cursor=${browseA}`), 400, 'ValidationError', foreign);
      await refused(() => org.admin.get(`/v1/nodes/${siteB}/browse?cursor=${browseA}`), 400, 'ValidationError', foreign);
      await refused(() => org.admin.get(`/v1/nodes/${siteA}/browse?cursor=${trash}`), 400, 'ValidationError', foreign);
      const { client: other } = await org.serviceClient({ roleName: 'Organization Administrator', scopes: 'read:hierarchy' });
      await refused(() => other.get(`/v1/trash?cursor=${trash}`), 400, 'ValidationError', foreign);
      // Not with offset, even 0.
      await refused(
        () => org.admin.get(`/v1/trash?cursor=${trash}&offset=0`),
        400,
        'ValidationError',
        /^querystring\.cursor: cannot be combined with offset$/,
      );
      // The same cursor goes on working for its own list.
      expect((await org.admin.get(`/v1/nodes/${siteA}/browse?limit=1&cursor=${browseA}`)).status).toBe(200);
    });
  });
});
