import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { activeJobs } from '../support/job-counts.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/**
 * Roles (docs/design/processes.md#roles): processes of one deployment, each running some of auth,
 * api and worker over the same stores, each serving only its roles' routes. The processes here run
 * in the test's process (test/cli/roles-startup.test.ts starts real ones).
 */
describe('processes that run some of the roles', () => {
  let auth: TestPlatform;
  let apiEu: TestPlatform;
  let apiFromStore: TestPlatform;
  let worker: TestPlatform;
  let org: OrgFixture;
  let token: string;

  beforeAll(async () => {
    auth = await startPlatform({ RDP_ROLES: 'auth' });
    // The api process fetches the key set from the auth process over HTTP.
    apiEu = await startPlatform(
      { RDP_ROLES: 'api', RDP_REGIONS: 'eu', RDP_AUTH_JWKS_URL: `${auth.authUrl}/oauth/jwks` },
      { sharing: auth },
    );
    apiFromStore = await startPlatform({ RDP_ROLES: 'api', RDP_REGIONS: 'eu' }, { sharing: auth });
    worker = await startPlatform({ RDP_ROLES: 'worker' }, { sharing: auth });
    // The token comes from the auth process's token endpoint.
    org = await createOrg(auth, { region: 'eu' });
    token = org.admin.token as string;
  });

  afterAll(async () => {
    // Each close within its own deadline, so that a hang names the process that hung.
    const closed = async (name: string, t: TestPlatform | undefined) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the ${name} process did not close within 20 s`)), 20_000);
      });
      try {
        await Promise.race([t?.close(), late]);
      } finally {
        clearTimeout(timer);
      }
    };
    await closed('worker', worker);
    await closed('api (key set from the global store)', apiFromStore);
    await closed('api (key set over HTTP)', apiEu);
    await closed('auth', auth);
  }, 90_000);

  const get = (t: TestPlatform, path: string, bearer?: string) =>
    fetch(`${t.origin}${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

  async function expectNotFound(response: Response) {
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
  }

  it('an auth process serves tokens, api-info, the key set and SCIM, and no regional API', async () => {
    const info = await get(auth, '/auth/oauth/api-info', token);
    expect(info.status).toBe(200);
    expect((await info.json()).apiUrl).toBe(auth.regionUrl('eu'));
    expect((await get(auth, '/auth/oauth/jwks')).status).toBe(200);
    expect((await get(auth, '/.well-known/oauth-authorization-server/auth')).status).toBe(200);
    expect((await get(auth, '/scim/v2/ServiceProviderConfig')).status).not.toBe(404);
    for (const region of ['ca', 'us', 'eu', 'au']) {
      await expectNotFound(await get(auth, `/${region}/reality/v1/nodes/${org.orgId}`, token));
    }
    expect((await get(auth, '/health')).status).toBe(200);
  });

  it('an auth process opens no job queue', async () => {
    await expect(auth.platform.jobs.countByState()).rejects.toThrow(/RDP_ROLES/);
  });

  it("an api process for one region serves that region with the auth process's tokens, and 404s the others", async () => {
    const client = new ApiClient(apiEu.regionUrl('eu'), token);
    const browse = await client.get(`/v1/nodes/${org.orgId}/browse`);
    expect(browse.status).toBe(200);
    const created = await client.post(`/v1/nodes/${org.orgId}/division`, { name: 'Made on the api process' });
    expect(created.status).toBe(201);
    expect((await get(apiEu, '/eu/reality/openapi.json')).status).toBe(200);
    for (const region of ['ca', 'us', 'au']) {
      await expectNotFound(await get(apiEu, `/${region}/reality/v1/nodes/${org.orgId}`, token));
      await expectNotFound(await get(apiEu, `/${region}/reality/openapi.json`));
    }
    expect(apiEu.platform.openedRegions().map((context) => context.region)).toEqual(['eu']);
    expect(Object.keys(apiEu.platform.stores.regions)).toEqual(['eu']);
  });

  it('an api process refuses the authorization server routes', async () => {
    const refused = await fetch(`${apiEu.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    await expectNotFound(refused);
    await expectNotFound(await get(apiEu, '/auth/oauth/api-info', token));
    await expectNotFound(await get(apiEu, '/auth/oauth/jwks'));
    await expectNotFound(await get(apiEu, '/.well-known/oauth-authorization-server/auth'));
    await expectNotFound(await get(apiEu, '/scim/v2/Users'));
  });

  it('an api process without RDP_AUTH_JWKS_URL verifies with the public keys of the global store', async () => {
    const client = new ApiClient(apiFromStore.regionUrl('eu'), token);
    expect((await client.get(`/v1/nodes/${org.orgId}/browse`)).status).toBe(200);
    expect((await new ApiClient(apiFromStore.regionUrl('eu'), `${token}x`).get(`/v1/nodes/${org.orgId}`)).status).toBe(401);
  });

  it('a worker process serves only health', async () => {
    expect((await get(worker, '/health')).status).toBe(200);
    for (const path of ['/auth/oauth/jwks', '/eu/reality/openapi.json', `/eu/reality/v1/nodes/${org.orgId}`, '/scim/v2/Users']) {
      await expectNotFound(await get(worker, path, token));
    }
    // It opened the queue it works on, and every region: the queue holds jobs of all of them.
    expect(await activeJobs(worker.platform.jobs)).toBeGreaterThanOrEqual(0);
    expect(worker.platform.openedRegions().map((context) => context.region)).toEqual(['ca', 'us', 'eu', 'au']);
  });
});
