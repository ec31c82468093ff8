import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture, snapshot } from '../support/fixtures.js';
import { MUNICH_UTM_32N, UTM_32N_WKT } from '../support/georeferencing.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { LAS_WKT_BIT, lasWktRecord, sampleBounds, shiftedSource, writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';

const POINTS = 3000;

/**
 * Twin layers (docs/twins.md, "Layers"): processed bundles linked to a site's twin. Two point
 * clouds are processed by the real worker (one placed in UTM 32N, one without a CRS), and the
 * local one once more to see the layer follow the newest derivative.
 */
describe('twin layers: PUT and DELETE /v1/twin/{siteId}/layers/{bundleId}, layers on GET /v1/twin/{ctx}', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;
  let siteId: string;
  let folderId: string;
  let placed: { bundleId: string; derivativeId: string };
  let local: { bundleId: string; derivativeId: string };

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t);
    other = await createOrg(t);
    siteId = await createSite(org);
    folderId = (await org.admin.post(`/v1/nodes/${siteId}/folder`, { name: 'Scans' })).body.id;
    const utm = await sampleBytes((file) =>
      writeLas(file, POINTS, '1.4', {
        source: shiftedSource(MUNICH_UTM_32N),
        vlrs: [lasWktRecord(UTM_32N_WKT)],
        globalEncoding: LAS_WKT_BIT,
      }),
    );
    placed = await processedPointCloud(org, folderId, { name: 'placed.las', bytes: utm });
    local = await processedPointCloud(org, siteId, { name: 'local.las', bytes: await sampleBytes((f) => writeLas(f, POINTS)) });
  }, 180_000);
  afterAll(() => t?.close());

  const layerUrl = (site: string, bundle: string) => `/v1/twin/${site}/layers/${bundle}`;
  const tilesetUrl = (derivativeId: string) => `${t.regionUrl(org.region)}/v1/nodes/${derivativeId}/tiles/tileset.json`;

  /** Every row a layer change may touch: the twin's, the tree's (links included) and the audit trail. */
  const everything = async () => ({ twin: await twinSnapshot(t, org), tree: await snapshot(t, org) });

  const refused = refuser(everything);

  async function layers(ctx = siteId) {
    const response = await org.admin.get(`/v1/twin/${ctx}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.layers as any[];
  }

  async function twinLinks() {
    return t.platform.regions[org.region].store.db
      .selectFrom('node_links')
      .select(['from_id', 'to_id'])
      .where('kind', '=', 'twin')
      .where('to_id', '=', siteId)
      .orderBy('from_id')
      .execute();
  }

  let placedLayer: any;

  it('links a georeferenced bundle (201): the layer names its derivative, tileset, extent and frame; audited once', async () => {
    expect(await layers()).toEqual([]);
    const before = (await org.admin.get(`/v1/twin/${siteId}`)).body;
    t.clock.advance(1000);
    const linked = await org.admin.request('PUT', layerUrl(siteId, placed.bundleId));
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    placedLayer = linked.body;
    expect(placedLayer).toMatchObject({
      bundleId: placed.bundleId,
      nodeId: placed.derivativeId,
      kind: 'pointCloud',
      tilesetUrl: tilesetUrl(placed.derivativeId),
      frame: { georeferenced: true, crs: 'EPSG:32632', reason: null },
    });
    // The extent is the file's own coordinates (UTM), around the place the sample was shifted to.
    const { min, max } = placedLayer.boundingBox;
    const local = sampleBounds(POINTS);
    const shift = [MUNICH_UTM_32N.x - 1000, MUNICH_UTM_32N.y - 2000, MUNICH_UTM_32N.z - 50];
    ['x', 'y', 'z'].forEach((axis, i) => {
      expect(min[axis]).toBeCloseTo((local.min[i] as number) + (shift[i] as number), 2);
      expect(max[axis]).toBeCloseTo((local.max[i] as number) + (shift[i] as number), 2);
      // The tileset is relative to the cloud's centre, which is the frame's origin.
      expect(placedLayer.frame.origin[axis]).toBeCloseTo((min[axis] + max[axis]) / 2, 6);
    });
    // The address serves the tileset, and the tileset says the same origin.
    const tileset = await org.admin.get(placedLayer.tilesetUrl.slice(t.regionUrl(org.region).length));
    expect(tileset.status).toBe(200);
    expect(tileset.body.asset.extras.georeference.origin).toEqual(['x', 'y', 'z'].map((axis) => placedLayer.frame.origin[axis]));
    expect(tileset.body.root.transform).toHaveLength(16);

    const events = await auditOf(t, org, placed.bundleId);
    expect(events.map((event) => [event.action, event.target_type, event.details])).toEqual([
      ['twin-layer.linked', 'twin-layer', { siteId, bundleId: placed.bundleId, nodeId: placed.derivativeId, kind: 'pointCloud' }],
    ]);
    expect(await twinLinks()).toEqual([{ from_id: placed.bundleId, to_id: siteId }]);
    const after = (await org.admin.get(`/v1/twin/${siteId}`)).body;
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect(after.publishedAt).toBe(before.publishedAt);

    // Idempotent: 200, the same layer, nothing written (no second audit event).
    const unchanged = await everything();
    const again = await org.admin.request('PUT', layerUrl(siteId, placed.bundleId));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(placedLayer);
    expect(await everything()).toEqual(unchanged);
  });

  it('links a bundle without a CRS: the local frame stays and the layer says so; the twin and its drafts list both', async () => {
    const linked = await org.admin.request('PUT', layerUrl(siteId, local.bundleId));
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    const bounds = sampleBounds(POINTS);
    const point = ([x, y, z]: [number, number, number]) => ({
      x: expect.closeTo(x, 2),
      y: expect.closeTo(y, 2),
      z: expect.closeTo(z, 2),
    });
    expect(linked.body).toEqual({
      bundleId: local.bundleId,
      nodeId: local.derivativeId,
      kind: 'pointCloud',
      tilesetUrl: tilesetUrl(local.derivativeId),
      boundingBox: { min: point(bounds.min), max: point(bounds.max) },
      frame: { georeferenced: false, crs: null, reason: 'noCoordinateSystem', origin: { x: 0, y: 0, z: 0 } },
      // Colors and intensity; its classes are all 0 (never classified): no classification.
      attributes: ['rgb', 'intensity'],
      comparison: null,
    });
    // In the order linked; a draft's view reads the live twin's layers.
    expect(await layers()).toEqual([placedLayer, linked.body]);
    const draft = await openDraft(org, siteId);
    expect(await layers(draft.id)).toEqual([placedLayer, linked.body]);
    const twin = (await org.admin.get(`/v1/twin/${siteId}`)).body;
    expect(twin.updatedAt >= twin.createdAt).toBe(true);
  });

  it('refuses what it cannot link, storing nothing: 404 for drafts, missing, foreign or non-bundle ids; 409 for a bundle outside the site or unprocessed', async () => {
    const draft = await openDraft(org, siteId);
    const foreignSite = await createSite(other);
    const foreignBundle = (await other.admin.post(`/v1/nodes/${foreignSite}/bundle`, { name: 'Theirs' })).body.id;
    const otherSite = await createSite(org, 'Other plant');
    const elsewhere = (await org.admin.post(`/v1/nodes/${otherSite}/bundle`, { name: 'Elsewhere' })).body.id;
    const unprocessed = (await org.admin.post(`/v1/nodes/${folderId}/bundle`, { name: 'Raw' })).body.id;

    await refused(() => org.admin.request('PUT', layerUrl(draft.id, local.bundleId)), 404, 'Not Found');
    await refused(() => org.admin.delete(layerUrl(draft.id, local.bundleId)), 404, 'Not Found');
    await refused(() => org.admin.request('PUT', layerUrl(foreignSite, local.bundleId)), 404, 'Not Found');
    await refused(() => org.admin.request('PUT', layerUrl(folderId, local.bundleId)), 404, 'Not Found');
    await refused(() => org.admin.request('PUT', layerUrl(siteId, 'no-such-bundle')), 404, 'Not Found', 'Data bundle not found');
    await refused(() => org.admin.request('PUT', layerUrl(siteId, foreignBundle)), 404, 'Not Found', 'Data bundle not found');
    await refused(() => org.admin.request('PUT', layerUrl(siteId, folderId)), 404, 'Not Found', 'Data bundle not found');
    await refused(
      () => org.admin.request('PUT', layerUrl(siteId, local.derivativeId)),
      404,
      'Not Found',
      'Data bundle not found',
    );
    await refused(() => org.admin.request('PUT', layerUrl(siteId, elsewhere)), 409, 'DataBundleNotInSite');
    await refused(() => org.admin.request('PUT', layerUrl(siteId, unprocessed)), 409, 'DataBundleHasNoTileset', /process/);
    await refused(() => org.admin.request('PUT', layerUrl(siteId, 'x'.repeat(65))), 400, 'ValidationError', /bundleId/);
    await refused(() => org.admin.delete(layerUrl(siteId, unprocessed)), 404, 'Not Found');
    await refused(() => org.admin.delete(layerUrl(siteId, 'no-such-bundle')), 404, 'Not Found');
    // Another organization sees neither the site nor the layer.
    await refused(() => other.admin.request('PUT', layerUrl(siteId, local.bundleId)), 404, 'Not Found');
    await refused(() => other.admin.delete(layerUrl(siteId, local.bundleId)), 404, 'Not Found');
    await refused(() => other.admin.get(`/v1/twin/${siteId}`), 404, 'Not Found');
    // A site that never had a twin gets none from a refused link.
    const fresh = await createSite(org, 'Fresh');
    await refused(() => org.admin.request('PUT', layerUrl(fresh, local.bundleId)), 409, 'DataBundleNotInSite');
    expect(await layers()).toHaveLength(2);
  });

  it('needs write:hierarchy and edit on the site to link or unlink, read:hierarchy to see layers', async () => {
    const noWrite = await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' });
    const noRead = await org.serviceClient({ scopes: 'read:basic write:hierarchy', roleName: 'Organization Administrator' });
    const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: siteId });
    const url = layerUrl(siteId, local.bundleId);
    await refused(() => org.admin.withToken(undefined).request('PUT', url), 401, 'not_authenticated');
    await refused(() => org.admin.withToken(undefined).delete(url), 401, 'not_authenticated');
    await refused(() => noWrite.client.request('PUT', url), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(() => noWrite.client.delete(url), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(() => noRead.client.get(`/v1/twin/${siteId}`), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(() => viewer.client.request('PUT', url), 403, 'Forbidden', 'Forbidden resource');
    await refused(() => viewer.client.delete(url), 403, 'Forbidden', 'Forbidden resource');
    expect((await viewer.client.get(`/v1/twin/${siteId}`)).body.layers).toHaveLength(2);
  });

  it('a linked bundle cannot move (409 DataBundleLinkedToTwin, nothing moved); unlinked (204, then 404) it can, and outside the site it cannot be linked', async () => {
    const otherSite = await createSite(org, 'Elsewhere');
    const inSite = (await org.admin.post(`/v1/nodes/${siteId}/folder`, { name: 'Archive' })).body.id;
    for (const target of [otherSite, inSite]) {
      await refused(
        () => org.admin.patch(`/v1/nodes/${placed.bundleId}/move/${target}?force=true`),
        409,
        'DataBundleLinkedToTwin',
      );
      await refused(() => org.admin.patch(`/v1/nodes/${folderId}/move/${target}?force=true`), 409, 'DataBundleLinkedToTwin');
      // The derivative moves with its source, so it is held too.
      await refused(
        () => org.admin.patch(`/v1/nodes/${placed.derivativeId}/move/${target}?force=true`),
        409,
        'DataBundleLinkedToTwin',
      );
    }

    const unlinked = await org.admin.delete(layerUrl(siteId, placed.bundleId));
    expect(unlinked.status).toBe(204);
    expect(await layers()).toEqual([expect.objectContaining({ bundleId: local.bundleId })]);
    expect(await twinLinks()).toEqual([{ from_id: local.bundleId, to_id: siteId }]);
    expect((await auditOf(t, org, placed.bundleId)).map((event) => [event.action, event.details])).toEqual([
      ['twin-layer.linked', expect.any(Object)],
      ['twin-layer.unlinked', { siteId, bundleId: placed.bundleId }],
    ]);
    await refused(() => org.admin.delete(layerUrl(siteId, placed.bundleId)), 404, 'Not Found');

    // Unlinked, the folder with the bundle and its derivative moves out of the site.
    const moved = await org.admin.patch(`/v1/nodes/${folderId}/move/${otherSite}?force=true`);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    await refused(() => org.admin.request('PUT', layerUrl(siteId, placed.bundleId)), 409, 'DataBundleNotInSite');
    // Linked to the other site's twin instead, and moved back after unlinking.
    expect((await org.admin.request('PUT', layerUrl(otherSite, placed.bundleId))).status).toBe(201);
    await refused(() => org.admin.patch(`/v1/nodes/${folderId}/move/${siteId}?force=true`), 409, 'DataBundleLinkedToTwin');
    expect((await org.admin.delete(layerUrl(otherSite, placed.bundleId))).status).toBe(204);
    expect((await org.admin.patch(`/v1/nodes/${folderId}/move/${siteId}?force=true`)).status).toBe(200);
    const relinked = await org.admin.request('PUT', layerUrl(siteId, placed.bundleId));
    expect(relinked.status).toBe(201);
    expect(relinked.body).toEqual(placedLayer);
    // Moving the whole site moves the twin with its bundles: allowed.
    const division = (await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'New division' })).body.id;
    expect((await org.admin.patch(`/v1/nodes/${siteId}/move/${division}?force=true`)).status).toBe(200);
    expect(await layers()).toHaveLength(2);
  });

  it('follows the newest processed derivative; a trashed derivative falls back to the one before, none left shows no layer', async () => {
    const { cost } = (await org.admin.get(`/v1/bundles/${local.bundleId}/processing/cost`)).body;
    const submitted = await org.admin.post(`/v1/bundles/${local.bundleId}/processing`, { cost });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    let bundle: any;
    for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((r) => setTimeout(r, 100))) {
      bundle = (await org.admin.get(`/v1/bundles/${local.bundleId}?expand=processings`)).body;
      if (bundle.state !== 'processing' && bundle.processings.length === 2) break;
    }
    expect(bundle.processings.map((p: any) => p.state)).toEqual(['succeeded', 'succeeded']);
    const newest = bundle.processings[1].derivativeId as string;
    expect(newest).not.toBe(local.derivativeId);
    const current = async () => (await layers()).find((layer) => layer.bundleId === local.bundleId);
    expect(await current()).toMatchObject({ nodeId: newest, tilesetUrl: tilesetUrl(newest) });

    expect((await org.admin.delete(`/v1/nodes/${newest}`)).status).toBe(204);
    expect(await current()).toMatchObject({ nodeId: local.derivativeId, tilesetUrl: tilesetUrl(local.derivativeId) });
    expect((await org.admin.delete(`/v1/nodes/${local.derivativeId}`)).status).toBe(204);
    expect(await current()).toBeUndefined();
    // Still linked: linking again says why it shows nothing; restored, the layer is back.
    await refused(() => org.admin.request('PUT', layerUrl(siteId, local.bundleId)), 409, 'DataBundleHasNoTileset');
    expect((await org.admin.patch(`/v1/nodes/${newest}/restore`)).status).toBe(200);
    expect(await current()).toMatchObject({ nodeId: newest });
  });

  it('a link and a move of the bundle out of the site at once: one wins, never a link to a bundle outside the site', async () => {
    const otherSite = await createSite(org, 'Concurrent');
    const inSite = async () => (await org.admin.get(`/v1/nodes/${local.bundleId}`)).body.parentId === siteId;
    expect((await org.admin.delete(layerUrl(siteId, local.bundleId))).status).toBe(204);
    for (let round = 0; round < 6; round += 1) {
      const [linked, moved] = await Promise.all([
        org.admin.request('PUT', layerUrl(siteId, local.bundleId)),
        org.admin.patch(`/v1/nodes/${local.bundleId}/move/${otherSite}?force=true`),
      ]);
      const links = await twinLinks();
      const isLinked = links.some((row) => row.from_id === local.bundleId);
      if (linked.status === 201) {
        expect(moved.body).toMatchObject({ statusCode: 409, error: 'DataBundleLinkedToTwin' });
        expect(isLinked).toBe(true);
        expect(await inSite()).toBe(true);
        expect((await org.admin.delete(layerUrl(siteId, local.bundleId))).status).toBe(204);
      } else {
        expect(linked.body).toMatchObject({ statusCode: 409, error: 'DataBundleNotInSite' });
        expect(moved.status, JSON.stringify(moved.body)).toBe(200);
        expect(isLinked).toBe(false);
        expect((await org.admin.patch(`/v1/nodes/${local.bundleId}/move/${siteId}?force=true`)).status).toBe(200);
      }
    }
    // Without the link's lock on the bundle's branch, PostgreSQL answered 201 and 200 here (in two runs of two).
    expect((await org.admin.request('PUT', layerUrl(siteId, local.bundleId))).status).toBe(201);
  });

  it("a trashed bundle's layer is not served (restored, it is again); a hard-deleted bundle's link goes with it", async () => {
    expect((await org.admin.delete(`/v1/nodes/${folderId}`)).status).toBe(204);
    expect((await layers()).map((layer) => layer.bundleId)).toEqual([local.bundleId]);
    expect(await twinLinks()).toHaveLength(2);
    await refused(() => org.admin.request('PUT', layerUrl(siteId, placed.bundleId)), 404, 'Not Found');
    expect((await org.admin.patch(`/v1/nodes/${folderId}/restore`)).status).toBe(200);
    // In link order: the local bundle was relinked last, in the test before.
    expect((await layers()).map((layer) => layer.bundleId)).toEqual([placed.bundleId, local.bundleId]);

    expect((await org.admin.delete(`/v1/nodes/${folderId}`)).status).toBe(204);
    expect((await org.admin.delete(`/v1/nodes/${folderId}/hard`)).status).toBe(204);
    expect(await twinLinks()).toEqual([{ from_id: local.bundleId, to_id: siteId }]);
    expect((await layers()).map((layer) => layer.bundleId)).toEqual([local.bundleId]);
    await refused(() => org.admin.request('PUT', layerUrl(siteId, placed.bundleId)), 404, 'Not Found');
    await refused(() => org.admin.delete(layerUrl(siteId, placed.bundleId)), 404, 'Not Found');
  });

  it('a layer lists what its tiles carry: rgb, intensity and classification as processed; ["rgb"] for a processing from before they were recorded', async () => {
    const classified = await processedPointCloud(org, siteId, {
      name: 'classified.las',
      bytes: await sampleBytes((file) => writeLas(file, POINTS, '1.4', { pointFormat: 6, classification: true })),
    });
    const linked = await org.admin.request('PUT', layerUrl(siteId, classified.bundleId));
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    // Point format 6 has no colors.
    expect(linked.body.attributes).toEqual(['intensity', 'classification']);
    expect((await layers()).find((layer) => layer.bundleId === classified.bundleId).attributes).toEqual([
      'intensity',
      'classification',
    ]);
    // The tiles say the same: every tile has both attributes.
    const tileset = await org.admin.get(`/v1/nodes/${classified.derivativeId}/tiles/tileset.json`);
    const uri = tileset.body.root.content.uri as string;
    const tile = await fetch(`${org.admin.baseUrl}/v1/nodes/${classified.derivativeId}/tiles/${uri}`, {
      headers: { authorization: `Bearer ${org.admin.token}` },
    });
    expect(tile.status).toBe(200);
    const glb = Buffer.from(await tile.arrayBuffer());
    const json = JSON.parse(glb.toString('utf8', 20, 20 + glb.readUInt32LE(12)));
    expect(Object.keys(json.meshes[0].primitives[0].attributes).sort()).toEqual(['POSITION', '_CLASSIFICATION', '_INTENSITY']);

    // A processing from before regional migration 0025 has no attributes recorded.
    const db = t.platform.regions[org.region].store.db;
    await db
      .updateTable('processings')
      .set({ attributes: null })
      .where('derivative_node_id', '=', classified.derivativeId)
      .execute();
    expect((await layers()).find((layer) => layer.bundleId === classified.bundleId).attributes).toEqual(['rgb']);
  });
});
