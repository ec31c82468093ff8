import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, OrgFixture } from '../support/fixtures.js';
import { runElsewhere } from '../support/other-connection.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { createScimClient, SCIM_GROUP, SCIM_USER, type ScimClient } from '../support/scim.js';

type Item = Record<string, unknown>;
type Counts = { anchored: number; walked: number; refused: number };

interface DeepList {
  name: string;
  /** The ids of a page: `limit` and `offset` as the list takes them. */
  ids(limit: number, offset: number): Promise<string[]>;
  /** The repository's anchor counters. */
  counts(): Counts;
  /** Changes of what the list orders or filters by, made between pages. */
  changes: { name: string; run(): Promise<void> }[];
}

/**
 * Pages by offset start from anchors (sort keys read at earlier pages) while the list is at the
 * version they were read at (docs/performance.md, "Lists at depth"). Each list is read by offset
 * at several depths and must answer exactly what one large page answers, then again after each
 * kind of change, made through the API or by plain SQL through a connection of its own (as
 * another process would): an anchor must never serve a page of the list as it was.
 */
describe('pages by offset, from anchors, after inserts, renames and removals', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let scim: ScimClient;
  withPlatformAndOrg((started) => ({ t, org } = started));

  const COUNT = 16;
  const email = (name: string) => `${name}-${randomUUID().slice(0, 6)}@example.com`;
  const groupIds: string[] = [];
  const roleIds: string[] = [];
  const userIds: string[] = [];
  const scimGroupIds: string[] = [];
  const invitationIds: string[] = [];

  beforeAll(async () => {
    ({ client: scim } = await createScimClient(t, org));
    for (let i = 0; i < COUNT; i += 1) {
      const suffix = String(i).padStart(2, '0');
      const group = await org.admin.post('/v1/groups', { name: `Group ${suffix}` });
      expect(group.status).toBe(201);
      groupIds.push(group.body.id);
      const role = await org.admin.post('/v1/roles', { name: `Role ${suffix}`, permissions: ['read'] });
      expect(role.status).toBe(201);
      roleIds.push(role.body.id);
      const member = await org.admin.request('PUT', `/v1/nodes/${org.orgId}/memberships/${group.body.id}`, {
        roleId: role.body.id,
      });
      expect(member.status).toBe(200);
      const invitation = await org.admin.post('/v1/invitations', {
        email: email(`invitee-${suffix}`),
        roleId: 'organization-reader',
      });
      expect(invitation.status).toBe(201);
      invitationIds.push(invitation.body.id);
      const user = await scim.post('/Users', { schemas: [SCIM_USER], userName: email(`m-person-${suffix}`) });
      expect(user.status).toBe(201);
      userIds.push(user.body.id);
      const scimGroup = await scim.post('/Groups', { schemas: [SCIM_GROUP], displayName: `SCIM ${suffix}` });
      expect(scimGroup.status).toBe(201);
      scimGroupIds.push(scimGroup.body.id);
    }
  });

  /** Runs one statement through a connection of its own, as another process would (`?` placeholders). */
  const elsewhere = (store: 'global' | 'regional', statement: string, ...values: unknown[]) =>
    runElsewhere(t, store === 'global' ? 'global' : `region_${org.region}`, statement, ...values);

  const api = (client: ApiClient, path: string) => async (limit: number, offset: number) => {
    const response = await client.get<Item[]>(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}&offset=${offset}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.map((item) => (item.id ?? item.principalId) as string);
  };
  /** /v1/users, whose order is an address copied beside each place by triggers: the whole list must be in the users' order. */
  const users = (path: string) => async (limit: number, offset: number) => {
    const response = await org.admin.get<Item[]>(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}&offset=${offset}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const emails = response.body.map((item) => item.email as string);
    expect(emails).toEqual([...emails].sort());
    return response.body.map((item) => item.id as string);
  };
  const scimIds = (resource: 'Users' | 'Groups') => async (limit: number, offset: number) => {
    const response = await scim.get(`/${resource}?count=${limit}&startIndex=${offset + 1}&excludedAttributes=members`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return (response.body.Resources as Item[]).map((item) => item.id as string);
  };
  const regional = () => t.platform.regions[org.region] as NonNullable<TestPlatform['platform']['regions']['eu']>;
  const longAgo = '2000-01-01T00:00:00.000Z';
  /** A change made through the API must have been made. */
  const ok = (response: { status: number; body: unknown }) => {
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  };

  /** Pages at several depths, each twice or more: every one what the whole list answers there. */
  async function expectExactPages(list: DeepList) {
    const all = await list.ids(500, 0);
    expect(all.length, list.name).toBeGreaterThanOrEqual(COUNT - 2);
    for (const offset of [5, 9, 9, 12, 6, 5, all.length - 2]) {
      expect(await list.ids(4, offset), `${list.name}, offset ${offset}`).toEqual(all.slice(offset, offset + 4));
    }
    return all;
  }

  /** A page past the end is empty (a read from an anchor answers nothing there, and is refused). */
  async function expectEmptyPastTheEnd(list: DeepList, all: string[]) {
    expect(await list.ids(4, all.length + 3)).toEqual([]);
  }

  const lists: DeepList[] = [
    {
      name: '/v1/groups',
      ids: (limit, offset) => api(org.admin, '/v1/groups')(limit, offset),
      counts: () => regional().groups.anchors.counts,
      changes: [
        { name: 'a group sorting first', run: async () => ok(await org.admin.post('/v1/groups', { name: 'Aardvarks' })) },
        { name: 'a rename', run: async () => ok(await org.admin.patch(`/v1/groups/${groupIds[3]}`, { name: 'Zebras' })) },
        // Organization groups are removed only once given a division; SCIM groups are groups too.
        { name: 'a removal (SCIM)', run: async () => ok(await scim.delete(`/Groups/${scimGroupIds[5]}`)) },
        {
          name: 'a rename elsewhere',
          run: () => elsewhere('regional', 'UPDATE groups SET name = ?, name_key = ? WHERE id = ?', 'Ants', 'ants', groupIds[12]),
        },
      ],
    },
    {
      name: 'SCIM /Groups',
      ids: (limit, offset) => scimIds('Groups')(limit, offset),
      counts: () => regional().scimGroups.anchors.counts,
      changes: [
        { name: 'a removal', run: async () => ok(await scim.delete(`/Groups/${scimGroupIds[2]}`)) },
        {
          name: 'a group made long ago, elsewhere',
          run: () => elsewhere('regional', 'UPDATE groups SET created_at = ? WHERE id = ?', longAgo, scimGroupIds[14]),
        },
      ],
    },
    {
      name: '/v1/roles',
      ids: (limit, offset) => api(org.admin, '/v1/roles')(limit, offset),
      counts: () => regional().roles.anchors.counts,
      changes: [
        {
          name: 'a role sorting first',
          run: async () => ok(await org.admin.post('/v1/roles', { name: 'Aardvark keepers', permissions: ['read'] })),
        },
        { name: 'a rename', run: async () => ok(await org.admin.patch(`/v1/roles/${roleIds[4]}`, { name: 'Zookeepers' })) },
        {
          name: 'a rename elsewhere',
          run: () => elsewhere('regional', 'UPDATE roles SET name = ?, name_key = ? WHERE id = ?', 'Ant', 'ant', roleIds[13]),
        },
      ],
    },
    {
      name: "a node's memberships",
      ids: (limit, offset) => api(org.admin, `/v1/nodes/${org.orgId}/memberships`)(limit, offset),
      counts: () => regional().memberships.anchors.counts,
      changes: [
        {
          name: 'a removal',
          run: async () => ok(await org.admin.request('DELETE', `/v1/nodes/${org.orgId}/memberships/${groupIds[0]}`)),
        },
        {
          name: 'a membership given long ago, elsewhere',
          run: () =>
            elsewhere(
              'regional',
              'UPDATE memberships SET created_at = ? WHERE node_id = ? AND principal_id = ?',
              longAgo,
              org.orgId,
              groupIds[15],
            ),
        },
      ],
    },
    {
      name: '/v1/invitations?state=pending',
      ids: (limit, offset) => api(org.admin, '/v1/invitations?state=pending')(limit, offset),
      counts: () => regional().invitations.anchors.counts,
      changes: [
        {
          name: 'a new invitation (newest first)',
          run: async () => ok(await org.admin.post('/v1/invitations', { email: email('late'), roleId: 'organization-reader' })),
        },
        {
          name: 'a revocation',
          run: async () => ok(await org.admin.request('DELETE', `/v1/invitations/${invitationIds[14]}`)),
        },
        {
          name: 'an invitation made long ago, elsewhere',
          run: () => elsewhere('regional', 'UPDATE invitations SET created_at = ? WHERE id = ?', longAgo, invitationIds[2]),
        },
      ],
    },
    {
      name: '/v1/users',
      ids: (limit, offset) => users('/v1/users')(limit, offset),
      counts: () => t.platform.members.anchors.counts,
      changes: [
        {
          name: 'a person sorting first',
          run: async () => ok(await scim.post('/Users', { schemas: [SCIM_USER], userName: email('a-first') })),
        },
        {
          name: "a person's new address (SCIM)",
          run: async () =>
            ok(await scim.patch(`/Users/${userIds[2]}`, [{ op: 'replace', path: 'userName', value: email('z-last') }])),
        },
        { name: 'a person leaving (SCIM)', run: async () => ok(await scim.delete(`/Users/${userIds[5]}`)) },
        {
          name: 'a new address elsewhere',
          run: () => elsewhere('global', 'UPDATE users SET email = ? WHERE id = ?', email('b-second'), userIds[11]),
        },
      ],
    },
    {
      name: '/v1/users?active=true',
      ids: (limit, offset) => users('/v1/users?active=true')(limit, offset),
      counts: () => t.platform.members.anchors.counts,
      changes: [
        {
          name: 'a deactivation in the organization',
          run: async () => ok(await org.admin.patch(`/v1/users/${userIds[7]}`, { active: false })),
        },
        {
          name: 'a deactivation (SCIM)',
          run: async () => ok(await scim.patch(`/Users/${userIds[8]}`, [{ op: 'replace', path: 'active', value: false }])),
        },
        {
          name: 'a user deactivated everywhere, elsewhere',
          run: () => elsewhere('global', 'UPDATE users SET deactivated_at = ? WHERE id = ?', longAgo, userIds[9]),
        },
      ],
    },
    {
      name: 'SCIM /Users',
      ids: (limit, offset) => scimIds('Users')(limit, offset),
      counts: () => t.platform.members.anchors.counts,
      changes: [
        { name: 'a person leaving', run: async () => ok(await scim.delete(`/Users/${userIds[1]}`)) },
        {
          name: 'a place taken long ago, elsewhere',
          run: () =>
            elsewhere(
              'global',
              'UPDATE user_organizations SET created_at = ? WHERE org_id = ? AND user_id = ?',
              longAgo,
              org.orgId,
              userIds[13],
            ),
        },
      ],
    },
  ];

  for (const list of lists) {
    it(`${list.name}: every page by offset is the plain offset's, before and after each change`, async () => {
      const before = { ...list.counts() };
      await expectEmptyPastTheEnd(list, await expectExactPages(list));
      // Pages read again came from their anchors.
      expect(list.counts().anchored).toBeGreaterThan(before.anchored);
      for (const change of list.changes) {
        const { refused, anchored } = list.counts();
        await change.run();
        const all = await expectExactPages(list);
        // The anchors of before the change were tried and refused, then new ones served.
        expect(list.counts().refused, change.name).toBeGreaterThan(refused);
        expect(list.counts().anchored, change.name).toBeGreaterThan(anchored);
        await expectEmptyPastTheEnd(list, all);
      }
    });
  }

  it("a change of another list, or of a person's name, leaves a list's anchors in use", async () => {
    const groups = lists[0] as DeepList;
    const users = lists[5] as DeepList;
    await expectExactPages(groups);
    await expectExactPages(users);
    const counts = { groups: { ...groups.counts() }, users: { ...users.counts() } };
    expect((await org.admin.post('/v1/roles', { name: `Other ${randomUUID().slice(0, 4)}`, permissions: ['read'] })).status).toBe(
      201,
    );
    expect((await scim.patch(`/Users/${userIds[10]}`, [{ op: 'replace', path: 'name.givenName', value: 'Ada' }])).status).toBe(
      200,
    );
    await expectExactPages(groups);
    await expectExactPages(users);
    expect(groups.counts().refused).toBe(counts.groups.refused);
    expect(users.counts().refused).toBe(counts.users.refused);
    expect(groups.counts().anchored).toBeGreaterThan(counts.groups.anchored);
    expect(users.counts().anchored).toBeGreaterThan(counts.users.anchored);
  });
});
