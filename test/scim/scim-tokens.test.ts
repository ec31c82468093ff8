import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { auditEvents, createScimClient, SCIM_ERROR, ScimClient, scimBetweenSnapshots } from '../support/scim.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('SCIM tokens: POST, GET, DELETE /v1/scim-tokens', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));
  let scimUrl: string;
  beforeAll(() => {
    scimUrl = `${t.origin}/scim/v2`;
  });

  it('creates a token shown once, keeps only its SHA-256, and records the creation', async () => {
    const created = await org.admin.post('/v1/scim-tokens', { name: 'Entra ID' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'scimUrl', 'token']);
    expect(created.body).toMatchObject({ name: 'Entra ID', scimUrl, lastUsedAt: null });
    expect(created.body.id).toMatch(UUID);
    expect(created.body.token).toMatch(/^rdp_scim_[A-Za-z0-9_-]{43}$/);

    const row = await t.platform.stores.global.db
      .selectFrom('scim_tokens')
      .selectAll()
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ org_id: org.orgId, name: 'Entra ID', created_by: org.adminServiceUserId });
    expect(row.token_hash).toBe(createHash('sha256').update(created.body.token).digest('base64url'));
    expect(JSON.stringify(row)).not.toContain(created.body.token);

    const [event] = await auditEvents(t, org, 'scim-token.created');
    expect(event).toMatchObject({
      actor_type: 'principal',
      actor_id: org.adminServiceUserId,
      target_type: 'scim-token',
      target_id: created.body.id,
      details: { name: 'Entra ID' },
    });
  });

  it('lists tokens without secrets, with the time of their last use', async () => {
    const { client, tokenId } = await createScimClient(t, org, 'Okta');
    let listed = await org.admin.get('/v1/scim-tokens');
    expect(listed.status).toBe(200);
    const mine = () => listed.body.find((token: { id: string }) => token.id === tokenId);
    expect(mine()).toEqual({ id: tokenId, name: 'Okta', scimUrl, createdAt: expect.any(String), lastUsedAt: null });
    expect(JSON.stringify(listed.body)).not.toMatch(/rdp_scim_|token_hash/);

    expect((await client.get('/ServiceProviderConfig')).status).toBe(200);
    listed = await org.admin.get('/v1/scim-tokens');
    expect(Date.parse(mine().lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(mine().createdAt));
  });

  it('deletes a token, which stops working at once', async () => {
    const { client, tokenId } = await createScimClient(t, org);
    expect((await client.get('/Users')).status).toBe(200);
    const deleted = await org.admin.delete(`/v1/scim-tokens/${tokenId}`);
    expect(deleted.status).toBe(204);
    const refused = await client.get('/Users');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ schemas: [SCIM_ERROR], status: '401' });
    expect((await org.admin.get('/v1/scim-tokens')).body.map((token: { id: string }) => token.id)).not.toContain(tokenId);
    const [event] = await auditEvents(t, org, 'scim-token.deleted');
    expect(event).toMatchObject({ actor_type: 'principal', target_id: tokenId });
  });

  it("answers 404 for a token that is not the organization's, and deletes nothing", async () => {
    const other = await createOrg(t);
    const { tokenId } = await createScimClient(t, other);
    for (const id of [tokenId, '00000000-0000-4000-8000-000000000000']) {
      const { response, before, after } = await scimBetweenSnapshots(t, org, () => org.admin.delete(`/v1/scim-tokens/${id}`));
      expect(response.status).toBe(404);
      expect(after).toEqual(before);
    }
    expect((await other.admin.get('/v1/scim-tokens')).body).toHaveLength(1);
  });

  it('refuses a name that is empty, too long or not alone in the body, storing nothing', async () => {
    for (const body of [{ name: '' }, { name: 'n'.repeat(256) }, { name: 'X', token: 'chosen' }, {}]) {
      const { response, before, after } = await scimBetweenSnapshots(t, org, () => org.admin.post('/v1/scim-tokens', body));
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toBe('ValidationError');
      expect(after).toEqual(before);
    }
  });

  it('needs write:user to create and delete, read:user to list', async () => {
    const { client: reader } = await org.serviceClient({ scopes: 'read:user', roleName: 'Organization Administrator' });
    const { response, before, after } = await scimBetweenSnapshots(t, org, () => reader.post('/v1/scim-tokens', { name: 'X' }));
    expect(response.status).toBe(403);
    expect(response.body.message).toBe('Insufficient OAuth scopes');
    expect(after).toEqual(before);
    expect((await reader.get('/v1/scim-tokens')).status).toBe(200);
    const { tokenId } = await createScimClient(t, org);
    expect((await reader.delete(`/v1/scim-tokens/${tokenId}`)).status).toBe(403);
  });

  it('needs manage on the organization node', async () => {
    const { client: viewer } = await org.serviceClient({ roleName: 'Viewer' });
    const { tokenId } = await createScimClient(t, org);
    for (const send of [
      () => viewer.post('/v1/scim-tokens', { name: 'X' }),
      () => viewer.get('/v1/scim-tokens'),
      () => viewer.delete(`/v1/scim-tokens/${tokenId}`),
    ]) {
      const { response, before, after } = await scimBetweenSnapshots(t, org, send);
      expect(response.status).toBe(403);
      expect(response.body.message).toBe('Forbidden resource');
      expect(after).toEqual(before);
    }
  });

  it('answers the SCIM endpoint only with a token: none, a malformed one or an unknown one is 401', async () => {
    const endpoint = new ScimClient(scimUrl, undefined);
    for (const client of [endpoint, endpoint.withToken('rdp_scim_unknown'), endpoint.withToken('a b')]) {
      const response = await client.get('/Users');
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(response.body).toEqual({ schemas: [SCIM_ERROR], status: '401', detail: expect.any(String) });
    }
    // An access token of the regional API is no SCIM token.
    const accessToken = org.admin.token as string;
    expect((await endpoint.withToken(accessToken).get('/Users')).status).toBe(401);
  });
});
