import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, createOrg, nodeRow, type OrgFixture } from '../support/fixtures.js';
import { createLibraryModel, libraryWriter } from '../support/library-models.js';
import { createProject, planningSnapshot } from '../support/planning.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** POST /v1/bundles/{bundleId}/project, GET /v1/planning/{ctx}/layouts, and the bundle's dependant rules. */
describe('planning projects from a processed bundle', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;
  let siteId: string;
  let folderId: string;
  let bundleId: string;
  let bundleName: string;
  let derivativeId: string;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t);
    other = await createOrg(t);
    siteId = await createSite(org);
    folderId = await createNode(org, siteId, 'folder', 'Scans');
    const bytes = await sampleBytes((file) => writeLas(file, 2000));
    const processed = await processedPointCloud(org, folderId, { name: 'scan.las', bytes });
    ({ bundleId, derivativeId } = processed);
    bundleName = processed.bundle.name;
  }, 120_000);
  afterAll(() => t?.close());

  const refused = refuser(() => planningSnapshot(t, org));

  it('creates a project node beside the bundle (201) with one default layout, linked as a dependant; planning-project.created', async () => {
    const response = await org.admin.post(`/v1/bundles/${bundleId}/project`, {});
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const project = response.body;
    expect(project).toEqual({
      id: expect.stringMatching(UUID),
      name: `${bundleName} plan`,
      type: 'planningProject',
      parentId: folderId,
      organizationId: org.orgId,
      createdAt: expect.any(String),
      updatedAt: project.createdAt,
      isProcessing: false,
      isFailed: false,
      trashedAt: null,
      bundleId,
      defaultLayout: {
        id: expect.stringMatching(UUID),
        projectId: project.id,
        name: 'Default layout',
        isDefault: true,
        modelAssetCount: 0,
        createdAt: project.createdAt,
        updatedAt: project.createdAt,
      },
    });
    // A node of the tree like any data item: browse shows it beside the bundle.
    const browsed = (await org.admin.get(`/v1/nodes/${folderId}/browse`)).body as { id: string; type: string }[];
    expect(browsed.map((node) => node.id).sort()).toEqual([bundleId, derivativeId, project.id].sort());
    const links = await t.platform.regions[org.region].store.db
      .selectFrom('node_links')
      .selectAll()
      .where('to_id', '=', project.id)
      .execute();
    expect(links).toMatchObject([{ kind: 'dependant', from_id: bundleId, to_id: project.id }]);
    const [event] = await auditOf(t, org, project.id);
    expect(event).toMatchObject({
      action: 'planning-project.created',
      target_type: 'planning-project',
      actor_id: org.adminServiceUserId,
      details: { name: project.name, bundleId, parentId: folderId, defaultLayoutId: project.defaultLayout.id },
    });
  });

  it('takes a name (bounded as node names are), and no body at all; the default name is cut to fit 255 characters', async () => {
    expect((await createProject(org, bundleId, { name: '  Crane layout  ' })).name).toBe('  Crane layout  ');
    const bare = await org.admin.request('POST', `/v1/bundles/${bundleId}/project`);
    expect(bare.status, JSON.stringify(bare.body)).toBe(201);
    expect(bare.body.name).toBe(`${bundleName} plan`);
    const longName = `${'ß'.repeat(254)}🙂`;
    expect((await org.admin.patch(`/v1/nodes/${bundleId}`, { name: longName })).status).toBe(200);
    const cut = await createProject(org, bundleId);
    expect([...cut.name].length).toBe(255);
    expect(cut.name).toBe(`${'ß'.repeat(250)} plan`);
    expect((await org.admin.patch(`/v1/nodes/${bundleId}`, { name: bundleName })).status).toBe(200);
  });

  it('refuses bad bodies with 400 naming the field, storing nothing', async () => {
    const post = (body: unknown) => () => org.admin.post(`/v1/bundles/${bundleId}/project`, body);
    await refused(post({ name: '' }), 400, 'ValidationError', /body\/name|body.name/);
    await refused(post({ name: 'x'.repeat(256) }), 400, 'ValidationError', /name/);
    await refused(post({ name: 'A', layout: 'B' }), 400, 'ValidationError', /additional|layout/);
    await refused(post([]), 400, 'ValidationError');
  });

  it('409 BundleNotReady for a bundle whose input is not processed, storing nothing', async () => {
    const fresh = await org.admin.post(`/v1/nodes/${folderId}/bundle`, { name: 'Not uploaded' });
    expect(fresh.status).toBe(201);
    await refused(
      () => org.admin.post(`/v1/bundles/${fresh.body.id}/project`, {}),
      409,
      'BundleNotReady',
      /not ready \(its state is created\)/,
    );
  });

  it('404 for a bundle missing, of another organization, not a bundle, or in the trash; 403 for one the caller cannot reach', async () => {
    const send = (client: typeof org.admin, id: string) => () => client.post(`/v1/bundles/${id}/project`, {});
    await refused(send(org.admin, '00000000-0000-4000-8000-000000000000'), 404, 'Not Found');
    await refused(send(other.admin, bundleId), 404, 'Not Found');
    await refused(send(org.admin, folderId), 404, 'Not Found');
    await refused(send(org.admin, derivativeId), 404, 'Not Found');
    // Content access failing is 403 Forbidden resource (docs/design/access.md#refusals), as for every node.
    const elsewhere = await createNode(org, org.orgId, 'division', 'Elsewhere');
    const outsider = await org.serviceClient({ roleName: 'Contributor', nodeId: elsewhere });
    await refused(send(outsider.client, bundleId), 403, 'Forbidden', /Forbidden resource/);
    const trashFolder = await createNode(org, siteId, 'folder', 'To trash');
    const trashed = await org.admin.post(`/v1/nodes/${trashFolder}/bundle`, { name: 'Trashed' });
    expect((await org.admin.delete(`/v1/nodes/${trashed.body.id}`)).status).toBe(204);
    await refused(send(org.admin, trashed.body.id), 404, 'Not Found');
  });

  it("403 without edit on the bundle's parent (a Viewer), and without write:hierarchy", async () => {
    const viewer = await org.serviceClient({ roleName: 'Viewer' });
    await refused(() => viewer.client.post(`/v1/bundles/${bundleId}/project`, {}), 403, 'Forbidden', /Forbidden resource/);
    const readOnly = await org.serviceClient({ scopes: 'read:basic read:hierarchy', roleName: 'Organization Administrator' });
    await refused(
      () => readOnly.client.post(`/v1/bundles/${bundleId}/project`, {}),
      403,
      'Forbidden',
      /Insufficient OAuth scopes/,
    );
    // Edit on the folder alone is enough: it is creating a node there.
    const editor = await org.serviceClient({ roleName: 'Contributor', nodeId: folderId });
    expect((await editor.client.post(`/v1/bundles/${bundleId}/project`, {})).status).toBe(201);
  });

  describe('GET /v1/planning/{ctx}/layouts', () => {
    let project: Awaited<ReturnType<typeof createProject>>;
    beforeAll(async () => {
      project = await createProject(org, bundleId, { name: 'Listed' });
    });

    it('by the project id: its layouts, paged with page, limit and total', async () => {
      const listed = await org.admin.get(`/v1/planning/${project.id}/layouts`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(listed.body).toEqual({ items: [project.defaultLayout], page: 1, limit: 20, total: 1 });
      expect((await org.admin.get(`/v1/planning/${project.id}/layouts?page=2&limit=1`)).body).toEqual({
        items: [],
        page: 2,
        limit: 1,
        total: 1,
      });
    });

    it('by a layout id: that layout alone; a Viewer may read', async () => {
      const viewer = await org.serviceClient({ roleName: 'Viewer' });
      const listed = await viewer.client.get(`/v1/planning/${project.defaultLayout.id}/layouts`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(listed.body).toEqual({ items: [project.defaultLayout], page: 1, limit: 20, total: 1 });
    });

    it('400 on bad paging; 404 for an unknown id, a site, another organization, a trashed project; 403 unreachable', async () => {
      for (const query of ['page=0', 'limit=0', 'limit=101', 'page=x', 'sort=name']) {
        const response = await org.admin.get(`/v1/planning/${project.id}/layouts?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body.error).toBe('ValidationError');
      }
      for (const id of ['00000000-0000-4000-8000-000000000000', siteId, bundleId]) {
        expect((await org.admin.get(`/v1/planning/${id}/layouts`)).status, id).toBe(404);
      }
      for (const id of [project.id, project.defaultLayout.id]) {
        expect((await other.admin.get(`/v1/planning/${id}/layouts`)).status).toBe(404);
      }
      const elsewhere = await createNode(org, org.orgId, 'division', 'Far');
      const outsider = await org.serviceClient({ roleName: 'Viewer', nodeId: elsewhere });
      expect((await outsider.client.get(`/v1/planning/${project.id}/layouts`)).status).toBe(403);
      expect((await outsider.client.get(`/v1/planning/${project.defaultLayout.id}/layouts`)).status).toBe(403);
      const noScope = await org.serviceClient({ scopes: 'read:basic', roleName: 'Organization Administrator' });
      expect((await noScope.client.get(`/v1/planning/${project.id}/layouts`)).status).toBe(403);

      const doomed = await createProject(org, bundleId, { name: 'Doomed' });
      expect((await org.admin.delete(`/v1/nodes/${doomed.id}`)).status).toBe(204);
      expect((await org.admin.get(`/v1/planning/${doomed.id}/layouts`)).status).toBe(404);
      expect((await org.admin.get(`/v1/planning/${doomed.defaultLayout.id}/layouts`)).status).toBe(404);
    });

    it("GET /v1/planning/{ctx}/layers: the bundle's point cloud as a twin layer, by project or layout id; 404 and 403 as the layouts", async () => {
      for (const ctx of [project.id, project.defaultLayout.id]) {
        const response = await org.admin.get(`/v1/planning/${ctx}/layers`);
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        expect(response.body).toMatchObject({
          projectId: project.id,
          siteId,
          bundleId,
          layers: [
            {
              bundleId,
              nodeId: derivativeId,
              tilesetUrl: expect.stringContaining(`/v1/nodes/${derivativeId}/tiles/tileset.json`),
            },
          ],
        });
        // The layer as the twin shows it, once linked there.
        expect(response.body.layers[0].boundingBox).toBeDefined();
      }
      for (const id of ['00000000-0000-4000-8000-000000000000', siteId, bundleId]) {
        expect((await org.admin.get(`/v1/planning/${id}/layers`)).status, id).toBe(404);
      }
      expect((await other.admin.get(`/v1/planning/${project.id}/layers`)).status).toBe(404);
      const elsewhere = await createNode(org, org.orgId, 'division', 'Far away');
      const outsider = await org.serviceClient({ roleName: 'Viewer', nodeId: elsewhere });
      expect((await outsider.client.get(`/v1/planning/${project.defaultLayout.id}/layers`)).status).toBe(403);
    });
  });

  describe('the bundle has a dependant (docs/design/hierarchy.md#dependants)', () => {
    let site: string;
    let scans: string;
    let bundle: string;
    let output: string;
    let project: Awaited<ReturnType<typeof createProject>>;
    beforeAll(async () => {
      site = await createSite(org, 'Rules');
      scans = await createNode(org, site, 'folder', 'Scans');
      const bytes = await sampleBytes((file) => writeLas(file, 500));
      ({ bundleId: bundle, derivativeId: output } = await processedPointCloud(org, scans, { name: 'rules.las', bytes }));
      project = await createProject(org, bundle);
    }, 120_000);

    const parentOf = async (id: string) => (await nodeRow(t, org, id))?.parent_id;

    it('moving the bundle takes its project (and point cloud) along; moving the project takes the bundle and its point cloud', async () => {
      const target = await createNode(org, site, 'folder', 'Moved');
      const moved = await org.admin.patch(`/v1/nodes/${bundle}/move/${target}`, {});
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect([await parentOf(bundle), await parentOf(output), await parentOf(project.id)]).toEqual([target, target, target]);
      const back = await org.admin.patch(`/v1/nodes/${project.id}/move/${scans}`, {});
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      expect([await parentOf(bundle), await parentOf(output), await parentOf(project.id)]).toEqual([scans, scans, scans]);
      // Layouts follow their project wherever it goes: nothing in them names a place.
      expect((await org.admin.get(`/v1/planning/${project.id}/layouts`)).body.total).toBe(1);
    });

    it('deleting the bundle alone is 409 NodeHasBundleDependants while the project is active; with it trashed, the bundle goes', async () => {
      // The point cloud first: a derivative outside the deleted subtree answers NodeHasDerivatives before.
      await refused(() => org.admin.delete(`/v1/nodes/${bundle}`), 409, 'NodeHasDerivatives');
      expect((await org.admin.delete(`/v1/nodes/${output}`)).status).toBe(204);
      await refused(() => org.admin.delete(`/v1/nodes/${bundle}`), 409, 'NodeHasBundleDependants');
      expect((await org.admin.delete(`/v1/nodes/${project.id}`)).status).toBe(204);
      expect((await org.admin.delete(`/v1/nodes/${bundle}`)).status).toBe(204);
    });

    it('deleting the folder holding both is allowed; the hard delete removes the layouts and their model assets', async () => {
      const folder = await createNode(org, site, 'folder', 'Whole');
      const bytes = await sampleBytes((file) => writeLas(file, 300));
      const { bundleId: inner } = await processedPointCloud(org, folder, { name: 'whole.las', bytes });
      const whole = await createProject(org, inner);
      const model = await createLibraryModel(org, { name: 'Crane' });
      const placed = await org.admin.post(`/v1/twin/${whole.defaultLayout.id}/model-assets`, {
        libraryModelId: model.id,
        name: 'Crane',
        position: { x: 1, y: 2, z: 3 },
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      expect((await org.admin.delete(`/v1/nodes/${folder}`)).status).toBe(204);
      expect((await org.admin.delete(`/v1/nodes/${folder}/hard`)).status).toBe(204);
      const db = t.platform.regions[org.region].store.db;
      expect(await db.selectFrom('planning_layouts').selectAll().where('project_id', '=', whole.id).execute()).toEqual([]);
      expect(await db.selectFrom('planning_model_assets').selectAll().where('project_id', '=', whole.id).execute()).toEqual([]);
      expect(await db.selectFrom('node_links').selectAll().where('to_id', '=', whole.id).execute()).toEqual([]);
      // Its placement gone, the model is free to delete.
      const writer = await libraryWriter(org);
      expect((await writer.delete(`/v1/asset-library/models/${model.id}`)).status).toBe(204);
    }, 120_000);
  });
});
