import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { rdpAdmin, runRdp } from '../support/rdp-cli.js';

describe('rdp admin org set-seat-limit', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  const seatLimit = async () => (await t.platform.directory.findOrganization(org.orgId))?.seat_limit;

  it('sets the limit a running server holds reactivations to, and lifts it with "unlimited"', async () => {
    const [first] = [await createMember(t, org), await createMember(t, org)];
    expect(await rdpAdmin(t, 'org', 'set-seat-limit', '--org', org.orgId, '--seat-limit', '1')).toEqual({
      id: org.orgId,
      seatLimit: 1,
    });
    expect(await seatLimit()).toBe(1);

    // Two people hold seats already: the lower limit keeps them, and refuses the next one.
    await org.admin.patch(`/v1/users/${first.id}`, { active: false });
    const refused = await org.admin.patch(`/v1/users/${first.id}`, { active: true });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Forbidden resource');

    expect(await rdpAdmin(t, 'org', 'set-seat-limit', '--org', org.orgId, '--seat-limit', 'unlimited')).toEqual({
      id: org.orgId,
      seatLimit: null,
    });
    expect(await seatLimit()).toBeNull();
    expect((await org.admin.patch(`/v1/users/${first.id}`, { active: true })).body.active).toBe(true);
  });

  it('refuses a value that is not a whole number (exit 2) and an unknown organization (exit 1), changing nothing', async () => {
    await rdpAdmin(t, 'org', 'set-seat-limit', '--org', org.orgId, '--seat-limit', '5');
    const setSeatLimit = (...args: string[]) => runRdp(t, ['admin', 'org', 'set-seat-limit', ...args]);
    expect(await setSeatLimit('--org', org.orgId, '--seat-limit', 'many')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^rdp: --seat-limit must be a whole number/),
    });
    expect(await setSeatLimit('--org', org.orgId)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--seat-limit is required/),
    });
    expect(await setSeatLimit('--org', randomUUID(), '--seat-limit', '1')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/organization [0-9a-f-]+ not found/),
    });
    expect(await seatLimit()).toBe(5);
  });
});
