import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNode, createOrg, insertDataNode, link, nodeRow, type OrgFixture, snapshot } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

/** Moves that the links between data items and the kinds of nodes decide. */
describe('PATCH /v1/nodes/{nodeId}/move/{newParentId}: links and hierarchy rules', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let division: string;
  let site: string;
  beforeAll(async () => {
    t = await startPlatform();
  });
  beforeEach(async () => {
    org = await createOrg(t);
    division = await createNode(org, org.orgId, 'division');
    site = await createNode(org, division, 'site');
  });
  afterAll(() => t.close());

  const move = (nodeId: string, targetId: string) => org.admin.patch(`/v1/nodes/${nodeId}/move/${targetId}`);
  const data = async (parentId: string, kind = 'pointCloud', name?: string) =>
    (await insertDataNode(t, org, parentId, { kind, ...(name ? { name } : {}) })).id;
  const parentOf = async (nodeId: string) => (await nodeRow(t, org, nodeId))?.parent_id;

  const refused = refuser(() => snapshot(t, org));

  describe('sources and derivatives', () => {
    it('a derivative sibling moves together with its source, and a source with its derivative', async () => {
      const from = await createNode(org, site, 'folder', 'From');
      const to = await createNode(org, site, 'folder', 'To');
      const source = await data(from, 'dataBundle', 'Scan');
      const derivative = await data(from, 'pointCloud', 'Scan output');
      const bystander = await data(from, 'mesh', 'Unrelated');
      await link(t, org, 'derivative', source, derivative);

      expect((await move(source, to)).status).toBe(200);
      expect([await parentOf(source), await parentOf(derivative), await parentOf(bystander)]).toEqual([to, to, from]);
      const browsed = (await org.admin.get(`/v1/nodes/${to}/browse`)).body as { id: string }[];
      expect(browsed.map((node) => node.id).sort()).toEqual([source, derivative].sort());
      const moved = await nodeRow(t, org, derivative);
      expect(moved?.path).toBe(`${(await nodeRow(t, org, to))?.path}${derivative}/`);

      expect((await move(derivative, from)).status).toBe(200);
      expect([await parentOf(source), await parentOf(derivative)]).toEqual([from, from]);
    });

    it('DerivativesNotInCommonParent when a derivative lies under another parent', async () => {
      const one = await createNode(org, site, 'folder', 'One');
      const two = await createNode(org, site, 'folder', 'Two');
      const three = await createNode(org, site, 'folder', 'Three');
      const source = await data(one, 'dataBundle');
      const derivative = await data(two);
      await link(t, org, 'derivative', source, derivative);
      await refused(() => move(source, three), 409, 'DerivativesNotInCommonParent');
      await refused(() => move(derivative, three), 409, 'SourcesNotInCommonParent');
    });

    it('SourcesNotInCommonParent when one of two sources lies under another parent', async () => {
      const one = await createNode(org, site, 'folder', 'One');
      const two = await createNode(org, site, 'folder', 'Two');
      const sibling = await data(one, 'dataBundle', 'Near source');
      const far = await data(two, 'dataBundle', 'Far source');
      const derivative = await data(one, 'mesh');
      await link(t, org, 'derivative', sibling, derivative);
      await link(t, org, 'derivative', far, derivative);
      await refused(() => move(derivative, two), 409, 'SourcesNotInCommonParent');
    });
  });

  describe('DataBundleLinkedToTwin', () => {
    it('refuses moving a bundle away from its twin, and allows moving both together', async () => {
      const folder = await createNode(org, site, 'folder');
      // Twins whose paths sort before and after the bundle's: subtree checks are path ranges.
      let bundle = '';
      for (const end of ['0', 'f'] as const) {
        const holder = await createNode(org, site, 'folder', `Holder ${end}`);
        bundle = await data(holder, 'dataBundle');
        const twinId = `${end.repeat(8)}${randomUUID().slice(8)}`;
        const siteRow = await nodeRow(t, org, site);
        await insertDataNode(t, org, site, { kind: 'twin', id: twinId, path: `${siteRow?.path}${twinId}/` });
        await link(t, org, 'twin', bundle, twinId);
        await refused(() => move(bundle, folder), 409, 'DataBundleLinkedToTwin');
        await refused(() => move(holder, folder), 409, 'DataBundleLinkedToTwin');
      }

      // The whole site moves with bundle and twin inside it.
      const otherDivision = await createNode(org, org.orgId, 'division', 'Other');
      expect((await move(site, otherDivision)).status).toBe(200);
      expect((await nodeRow(t, org, bundle))?.path.startsWith(`/${org.orgId}/${otherDivision}/${site}/`)).toBe(true);
    });
  });

  describe('DoesNotMeetHierarchyConstraints', () => {
    it('a site into a site, or into a folder inside a site', async () => {
      const other = await createNode(org, division, 'site', 'Other');
      const folder = await createNode(org, other, 'folder');
      await refused(() => move(site, other), 409, 'DoesNotMeetHierarchyConstraints');
      await refused(() => move(site, folder), 409, 'DoesNotMeetHierarchyConstraints');
    });

    it('a folder holding a site into a site', async () => {
      const folder = await createNode(org, division, 'folder', 'Holds a site');
      const inner = await createNode(org, folder, 'folder', 'Inner');
      await createNode(org, inner, 'site', 'Nested');
      await refused(() => move(folder, site), 409, 'DoesNotMeetHierarchyConstraints');
    });

    it('a folder holding data out of a site into a division', async () => {
      const folder = await createNode(org, site, 'folder', 'Holds data');
      const inner = await createNode(org, folder, 'folder', 'Inner');
      await data(inner);
      await refused(() => move(folder, division), 409, 'DoesNotMeetHierarchyConstraints');
      // Without the data inside, the same folder may leave the site.
      const empty = await createNode(org, site, 'folder', 'Empty');
      expect((await move(empty, division)).status).toBe(200);
    });

    it('a data item under a division, the organization or a folder outside a site', async () => {
      const item = await data(site);
      const plain = await createNode(org, division, 'folder', 'Plain');
      await refused(() => move(item, division), 409, 'DoesNotMeetHierarchyConstraints');
      await refused(() => move(item, org.orgId), 409, 'DoesNotMeetHierarchyConstraints');
      await refused(() => move(item, plain), 409, 'DoesNotMeetHierarchyConstraints');
    });

    it('anything into a data item, and a folder into the organization', async () => {
      const item = await data(site);
      const folder = await createNode(org, site, 'folder');
      await refused(() => move(folder, item), 409, 'DoesNotMeetHierarchyConstraints');
      await refused(() => move(folder, org.orgId), 409, 'DoesNotMeetHierarchyConstraints');
    });
  });
});
