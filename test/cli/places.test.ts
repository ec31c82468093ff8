import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { RdpUser } from '../support/rdp-user.js';

/** rdp places (docs/cli.md): the nodes where the signed-in person holds a role. */
describe('rdp places', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  const users: RdpUser[] = [];

  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
  });
  afterAll(async () => {
    await t?.close();
    for (const rdp of users) rdp.remove();
  });

  const signedIn = async (roleName?: string) => {
    const member = await createMember(t, org, roleName);
    const rdp = new RdpUser(t);
    users.push(rdp);
    const login = await rdp.loginWithForms(member, org.orgId);
    expect(login.code, login.stderr).toBe(0);
    return { rdp, member };
  };

  it('prints a table of the places (a division for a person with a role there), or them as JSON; ls reaches the way down', async () => {
    const divisionId = await createNode(org, org.orgId, 'division', 'Surveys');
    await createNode(org, org.orgId, 'division', 'Hidden');
    const { rdp, member } = await signedIn();
    expect(await rdp.run(['places'])).toMatchObject({ code: 0, stdout: '(none: ask an administrator for a role)\n' });

    const given = await org.admin.request('PUT', `/v1/nodes/${divisionId}/memberships/${member.id}`, {
      roleId: org.roles.Viewer,
    });
    expect(given.status).toBe(200);
    const table = await rdp.run(['places']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+TYPE\s+NAME\s+ROLE$/m);
    expect(table.stdout).toMatch(new RegExp(`^${divisionId}\\s+division\\s+Surveys\\s+Viewer$`, 'm'));
    expect(table.stdout.trim().split('\n')).toHaveLength(2);

    expect(await rdp.json(['places'])).toEqual([
      {
        node: expect.objectContaining({ id: divisionId, type: 'division', name: 'Surveys' }),
        roleId: org.roles.Viewer,
        roleName: 'Viewer',
        inherited: false,
      },
    ]);
    // The organization's listing answers only the way to the place.
    expect((await rdp.json(['ls'])).map((node: { id: string }) => node.id)).toEqual([divisionId]);
  });

  it("an administrator's place is the organization", async () => {
    const { rdp } = await signedIn('Organization Administrator');
    const places = await rdp.json(['places']);
    expect(
      places.map((place: { node: { id: string; type: string }; roleName: string }) => [
        place.node.id,
        place.node.type,
        place.roleName,
      ]),
    ).toEqual([[org.orgId, 'organization', 'Organization Administrator']]);
  });
});
