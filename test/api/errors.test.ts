import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newNodeRow } from '../../src/adapters/db/repositories/node-rows.js';
import { compileDeferredSchemas } from '../../src/http/schema-compilers.js';
import { type ApiResponse, createTree, expectNoInternals, type OrgFixture, requestToken, snapshot } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

/** docs/design/errors.md#error-shape: one body shape, and never an internal detail in it. */
function expectErrorBody(response: ApiResponse, status: number, error?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toMatchObject({ statusCode: status, error: expect.any(String), message: expect.any(String) });
  if (error) expect(response.body.error).toBe(error);
  expectNoInternals(response.body);
}

describe('error responses', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    tree = await createTree(org);
  });

  /** A request that must be refused with this status and leave the organization as it was. */
  const refused = refuser(
    () => snapshot(t, org),
    (response: ApiResponse, refusal) => expectErrorBody(response, refusal.status, refusal.error),
  );

  it('answers an unknown route with the generic 404 body', async () => {
    for (const path of ['/v1/nothing-here', '/v2/nodes', '/v1/nodes/a/b/c/d']) {
      expectErrorBody(await org.admin.get(path), 404, 'Not Found');
    }
    const outside = await fetch(`${t.origin}/no-such-area`);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('compiles every route schema it put off at start-up (docs/performance.md)', () => {
    // A schema Ajv or fast-json-stringify cannot compile would otherwise show only on its route's first use.
    expect(compileDeferredSchemas(t.app)).toBeGreaterThan(500);
  });

  it('answers an address with broken percent-encoding with 400 in the same shape', async () => {
    expectErrorBody(await org.admin.get('/v1/nodes/%ZZ'), 400, 'BadRequest');
    expectErrorBody(await org.admin.get('/v1/nodes/%E0%A4%A/browse'), 400, 'BadRequest');
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const browse = await org.admin.request('DELETE', `/v1/nodes/${tree.siteId}/browse`);
    expectErrorBody(browse, 405, 'Method Not Allowed');
    expect(browse.headers.get('allow')?.split(', ')).toContain('GET');

    const folder = await org.admin.request('GET', `/v1/nodes/${tree.siteId}/folder`);
    expectErrorBody(folder, 405);
    expect(folder.headers.get('allow')).toBe('POST');

    const token = await fetch(`${t.authUrl}/oauth/token`);
    expect(token.status).toBe(405);
    expect(token.headers.get('allow')).toBe('POST');
  });

  it('answers 404 for a record that does not exist', async () => {
    expectErrorBody(await org.admin.get(`/v1/nodes/${randomUUID()}`), 404, 'Not Found');
  });

  it('refuses a malformed or empty JSON body with 400 and stores nothing', async () => {
    const path = `/v1/nodes/${tree.siteId}/folder`;
    const json = { 'content-type': 'application/json' };
    await refused(() => org.admin.request('POST', path, '{"name": "Half', json), 400);
    await refused(() => org.admin.request('POST', path, '', json), 400);
    await refused(() => org.admin.request('POST', path, 'name=x', json), 400);
  });

  it('refuses unknown body properties with a ValidationError naming them', async () => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', `/v1/nodes/${tree.siteId}/folder`, { name: 'x', orgId: 'y' }, 'orgId'],
      ['POST', `/v1/nodes/${tree.siteId}/folder`, { name: 'x', id: randomUUID() }, 'id'],
      ['POST', `/v1/nodes/${org.orgId}/division`, { name: 'x', parentId: tree.siteId }, 'parentId'],
      ['PATCH', `/v1/nodes/${tree.folderId}`, { name: 'x', type: 'site' }, 'type'],
      ['PATCH', `/v1/nodes/${tree.siteId}`, { address: 'x', createdAt: '2000-01-01T00:00:00Z' }, 'createdAt'],
    ];
    for (const [method, path, body, property] of cases) {
      const response = await refused(() => org.admin.request(method, path, body), 400, 'ValidationError');
      expect(response.body.message).toContain(property);
    }
  });

  it('refuses a wrongly typed or missing field with a ValidationError naming it', async () => {
    const path = `/v1/nodes/${tree.siteId}/folder`;
    const wrongType = await refused(() => org.admin.post(path, { name: 42 }), 400, 'ValidationError');
    expect(wrongType.body.message).toContain('name');
    const missing = await refused(() => org.admin.post(path, {}), 400, 'ValidationError');
    expect(missing.body.message).toContain('name');
    const array = await refused(() => org.admin.post(path, ['name']), 400, 'ValidationError');
    expect(array.body.message).toMatch(/body/);
  });

  it('refuses a JSON body over the limit with 413', async () => {
    const name = 'x'.repeat(70 * 1024);
    await refused(() => org.admin.post(`/v1/nodes/${tree.siteId}/folder`, { name }), 413);
  });

  it('refuses a body of another media type with 415', async () => {
    const path = `/v1/nodes/${tree.siteId}/folder`;
    await refused(() => org.admin.request('POST', path, 'name', { 'content-type': 'application/xml' }), 415);
    // Fastify parses text/plain by default; a JSON route then answered 400 "body: must be object".
    await refused(() => org.admin.request('POST', path, '{"name":"x"}', { 'content-type': 'text/plain' }), 415);
  });

  it('refuses text PostgreSQL cannot store (NUL) as a client error, not a 500', async () => {
    await refused(() => org.admin.post(`/v1/nodes/${tree.siteId}/folder`, { name: 'a\u0000b' }), 400, 'ValidationError');
    await refused(() => org.admin.patch(`/v1/nodes/${tree.siteId}`, { address: 'a\u0000' }), 400, 'ValidationError');
    for (const path of ['/v1/nodes/%00', '/v1/nodes/a%00b/browse', '/v1/nodes/search?searchNameQuery=%00']) {
      const response = await org.admin.get(path);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expectErrorBody(response, response.status);
    }
  });

  it('clamps a large list limit to 500 instead of refusing it', async () => {
    const region = t.platform.regions[org.region];
    const now = new Date().toISOString();
    const division = await region.nodes.findById(tree.divisionId);
    if (!division) throw new Error('division not found');
    const rows = Array.from({ length: 505 }, (_, index) =>
      newNodeRow(division, { kind: 'folder', name: `Bulk ${String(index).padStart(3, '0')}`, now }),
    );
    await region.store.db.insertInto('nodes').values(rows).execute();
    const clamped = await org.admin.get(`/v1/nodes/${tree.divisionId}/browse?limit=100000`);
    expect(clamped.status).toBe(200);
    expect(clamped.body).toHaveLength(500);
    const rest = await org.admin.get(`/v1/nodes/${tree.divisionId}/browse?limit=500&offset=500`);
    expect(rest.body).toHaveLength(506 - 500);
    const byDefault = await org.admin.get(`/v1/nodes/${tree.divisionId}/browse`);
    expect(byDefault.body).toHaveLength(100);
    for (const query of ['limit=0', 'limit=-1', 'limit=abc', 'offset=-1', 'sort=name']) {
      expectErrorBody(await org.admin.get(`/v1/nodes/${tree.divisionId}/browse?${query}`), 400, 'ValidationError');
    }
  });
});

describe('NUL characters', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  it('are refused in any JSON string or key, on every store alike, and nothing is stored', async () => {
    const tree = await createTree(org);
    const before = await snapshot(t, org);
    for (const body of ['{"name":"a\\u0000b"}', '{"name":"ok","x\\u0000":1}']) {
      const response = await org.admin.request('POST', `/v1/nodes/${tree.siteId}/folder`, body, {
        'content-type': 'application/json',
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('ValidationError');
      expect(response.body.message).toContain('NUL');
    }
    expect(await snapshot(t, org)).toEqual(before);
  });

  it('are refused in token request parameters', async () => {
    const response = await requestToken(t, { grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });

  it('keep prototype poisoning refused', async () => {
    const tree = await createTree(org);
    const response = await org.admin.request('POST', `/v1/nodes/${tree.siteId}/folder`, '{"name":"p","__proto__":{"x":1}}', {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(400);
  });
});
