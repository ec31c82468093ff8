import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { createLibraryModel, libraryWriter, setLibraryModelStatus } from '../support/library-models.js';
import { createProject, planningSnapshot } from '../support/planning.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const position = { x: 4, y: -2, z: 0.5 };

/** The model-asset routes with a layout id as {ctx}: placements in a plan, apart from the twin's. */
describe('model assets in a planning layout: /v1/twin/{layoutId}/model-assets', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;
  let siteId: string;
  let projectId: string;
  let layoutId: string;
  let modelId: string;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t);
    other = await createOrg(t);
    siteId = await createSite(org);
    const bytes = await sampleBytes((file) => writeLas(file, 1000));
    const { bundleId } = await processedPointCloud(org, siteId, { name: 'scan.las', bytes });
    const project = await createProject(org, bundleId);
    projectId = project.id;
    layoutId = project.defaultLayout.id;
    modelId = (await createLibraryModel(org)).id;
  }, 120_000);
  afterAll(() => t?.close());

  const refused = refuser(() => planningSnapshot(t, org));

  async function place(ctx: string, body: object = {}) {
    const response = await org.admin.post(`/v1/twin/${ctx}/model-assets`, {
      libraryModelId: modelId,
      name: 'Crane',
      position,
      ...body,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  const layoutCount = async () =>
    (await org.admin.get(`/v1/planning/${layoutId}/layouts`)).body.items[0].modelAssetCount as number;

  it('places, reads, lists, changes and removes a model asset in the layout; modelAssetCount counts them; audit names the layout', async () => {
    const before = await layoutCount();
    const created = await place(layoutId, { rotation: { x: 0, y: 0, z: 0.7075, w: 0.7075 }, scale: { x: 2, y: 2, z: 2 } });
    expect(created).toEqual({
      id: expect.stringMatching(UUID),
      libraryModelId: modelId,
      name: 'Crane',
      position,
      rotation: { x: 0, y: 0, z: expect.closeTo(Math.SQRT1_2, 12), w: expect.closeTo(Math.SQRT1_2, 12) },
      scale: { x: 2, y: 2, z: 2 },
      metadataTypeId: null,
      createdBy: org.adminServiceUserId,
      updatedBy: org.adminServiceUserId,
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
    });
    const path = `/v1/twin/${layoutId}/model-assets/${created.id}`;
    expect((await org.admin.get(path)).body).toEqual(created);
    expect((await org.admin.get(`${path}?includeMetadata=true`)).body).toEqual({ ...created, metadata: {} });
    const bare = await place(layoutId, { name: 'Bare' });
    expect(bare).toMatchObject({ rotation: { x: 0, y: 0, z: 0, w: 1 }, scale: { x: 1, y: 1, z: 1 } });
    const listed = (await org.admin.get(`/v1/twin/${layoutId}/model-assets`)).body as { id: string }[];
    expect(listed.map((asset) => asset.id).slice(-2)).toEqual([created.id, bare.id]);
    expect(await layoutCount()).toBe(before + 2);

    t.clock.advance(1000);
    const typeId = (
      await org.admin.post('/v1/metadata-types', {
        name: `Crane ${randomUUID()}`,
        appliesTo: ['modelAsset'],
        properties: [{ section: 'Lift', name: 'Capacity', type: 'number', unit: 't', required: false }],
      })
    ).body.id;
    const patched = await org.admin.patch(path, {
      name: 'Tower crane',
      position: { x: 9, y: 9, z: 0 },
      metadataTypeId: typeId,
      metadata: { Lift: { Capacity: 12 } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Tower crane', position: { x: 9, y: 9, z: 0 }, metadataTypeId: typeId });
    expect(patched.body.updatedAt > created.updatedAt).toBe(true);
    expect((await org.admin.get(`${path}?includeMetadata=true`)).body.metadata).toEqual({ Lift: { Capacity: 12 } });
    const badValue = await org.admin.patch(path, { metadata: { Lift: { Capacity: 'heavy' } } });
    expect(badValue.status).toBe(400);
    expect(badValue.body.message).toMatch(/body\.metadata\.Lift\.Capacity/);

    expect((await org.admin.delete(path)).status).toBe(204);
    await refused(() => org.admin.get(path), 404, 'Not Found');
    await refused(() => org.admin.patch(path, { name: 'Back' }), 404, 'Not Found');
    await refused(() => org.admin.delete(path), 404, 'Not Found');
    expect(await layoutCount()).toBe(before + 1);
    const events = await auditOf(t, org, created.id);
    expect(events.map((event) => event.action)).toEqual(['model-asset.created', 'model-asset.updated', 'model-asset.deleted']);
    expect(events[0]?.details).toMatchObject({ name: 'Crane', layoutId, projectId });
    expect(events[1]?.details).toMatchObject({ changed: ['name', 'position', 'metadataTypeId', 'metadata'], layoutId });
  });

  it("keeps the layout's placements and the twin's apart, both ways, and the layout's out of a draft", async () => {
    const inLayout = await place(layoutId, { name: 'Planned' });
    const inTwin = await place(siteId, { name: 'Built' });
    const draft = await openDraft(org, siteId);
    const inDraft = await place(draft.id, { name: 'Drafted' });
    const twinIds = ((await org.admin.get(`/v1/twin/${siteId}/model-assets`)).body as { id: string }[]).map((a) => a.id);
    expect(twinIds).toContain(inTwin.id);
    expect(twinIds).not.toContain(inLayout.id);
    const draftIds = ((await org.admin.get(`/v1/twin/${draft.id}/model-assets`)).body as { id: string }[]).map((a) => a.id);
    expect(draftIds.sort()).toEqual([inTwin.id, inDraft.id].sort());
    const layoutIds = ((await org.admin.get(`/v1/twin/${layoutId}/model-assets`)).body as { id: string }[]).map((a) => a.id);
    expect(layoutIds).toContain(inLayout.id);
    expect(layoutIds).not.toContain(inTwin.id);
    expect(layoutIds).not.toContain(inDraft.id);
    // An id of one through the other is 404, to every route, changing nothing.
    for (const [ctx, id] of [
      [siteId, inLayout.id],
      [draft.id, inLayout.id],
      [layoutId, inTwin.id],
      [layoutId, inDraft.id],
    ] as const) {
      await refused(() => org.admin.get(`/v1/twin/${ctx}/model-assets/${id}`), 404, 'Not Found');
      await refused(() => org.admin.patch(`/v1/twin/${ctx}/model-assets/${id}`, { name: 'X' }), 404, 'Not Found');
      await refused(() => org.admin.delete(`/v1/twin/${ctx}/model-assets/${id}`), 404, 'Not Found');
    }
    await refused(() => org.admin.get(`/v1/twin/${siteId}/object/${inLayout.id}/metadata`), 404, 'Not Found');
    // A layout is no twin: the other twin routes do not take its id.
    await refused(() => org.admin.get(`/v1/twin/${layoutId}`), 404, 'Not Found');
    await refused(() => org.admin.get(`/v1/twin/${layoutId}/points-of-interest`), 404, 'Not Found');
  });

  it("answers a placed model's preview GLB through the layout, to a layout's embed token too; not through the twin", async () => {
    // An OBJ, which this platform's worker previews.
    const previewed = await createLibraryModel(org, { status: 'processing', name: 'Crane preview' });
    const library = await libraryWriter(org);
    for (let waited = 0; waited < 30_000; waited += 100) {
      if ((await library.get(`/v1/asset-library/models/${previewed.id}`)).body.status === 'ready') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const placed = await place(layoutId, { libraryModelId: previewed.id });
    const session = await org.admin.post('/v1/embed-sessions', { layoutId, allowedOrigins: ['https://app.example.com'] });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const path = `/v1/twin/${layoutId}/model-assets/${placed.id}/preview`;
    for (const token of [org.admin.token, session.body.token]) {
      const response = await fetch(`${org.admin.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('model/gltf-binary');
      expect(
        Buffer.from(await response.arrayBuffer())
          .subarray(0, 4)
          .toString('latin1'),
      ).toBe('glTF');
    }
    await refused(() => org.admin.get(`/v1/twin/${siteId}/model-assets/${placed.id}/preview`), 404, 'Not Found');
  });

  it('refuses with the twin rules, storing nothing: 400 naming the field, 404 and 409 for the library model', async () => {
    const post = (body: object) => () =>
      org.admin.post(`/v1/twin/${layoutId}/model-assets`, { libraryModelId: modelId, name: 'A', position, ...body });
    await refused(post({ position: { x: 'a', y: 0, z: 0 } }), 400, 'ValidationError', /position/);
    await refused(post({ rotation: { x: 0, y: 0, z: 0, w: 2 } }), 400, 'ValidationError', /body\.rotation/);
    await refused(post({ scale: { x: 0, y: 1, z: 1 } }), 400, 'ValidationError', /scale/);
    await refused(post({ description: 'no' }), 400, 'ValidationError');
    await refused(post({ metadataTypeId: 'missing' }), 400, 'ValidationError', /body\.metadataTypeId/);
    await refused(post({ libraryModelId: 'missing' }), 404, 'Not Found', /Library model not found/);
    const foreign = await createLibraryModel(other);
    await refused(post({ libraryModelId: foreign.id }), 404, 'Not Found', /Library model not found/);
    const pending = await createLibraryModel(org, { status: 'pendingUpload' });
    await refused(post({ libraryModelId: pending.id }), 409, 'LibraryModelNotReady', /pendingUpload/);
    const failed = await createLibraryModel(org, { status: 'ready', name: 'Broken' });
    await setLibraryModelStatus(t, org, failed.id, 'failed');
    await refused(post({ libraryModelId: failed.id }), 409, 'LibraryModelNotReady', /failed/);
    const placed = await place(layoutId);
    const path = `/v1/twin/${layoutId}/model-assets/${placed.id}`;
    await refused(() => org.admin.patch(path, {}), 400, 'ValidationError');
    await refused(() => org.admin.patch(path, { libraryModelId: modelId }), 400, 'ValidationError');
    // Without a type the metadata is free: only its shapes are refused.
    await refused(
      () => org.admin.patch(path, { metadata: { Any: { Thing: { a: 1 } } } }),
      400,
      'ValidationError',
      /body\.metadata\.Any\.Thing/,
    );
  });

  it("access is the project node's: a Viewer reads (403 on writes), an outsider gets 403, another organization 404", async () => {
    const placed = await place(layoutId, { name: 'Guarded' });
    const path = `/v1/twin/${layoutId}/model-assets/${placed.id}`;
    const viewer = await org.serviceClient({ roleName: 'Viewer' });
    expect((await viewer.client.get(path)).status).toBe(200);
    expect((await viewer.client.get(`/v1/twin/${layoutId}/model-assets`)).status).toBe(200);
    const body = { libraryModelId: modelId, name: 'No', position };
    await refused(() => viewer.client.post(`/v1/twin/${layoutId}/model-assets`, body), 403, 'Forbidden');
    await refused(() => viewer.client.patch(path, { name: 'No' }), 403, 'Forbidden');
    await refused(() => viewer.client.delete(path), 403, 'Forbidden');
    const elsewhere = await createNode(org, org.orgId, 'division', 'Elsewhere');
    const outsider = await org.serviceClient({ roleName: 'Contributor', nodeId: elsewhere });
    await refused(() => outsider.client.get(path), 403, 'Forbidden');
    await refused(() => outsider.client.post(`/v1/twin/${layoutId}/model-assets`, body), 403, 'Forbidden');
    await refused(() => other.admin.get(path), 404, 'Not Found');
    await refused(() => other.admin.get(`/v1/twin/${layoutId}/model-assets`), 404, 'Not Found');
  });

  it('a library model placed only in a layout cannot be deleted (409 LibraryModelInUse) until that placement is gone', async () => {
    const model = await createLibraryModel(org, { name: 'Only planned' });
    const placed = await place(layoutId, { libraryModelId: model.id });
    const writer = await libraryWriter(org);
    const refusedDelete = await writer.delete(`/v1/asset-library/models/${model.id}`);
    expect(refusedDelete.status).toBe(409);
    expect(refusedDelete.body).toMatchObject({
      error: 'LibraryModelInUse',
      message: expect.stringMatching(/1 time in twins, open drafts or planning layouts/),
    });
    expect((await org.admin.delete(`/v1/twin/${layoutId}/model-assets/${placed.id}`)).status).toBe(204);
    expect((await writer.delete(`/v1/asset-library/models/${model.id}`)).status).toBe(204);
  });

  it('takes free metadata; a type given later keeps what fits (or drops the rest); a type a layout uses cannot be deleted (409 MetadataTypeInUse)', async () => {
    const placed = await place(layoutId, { name: 'Free' });
    const path = `/v1/twin/${layoutId}/model-assets/${placed.id}`;
    const free = { Lifting: { Capacity: 12, Vendor: 'ACME' } };
    const freed = await org.admin.patch(path, { metadata: free });
    expect(freed.status, JSON.stringify(freed.body)).toBe(200);
    expect((await org.admin.get(`${path}?includeMetadata=true`)).body.metadata).toEqual(free);
    await refused(
      () => org.admin.patch(path, { metadata: { Lifting: { Hooks: [1, 2] } } }),
      400,
      'ValidationError',
      /body\.metadata\.Lifting\.Hooks/,
    );
    const created = await org.admin.post('/v1/metadata-types', {
      name: `Crane ${randomUUID()}`,
      appliesTo: ['modelAsset'],
      properties: [{ section: 'Lifting', name: 'Capacity', type: 'number', unit: 't', required: true }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const typeId = created.body.id as string;
    await refused(
      () => org.admin.patch(path, { metadataTypeId: typeId }),
      400,
      'ValidationError',
      /body\.metadataTypeId: 1 of the object's metadata properties do not fit .*sections\.Lifting\.Vendor: is not a property/,
    );
    const typed = await org.admin.patch(path, { metadataTypeId: typeId, dropUnfitting: true });
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
    expect((await org.admin.get(`${path}?includeMetadata=true`)).body).toMatchObject({
      metadataTypeId: typeId,
      metadata: { Lifting: { Capacity: 12 } },
    });
    expect((await auditOf(t, org, placed.id)).at(-1)).toMatchObject({
      details: { layoutId, metadataDropped: ['sections.Lifting.Vendor'] },
    });

    const types = async () => (await org.admin.get(`/v1/metadata-types/${typeId}`)).status;
    await refused(() => org.admin.delete(`/v1/metadata-types/${typeId}`), 409, 'MetadataTypeInUse', /used by 1 object /);
    expect(await types()).toBe(200);
    expect((await org.admin.delete(path)).status).toBe(204);
    expect((await org.admin.delete(`/v1/metadata-types/${typeId}`)).status).toBe(204);
  });

  it('a layout of a trashed project is 404 on every model-asset route', async () => {
    const bundle = (
      await t.platform.regions[org.region].store.db
        .selectFrom('node_links')
        .select('from_id')
        .where('to_id', '=', projectId)
        .executeTakeFirstOrThrow()
    ).from_id;
    const doomed = await createProject(org, bundle, { name: 'Doomed' });
    const placed = await place(doomed.defaultLayout.id);
    expect((await org.admin.delete(`/v1/nodes/${doomed.id}`)).status).toBe(204);
    const base = `/v1/twin/${doomed.defaultLayout.id}/model-assets`;
    await refused(() => org.admin.get(base), 404, 'Not Found');
    await refused(() => org.admin.get(`${base}/${placed.id}`), 404, 'Not Found');
    await refused(() => org.admin.post(base, { libraryModelId: modelId, name: 'X', position }), 404, 'Not Found');
    await refused(() => org.admin.delete(`${base}/${placed.id}`), 404, 'Not Found');
  });
});
