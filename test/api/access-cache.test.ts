import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTree, type OrgFixture } from '../support/fixtures.js';
import { runElsewhere } from '../support/other-connection.js';
import { type TestPlatform, usingPostgres, withPlatformAndOrg } from '../support/platform.js';
import { rdpAdmin } from '../support/rdp-cli.js';

/**
 * Access results are cached while nothing they read has changed: SQLite's data_version,
 * PostgreSQL's per-organization access version (kept by triggers). A change made by another
 * process must be seen by the very next request, in both directions.
 */
describe('access checks after another process changes memberships', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  /** Deletes memberships through a connection of its own, as another process would. */
  const revokeElsewhere = (principalId: string) =>
    runElsewhere(t, 'region_eu', 'DELETE FROM memberships WHERE principal_id = ?', principalId);

  /** Runs one statement through a connection of its own, as another process would (`?` placeholders). */
  const elsewhere = (statement: string, ...values: unknown[]) => runElsewhere(t, 'region_eu', statement, ...values);

  it('serves the cached result while nothing changes, and sees a node, role or group member changed elsewhere at once', async () => {
    const tree = await createTree(org);
    const viewer = await org.serviceClient({ scopes: 'read:hierarchy' });
    const viewerRole = org.roles.Viewer as string;
    const groupId = randomUUID();
    const now = new Date().toISOString();
    // The viewer reaches the site only through a group's role on the division.
    await elsewhere(
      'INSERT INTO groups (id, org_id, name, name_key, division_id, scim_managed, scim_external_id, saml_linked, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, 0, NULL, 0, ?, ?)',
      groupId,
      org.orgId,
      'Surveyors',
      'surveyors',
      now,
      now,
    );
    await elsewhere('INSERT INTO group_members (group_id, user_id, created_at) VALUES (?, ?, ?)', groupId, viewer.userId, now);
    await elsewhere(
      'INSERT INTO memberships (node_id, principal_id, principal_type, role_id, created_at) VALUES (?, ?, ?, ?, ?)',
      tree.divisionId,
      groupId,
      'group',
      viewerRole,
      now,
    );
    const get = `/v1/nodes/${tree.siteId}`;
    const browse = `/v1/nodes/${tree.siteId}/browse`;
    const made = await org.admin.post(`/v1/nodes/${tree.folderId}/bundle`, { name: 'Scan' });
    // A bundle fetch checks a cached result against the version read with the bundle (one statement).
    const bundle = `/v1/bundles/${made.body.id}?expand=processings,components,thumbnail`;
    for (let i = 0; i < 2; i += 1) expect((await viewer.client.get(bundle)).body.name).toBe('Scan');
    expect((await viewer.client.get(get)).status).toBe(200);
    expect((await viewer.client.get(browse)).body.map((child: { id: string }) => child.id)).toEqual([tree.folderId]);

    // A hit is the very result read before: the cache is in use on this store.
    const { nodes } = t.platform.regions.eu;
    const first = await nodes.findWithAccess(org.orgId, tree.siteId, viewer.userId);
    expect(first?.permissions.has('read')).toBe(true);
    expect(await nodes.findWithAccess(org.orgId, tree.siteId, viewer.userId)).toBe(first);
    // Browse checks the cached result against the version read with its page (one statement).
    const page = await nodes.browse(org.orgId, tree.siteId, viewer.userId, 100, 0);
    expect(page.found).toBe(first);
    expect(page.children.map((child) => child.id)).toEqual([tree.folderId]);
    if (usingPostgres) {
      // PostgreSQL keeps a version per organization: another organization's writes leave it.
      const other = await t.admin.createOrganization({ name: `Other ${randomUUID().slice(0, 8)}`, region: 'eu' });
      await elsewhere('UPDATE nodes SET name = ? WHERE id = ?', 'Elsewhere Ltd', other.id);
      expect(await nodes.findWithAccess(org.orgId, tree.siteId, viewer.userId)).toBe(first);
    }

    // The node's own row is part of the cached result.
    await elsewhere('UPDATE nodes SET name = ? WHERE id = ?', 'Renamed elsewhere', tree.siteId);
    expect((await viewer.client.get(get)).body.name).toBe('Renamed elsewhere');

    await elsewhere('UPDATE roles SET permissions = ? WHERE org_id = ? AND id = ?', '["download"]', org.orgId, viewerRole);
    expect((await viewer.client.get(bundle)).status).toBe(403);
    expect((await viewer.client.get(get)).status).toBe(403);
    expect((await viewer.client.get(browse)).status).toBe(403);
    await elsewhere('UPDATE roles SET permissions = ? WHERE org_id = ? AND id = ?', '["read"]', org.orgId, viewerRole);
    expect((await viewer.client.get(get)).status).toBe(200);
    for (let i = 0; i < 2; i += 1) expect((await viewer.client.get(bundle)).status).toBe(200);

    await elsewhere('DELETE FROM group_members WHERE user_id = ?', viewer.userId);
    expect((await viewer.client.get(bundle)).status).toBe(403);
    expect((await viewer.client.get(browse)).status).toBe(403);
    expect((await viewer.client.get(get)).status).toBe(403);
    await elsewhere('INSERT INTO group_members (group_id, user_id, created_at) VALUES (?, ?, ?)', groupId, viewer.userId, now);
    expect((await viewer.client.get(browse)).status).toBe(200);

    // A node trashed elsewhere is gone for the next request.
    await elsewhere('UPDATE nodes SET trashed_at = ?, trash_root_id = id WHERE id = ?', now, tree.siteId);
    expect((await viewer.client.get(get)).status).toBe(404);
  });

  it('a grant by the rdp command and a revocation by another connection take effect on the next request', async () => {
    const tree = await createTree(org);
    const viewer = await org.serviceClient({ scopes: 'read:hierarchy' });
    const path = `/v1/nodes/${tree.siteId}/browse`;
    for (let i = 0; i < 3; i += 1) expect((await viewer.client.get(path)).status).toBe(403);

    await rdpAdmin(
      t,
      'membership',
      'grant',
      '--node',
      tree.siteId,
      '--principal',
      viewer.userId,
      '--role',
      org.roles.Viewer as string,
    );
    expect((await viewer.client.get(path)).status).toBe(200);
    expect((await viewer.client.get(path)).status).toBe(200);
    // An empty page carries no version: the cached check decides alone.
    const empty = `/v1/nodes/${tree.folderId}/browse`;
    for (let i = 0; i < 2; i += 1) expect((await viewer.client.get(empty)).body).toEqual([]);

    await revokeElsewhere(viewer.userId);
    expect((await viewer.client.get(path)).status).toBe(403);
    expect((await viewer.client.get(empty)).status).toBe(403);
  });
});
