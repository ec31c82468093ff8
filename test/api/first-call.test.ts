import { describe, expect, it } from 'vitest';
import { ApiClient, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

describe("the spec's first call to verify an integration", () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  it('token, api-info, then browse of the organization lists its divisions', async () => {
    const created = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'North' });
    expect(created.status).toBe(201);
    const info = await new ApiClient(t.authUrl, org.admin.token).get('/oauth/api-info');
    expect(info.status).toBe(200);
    expect(info.body.organization.id).toBe(org.orgId);
    expect(info.body.apiUrl).toBe(t.regionUrl('eu'));
    const browse = await new ApiClient(info.body.apiUrl, org.admin.token).get(`/v1/nodes/${info.body.organization.id}/browse`);
    expect(browse.status).toBe(200);
    expect(browse.body.map((node: { name: string; type: string }) => [node.name, node.type])).toEqual([['North', 'division']]);
  });
});
