import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issuerOf } from '../../src/domain/oauth/issuer.js';
import { AccessTokenIssuer } from '../../src/oauth/access-tokens.js';
import { SigningKeys } from '../../src/oauth/signing-keys.js';
import { createTree, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { rdpAdmin } from '../support/rdp-cli.js';

const SSO_RESTRICTED = {
  statusCode: 403,
  error: 'Forbidden',
  errorCode: 'SSORestrictedResource',
  message: 'This resource requires a session signed in through a specific identity provider',
};

/** A node that requires an identity provider refuses other sessions, on itself and its subtree. */
describe('SSORestrictedResource', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    tree = await createTree(org);
  });

  /** A token of the organization's administrator application as an SSO sign-in would have it issued. */
  async function tokenThrough(identityProvider: string): Promise<string> {
    const { platform } = t;
    const keys = await SigningKeys.load(platform.tokens, platform.clock);
    const issuer = new AccessTokenIssuer(keys, issuerOf(platform.config.publicUrl), 600, platform.clock);
    // The verifier refuses tokens of applications that do not exist: name the admin's real one.
    const application = await platform.stores.global.db
      .selectFrom('oauth_applications')
      .select('client_id')
      .where('service_user_id', '=', org.adminServiceUserId)
      .executeTakeFirstOrThrow();
    const { token } = await issuer.issue(
      {
        userId: org.adminServiceUserId,
        orgId: org.orgId,
        clientId: application.client_id,
        scopes: ['read:hierarchy', 'write:hierarchy'],
        identityProvider,
      },
      randomUUID(),
    );
    return token;
  }

  it('refuses a local session on the restricted site and its subtree, and allows it once lifted', async () => {
    // Seen before the restriction: the access cache must not keep serving it afterwards.
    expect((await org.admin.get(`/v1/nodes/${tree.folderId}`)).status).toBe(200);

    const restricted = await rdpAdmin(t, 'node', 'restrict-sso', '--node', tree.siteId, '--provider', 'corporate-okta');
    expect(restricted).toEqual({ nodeId: tree.siteId, requiredIdentityProvider: 'corporate-okta' });

    for (const path of [`/v1/nodes/${tree.siteId}`, `/v1/nodes/${tree.folderId}`, `/v1/nodes/${tree.siteId}/browse`]) {
      const response = await org.admin.get(path);
      expect(response.status, path).toBe(403);
      expect(response.body, path).toEqual(SSO_RESTRICTED);
    }
    const write = await org.admin.patch(`/v1/nodes/${tree.folderId}`, { name: 'Renamed' });
    expect(write.status).toBe(403);
    expect(write.body).toEqual(SSO_RESTRICTED);
    // Moving a node into the restricted subtree is refused as well.
    const outside = await org.admin.post(`/v1/nodes/${tree.divisionId}/folder`, { name: 'Outside' });
    const move = await org.admin.patch(`/v1/nodes/${outside.body.id}/move/${tree.siteId}`, {});
    expect(move.status).toBe(403);
    expect(move.body).toEqual(SSO_RESTRICTED);

    // Above the restriction nothing changes.
    expect((await org.admin.get(`/v1/nodes/${tree.divisionId}`)).status).toBe(200);

    await t.admin.restrictNodeToIdentityProvider(tree.siteId, null);
    expect((await org.admin.get(`/v1/nodes/${tree.siteId}`)).status).toBe(200);
    expect((await org.admin.get(`/v1/nodes/${tree.folderId}`)).status).toBe(200);
  });

  it('allows a session that came through the required provider, and no other', async () => {
    await t.admin.restrictNodeToIdentityProvider(tree.siteId, 'corporate-okta');
    const sso = org.admin.withToken(await tokenThrough('corporate-okta'));
    expect((await sso.get(`/v1/nodes/${tree.siteId}`)).status).toBe(200);
    expect((await sso.get(`/v1/nodes/${tree.folderId}`)).status).toBe(200);
    expect((await sso.get(`/v1/nodes/${tree.siteId}/browse`)).status).toBe(200);

    const other = org.admin.withToken(await tokenThrough('another-idp'));
    const refused = await other.get(`/v1/nodes/${tree.folderId}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(SSO_RESTRICTED);

    // Two different providers on one path: no single session satisfies both.
    await t.admin.restrictNodeToIdentityProvider(tree.folderId, 'another-idp');
    expect((await sso.get(`/v1/nodes/${tree.siteId}`)).status).toBe(200);
    expect((await sso.get(`/v1/nodes/${tree.folderId}`)).body).toEqual(SSO_RESTRICTED);
    expect((await other.get(`/v1/nodes/${tree.folderId}`)).body).toEqual(SSO_RESTRICTED);
    await t.admin.restrictNodeToIdentityProvider(tree.folderId, null);
    await t.admin.restrictNodeToIdentityProvider(tree.siteId, null);
  });

  it('leaves the contents of a restricted node out of search and the trash for other sessions', async () => {
    const { siteId, folderId } = tree;
    const trashed = await org.admin.post(`/v1/nodes/${folderId}/folder`, { name: 'Old scans' });
    expect((await org.admin.delete(`/v1/nodes/${trashed.body.id}`)).status).toBe(204);
    await t.admin.restrictNodeToIdentityProvider(siteId, 'corporate-okta');
    const ids = (response: { body: Array<{ id: string }> }) => response.body.map((node) => node.id);

    // The restricted site itself is listed, as in its parent's browse; what lies below it is not.
    expect(ids(await org.admin.get('/v1/nodes/search?searchNameQuery=site'))).toContain(siteId);
    expect(ids(await org.admin.get('/v1/nodes/search?searchNameQuery=folder'))).not.toContain(folderId);
    expect(ids(await org.admin.get('/v1/trash'))).not.toContain(trashed.body.id);

    const sso = org.admin.withToken(await tokenThrough('corporate-okta'));
    expect(ids(await sso.get('/v1/nodes/search?searchNameQuery=folder'))).toContain(folderId);
    expect(ids(await sso.get('/v1/trash'))).toContain(trashed.body.id);

    await t.admin.restrictNodeToIdentityProvider(siteId, null);
    expect(ids(await org.admin.get('/v1/nodes/search?searchNameQuery=folder'))).toContain(folderId);
    expect(ids(await org.admin.get('/v1/trash'))).toContain(trashed.body.id);
  });

  it('keeps the plain Forbidden resource for a caller without the permission', async () => {
    await t.admin.restrictNodeToIdentityProvider(tree.siteId, 'corporate-okta');
    const { client } = await org.serviceClient({ roleName: 'Viewer', nodeId: tree.siteId });
    const response = await client.patch(`/v1/nodes/${tree.siteId}`, { name: 'No' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'Forbidden resource' });
    await t.admin.restrictNodeToIdentityProvider(tree.siteId, null);
  });

  it('validates the provider name and the node', async () => {
    await expect(t.admin.restrictNodeToIdentityProvider(tree.siteId, 'bad name!')).rejects.toThrow(/provider/);
    await expect(t.admin.restrictNodeToIdentityProvider('00000000-0000-0000-0000-000000000000', 'x')).rejects.toThrow(
      /not found/,
    );
  });
});
