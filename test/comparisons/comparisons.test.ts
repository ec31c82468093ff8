import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMPARED_COUNT,
  FAR,
  FLOOR,
  ORIGIN,
  REFERENCE_COUNT,
  scenePoint,
  stored,
  WALL,
  writeScans,
} from '../support/comparison-scans.js';
import { type ApiClient, createOrg, createTree, type OrgFixture, snapshot } from '../support/fixtures.js';
import { contentUris, glbPointCount, processedPointCloud } from '../support/processed-point-cloud.js';
import { rdpAdmin } from '../support/rdp-cli.js';
import { expectRefused } from '../support/refusals.js';
import { startPlatform, type TestPlatform } from '../support/start-platform.js';
import { readTileAttributes } from '../support/tile-attributes.js';
import { auditOf, createSite } from '../support/twins.js';

function bruteForce(reference: [number, number, number][], [x, y, z]: number[]): number {
  let best = Infinity;
  for (const [rx, ry, rz] of reference) best = Math.min(best, Math.hypot(rx - x!, ry - y!, rz - z!));
  return best;
}

function nearestRank(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A promise and what settles it: a gate a test opens. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

async function waitForEnd(client: ApiClient, siteId: string, comparisonId: string) {
  const since = Date.now();
  for (;;) {
    const { body } = await client.get(`/v1/twin/${siteId}/comparisons/${comparisonId}`);
    if (body.state === 'ready' || body.state === 'failed') return body;
    expect(body.progress).toBeGreaterThanOrEqual(0);
    if (Date.now() - since > 90_000) throw new Error('the comparison did not end within 90 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('comparisons of two processed point clouds, through HTTP', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;
  let siteId: string;
  let folderId: string;
  let referenceId: string;
  let comparedId: string;
  let dir: string;
  const referencePoints = Array.from({ length: REFERENCE_COUNT }, (_, i) => stored(scenePoint(i, false)));

  const comparisonRows = () =>
    t.platform.regions[org.region].store.db.selectFrom('comparisons').selectAll().orderBy('id').execute();
  const nothingStored = async () => ({
    rows: await comparisonRows(),
    // Without the CSV links: each read signs a fresh one, whose expiry moves with the clock.
    listed: (await org.admin.get(`/v1/twin/${siteId}/comparisons`)).body.map(
      ({ downloadUrl, ...comparison }: { downloadUrl: string | null }) => ({ ...comparison, hasDownload: downloadUrl !== null }),
    ),
    audit: await t.platform.regions[org.region].store.db
      .selectFrom('audit_events')
      .select(['id'])
      .where('org_id', '=', org.orgId)
      .where('target_type', '=', 'comparison')
      .execute(),
  });
  const pathOf = (url: string) => url.slice(t.regionUrl(org.region).length);
  const costOf = async (referenceBundleId: string, comparedBundleId: string) =>
    (
      await org.admin.get(
        `/v1/twin/${siteId}/comparisons/cost?referenceBundleId=${referenceBundleId}&comparedBundleId=${comparedBundleId}`,
      )
    ).body.cost as number;

  /**
   * Runs `before` ahead of each write of a comparison's job to the blob store (the worker in this
   * process shares the platform's store), recording the keys; it may hold the write or make it fail.
   */
  const interceptComparisonWrites = (before: (key: string) => Promise<void>) => {
    const blobs = t.platform.blobs;
    const write = blobs.write;
    const keys: string[] = [];
    blobs.write = async (key, body) => {
      if (key.startsWith(`orgs/${org.orgId}/comparisons/`)) {
        keys.push(key);
        try {
          await before(key);
        } catch (error) {
          if (body instanceof Readable) body.destroy();
          throw error;
        }
      }
      return write.call(blobs, key, body);
    };
    const restore = () => {
      blobs.write = write;
    };
    return { keys, restore };
  };
  const submitComparison = async () =>
    org.admin.post(`/v1/twin/${siteId}/comparisons`, {
      referenceBundleId: referenceId,
      comparedBundleId: comparedId,
      cost: await costOf(referenceId, comparedId),
    });
  const storageUse = async () => (await org.admin.get('/v1/storage')).body as { usedBytes: number; quotaBytes: number | null };

  beforeAll(async () => {
    // Webhook endpoints on a private address: the events are read from the outbox, no dispatcher sends them.
    t = await startPlatform({ RDP_WEBHOOK_ALLOW_PRIVATE: '1' }, { worker: true });
    org = await createOrg(t, { storageQuota: 100 * 1024 * 1024 });
    other = await createOrg(t);
    ({ siteId, folderId } = await createTree(org));
    dir = await mkdtemp(path.join(tmpdir(), 'rdp-comparisons-'));
    await writeScans(dir);
    const reference = await processedPointCloud(org, folderId, {
      name: 'reference.las',
      bytes: await readFile(path.join(dir, 'reference.las')),
    });
    const compared = await processedPointCloud(org, folderId, {
      name: 'compared.las',
      bytes: await readFile(path.join(dir, 'compared.las')),
    });
    referenceId = reference.bundleId;
    comparedId = compared.bundleId;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('compares: the figures, the histogram, the CSV against brute force, the tiles, a twin layer; delete removes them', async () => {
    const hooks = (
      await org.serviceClient({ scopes: 'read:basic read:webhooks write:webhooks', roleName: 'Organization Administrator' })
    ).client;
    const hook = await hooks.post('/v1/webhooks', {
      url: 'http://127.0.0.1:9/rdp',
      eventTypes: ['comparison.succeeded', 'comparison.failed'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const cost = await costOf(referenceId, comparedId);
    // 2 credits, and 1 for the started million points of both scans.
    expect(cost).toBe(3);
    const started = await org.admin.post(`/v1/twin/${siteId}/comparisons`, {
      name: 'Slab and wall',
      referenceBundleId: referenceId,
      comparedBundleId: comparedId,
      cost,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({
      name: 'Slab and wall',
      referenceBundleId: referenceId,
      comparedBundleId: comparedId,
      method: 'c2c',
      maxDistance: 1,
      tolerance: 0.05,
      cost: 3,
      state: 'queued',
      progress: 0,
      stats: null,
      histogram: null,
      tilesetUrl: null,
      downloadUrl: null,
      finishedAt: null,
    });
    const id = started.body.id as string;
    const done = await waitForEnd(org.admin, siteId, id);
    expect(done.state, done.failureReason).toBe('ready');
    expect(done.progress).toBe(1);

    // The test's own exact distances, from the points as the LAS files keep them.
    const comparedPoints = Array.from({ length: COMPARED_COUNT }, (_, i) => stored(scenePoint(i, true)));
    const exact = comparedPoints.map((p) => bruteForce(referencePoints, p));
    const kept = exact.filter((d) => d <= 1).sort((a, b) => a - b);
    expect(kept.length).toBe(FLOOR + WALL);
    const { stats, histogram } = done;
    expect(stats).toMatchObject({ comparedPoints: COMPARED_COUNT, beyondMaxDistance: FAR });
    expect(stats.max).toBeCloseTo(0.3, 4);
    expect(stats.mean).toBeCloseTo(kept.reduce((sum, d) => sum + d, 0) / kept.length, 4);
    expect(stats.median).toBeCloseTo(nearestRank(kept, 50), 4);
    expect(stats.p95).toBeCloseTo(nearestRank(kept, 95), 4);
    expect(stats.p99).toBeCloseTo(nearestRank(kept, 99), 4);
    expect(stats.rms).toBeCloseTo(Math.sqrt(kept.reduce((sum, d) => sum + d * d, 0) / kept.length), 4);
    expect(stats.withinTolerance).toBeCloseTo(kept.filter((d) => d <= 0.05).length / kept.length, 6);
    // Raised by 10 cm: the 10 columns below x = 5; moved by 30 cm: the wall. The rest unchanged.
    expect(kept.filter((d) => Math.abs(d - 0.1) < 1e-6).length).toBe(10 * 21);
    expect(kept.filter((d) => Math.abs(d - 0.3) < 1e-6).length).toBe(WALL);
    expect(histogram.bins.length).toBe(40);
    expect(histogram.bins.reduce((sum: number, bin: { count: number }) => sum + bin.count, 0)).toBe(kept.length);
    expect(histogram.bins[0]).toMatchObject({ from: 0, count: kept.filter((d) => d < histogram.binWidth).length });
    expect(histogram.bins.at(-1).to).toBeCloseTo(stats.max, 6);
    expect(histogram.bins.at(-1).count).toBe(WALL);

    // The CSV: one line per compared point, its distance the exact one (empty beyond maxDistance).
    const csv = await fetch(done.downloadUrl);
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe('x,y,z,distance');
    expect(lines.length - 1).toBe(COMPARED_COUNT);
    let beyond = 0;
    for (const line of lines.slice(1)) {
      const [x, y, z, distance] = line.split(',').map((value) => (value === '' ? undefined : Number(value)));
      const nearest = bruteForce(referencePoints, [x!, y!, z!]);
      if (distance === undefined) {
        expect(nearest).toBeGreaterThan(1);
        beyond += 1;
      } else expect(Math.abs(distance - nearest)).toBeLessThan(1e-4);
    }
    expect(beyond).toBe(FAR);

    // The tiles, served through the API as a derivative's are.
    expect(done.tilesetUrl).toBe(`${t.regionUrl(org.region)}/v1/twin/${siteId}/comparisons/${id}/tiles/tileset.json`);
    const tileset = await org.admin.get(pathOf(done.tilesetUrl));
    expect(tileset.status).toBe(200);
    const uris = contentUris(tileset.body);
    expect(uris.length).toBeGreaterThan(0);
    const tileUrl = `${pathOf(done.tilesetUrl).replace(/tileset\.json$/, '')}${uris[0]}`;
    const tile = await fetch(`${t.regionUrl(org.region)}${tileUrl}`, { headers: { authorization: `Bearer ${org.admin.token}` } });
    expect(tile.status).toBe(200);
    expect(glbPointCount(Buffer.from(await tile.arrayBuffer()))).toBeGreaterThan(0);
    expect((await org.admin.get(`/v1/twin/${siteId}/comparisons/${id}/tiles/..%2F..%2Fdistances.csv`)).status).toBe(404);
    // Every point of every tile carries its exact distance as _DISTANCE (-1 beyond maxDistance).
    const fetched = await mkdtemp(path.join(tmpdir(), 'rdp-comparison-tiles-'));
    try {
      await writeFile(path.join(fetched, 'tileset.json'), JSON.stringify(tileset.body));
      for (const uri of uris) {
        const response = await fetch(`${t.regionUrl(org.region)}${pathOf(done.tilesetUrl).replace(/tileset\.json$/, '')}${uri}`, {
          headers: { authorization: `Bearer ${org.admin.token}` },
        });
        await mkdir(path.dirname(path.join(fetched, uri)), { recursive: true });
        await writeFile(path.join(fetched, uri), Buffer.from(await response.arrayBuffer()));
      }
      const read = await readTileAttributes(fetched);
      expect(read.names).toContain('_DISTANCE');
      expect(read.points.length).toBeGreaterThanOrEqual(COMPARED_COUNT);
      for (const point of read.points) {
        const nearest = bruteForce(referencePoints, [point.x, point.y, point.z]);
        if (nearest > 1) expect(point.distance).toBe(-1);
        else expect(Math.abs(point.distance! - nearest)).toBeLessThan(1e-3);
      }
    } finally {
      await rm(fetched, { recursive: true, force: true });
    }

    // A twin layer of kind comparison, listed with the twin's layers.
    const layer = await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${id}`);
    expect(layer.status, JSON.stringify(layer.body)).toBe(201);
    expect(layer.body).toMatchObject({
      kind: 'comparison',
      bundleId: comparedId,
      nodeId: id,
      tilesetUrl: done.tilesetUrl,
      comparison: { comparisonId: id, method: 'c2c', tolerance: 0.05, maxDistance: 1 },
    });
    expect(layer.body.attributes).toContain('distance');
    expect(layer.body.boundingBox.min.x).toBeCloseTo(ORIGIN.x, 3);
    expect((await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${id}`)).status).toBe(200);
    const twin = await org.admin.get(`/v1/twin/${siteId}`);
    expect(twin.body.layers.map((l: { nodeId: string; comparison: unknown }) => [l.nodeId, l.comparison === null])).toEqual([
      [id, false],
    ]);
    // Bundle layers keep their shape, with comparison null.
    expect((await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${referenceId}`)).body).toMatchObject({
      kind: 'pointCloud',
      comparison: null,
    });
    expect((await org.admin.delete(`/v1/twin/${siteId}/layers/${referenceId}`)).status).toBe(204);
    expect((await org.admin.delete(`/v1/twin/${siteId}/layers/${id}`)).status).toBe(204);
    expect((await org.admin.get(`/v1/twin/${siteId}`)).body.layers).toEqual([]);
    expect((await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${id}`)).status).toBe(201);

    const events = await t.platform.regions[org.region].store.db
      .selectFrom('webhook_events')
      .select(['type', 'payload'])
      .where('org_id', '=', org.orgId)
      .where('type', 'like', 'comparison.%')
      .execute();
    expect(events.map((event) => event.type)).toEqual(['comparison.succeeded']);
    expect(JSON.parse(events[0]!.payload).data).toMatchObject({ comparisonId: id, siteId, referenceBundleId: referenceId });

    // Delete: 204, then the comparison, its tiles, its CSV and its layer are gone.
    expect((await org.admin.delete(`/v1/twin/${siteId}/comparisons/${id}`)).status).toBe(204);
    expect((await org.admin.get(`/v1/twin/${siteId}/comparisons/${id}`)).status).toBe(404);
    expect((await org.admin.get(pathOf(done.tilesetUrl))).status).toBe(404);
    expect((await fetch(done.downloadUrl)).status).toBe(404);
    expect((await org.admin.get(`/v1/twin/${siteId}`)).body.layers).toEqual([]);
    expect((await org.admin.delete(`/v1/twin/${siteId}/comparisons/${id}`)).status).toBe(404);
    expect((await auditOf(t, org, id)).map((event) => event.action)).toEqual([
      'comparison.created',
      'twin-layer.linked',
      'twin-layer.unlinked',
      'twin-layer.linked',
      'comparison.deleted',
    ]);
  }, 120_000);

  it('refuses, storing nothing: another site or organization (404), not ready (409), a stale cost (409), the same bundle twice and settings out of bounds (400)', async () => {
    const otherSite = await createSite(org, 'Other site');
    const elsewhere = (await org.admin.post(`/v1/nodes/${otherSite}/bundle`, { name: 'Elsewhere' })).body.id as string;
    const otherTree = await createTree(other);
    const foreign = (await other.admin.post(`/v1/nodes/${otherTree.folderId}/bundle`, { name: 'Foreign' })).body.id as string;
    const empty = (await org.admin.post(`/v1/nodes/${folderId}/bundle`, { name: 'Not uploaded' })).body.id as string;
    expect(elsewhere && foreign && empty).toBeTruthy();
    const cost = await costOf(referenceId, comparedId);
    const submit = (body: Record<string, unknown>) =>
      org.admin.post(`/v1/twin/${siteId}/comparisons`, {
        referenceBundleId: referenceId,
        comparedBundleId: comparedId,
        cost,
        ...body,
      });
    const cases: [Record<string, unknown>, { status: number; error?: string; message?: RegExp }][] = [
      [{ comparedBundleId: elsewhere }, { status: 404, error: 'Not Found' }],
      [{ referenceBundleId: foreign }, { status: 404, error: 'Not Found' }],
      [{ comparedBundleId: empty }, { status: 409, error: 'BundleNotReady' }],
      [{ cost: cost + 1 }, { status: 409, error: 'ProcessingCostMismatch' }],
      [{ comparedBundleId: referenceId }, { status: 400, message: /body\.comparedBundleId/ }],
      [{ maxDistance: 0.0005 }, { status: 400, message: /maxDistance/ }],
      [{ maxDistance: 1001 }, { status: 400, message: /maxDistance/ }],
      [{ tolerance: 0 }, { status: 400, message: /tolerance/ }],
      [
        { maxDistance: 0.5, tolerance: 0.6 },
        { status: 400, message: /tolerance/ },
      ],
      [{ method: 'nearest' }, { status: 400, message: /method/ }],
    ];
    for (const [body, refusal] of cases) {
      await expectRefused(() => submit(body), refusal, nothingStored);
    }
    const costRefusals: [string, string, number][] = [
      [referenceId, referenceId, 400],
      [referenceId, empty, 409],
      [elsewhere, comparedId, 404],
      [referenceId, foreign, 404],
    ];
    for (const [a, b, status] of costRefusals) {
      const answer = await org.admin.get(`/v1/twin/${siteId}/comparisons/cost?referenceBundleId=${a}&comparedBundleId=${b}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(answer.body.statusCode).toBe(status);
    }
  }, 60_000);

  it('fails a comparison whose input went, saying why: no figures, no outputs, no layer; comparison.failed', async () => {
    const third = await processedPointCloud(org, folderId, {
      name: 'third.las',
      bytes: await readFile(path.join(dir, 'compared.las')),
    });
    const db = t.platform.regions[org.region].store.db;
    const input = await db
      .selectFrom('stored_objects')
      .select('blob_key')
      .where('node_id', '=', third.bundleId)
      .where('purpose', '=', 'bundle-input')
      .executeTakeFirstOrThrow();
    await t.platform.blobs.delete(input.blob_key);
    const cost = await costOf(referenceId, third.bundleId);
    const started = await org.admin.post(`/v1/twin/${siteId}/comparisons`, {
      referenceBundleId: referenceId,
      comparedBundleId: third.bundleId,
      cost,
    });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    const done = await waitForEnd(org.admin, siteId, id);
    expect(done).toMatchObject({
      state: 'failed',
      progress: null,
      failureReason: expect.stringMatching(/^The comparison failed on an internal error/),
      stats: null,
      histogram: null,
      tilesetUrl: null,
      downloadUrl: null,
    });
    expect(done.finishedAt).not.toBeNull();
    await expectRefused(
      () => org.admin.request('PUT', `/v1/twin/${siteId}/layers/${id}`),
      { status: 409, error: 'ComparisonNotReady' },
      nothingStored,
    );
    const events = await db.selectFrom('webhook_events').select('payload').where('type', '=', 'comparison.failed').execute();
    expect(events.map((event) => JSON.parse(event.payload).data)).toMatchObject([
      { comparisonId: id, comparedBundleId: third.bundleId, reason: done.failureReason },
    ]);
  }, 120_000);

  it('lets a reader read but not submit or delete; another organization sees nothing (404)', async () => {
    const cost = await costOf(referenceId, comparedId);
    const started = await org.admin.post(`/v1/twin/${siteId}/comparisons`, {
      referenceBundleId: referenceId,
      comparedBundleId: comparedId,
      maxDistance: 0.5,
      tolerance: 0.2,
      cost,
    });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    const done = await waitForEnd(org.admin, siteId, id);
    expect(done).toMatchObject({ state: 'ready', maxDistance: 0.5, tolerance: 0.2 });
    expect(done.stats.withinTolerance).toBeCloseTo(FLOOR / (FLOOR + WALL), 6);

    const { client: reader } = await org.serviceClient({ roleName: 'Viewer', nodeId: siteId });
    expect((await reader.get(`/v1/twin/${siteId}/comparisons`)).body.map((c: { id: string }) => c.id)).toContain(id);
    expect((await reader.get(`/v1/twin/${siteId}/comparisons/${id}`)).body).toMatchObject({ id, state: 'ready' });
    expect((await reader.get(pathOf(done.tilesetUrl))).status).toBe(200);
    await expectRefused(
      () => reader.post(`/v1/twin/${siteId}/comparisons`, { referenceBundleId: referenceId, comparedBundleId: comparedId, cost }),
      { status: 403 },
      nothingStored,
    );
    await expectRefused(() => reader.delete(`/v1/twin/${siteId}/comparisons/${id}`), { status: 403 }, nothingStored);
    const { client: readOnlyToken } = await org.serviceClient({
      scopes: 'read:hierarchy',
      roleName: 'Organization Administrator',
    });
    await expectRefused(
      () =>
        readOnlyToken.post(`/v1/twin/${siteId}/comparisons`, {
          referenceBundleId: referenceId,
          comparedBundleId: comparedId,
          cost,
        }),
      { status: 403 },
      nothingStored,
    );

    // An embed token of the site's twin reads the comparison and its tiles, as a layer's; not another site's.
    const session = await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: ['https://app.example.com'] });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const embedded = org.admin.withToken(session.body.token);
    expect((await embedded.get(`/v1/twin/${siteId}/comparisons/${id}`)).body).toMatchObject({ id, state: 'ready' });
    expect((await embedded.get(pathOf(done.tilesetUrl))).status).toBe(200);
    expect((await embedded.delete(`/v1/twin/${siteId}/comparisons/${id}`)).status).toBe(403);

    for (const route of [
      `/v1/twin/${siteId}/comparisons`,
      `/v1/twin/${siteId}/comparisons/${id}`,
      `/v1/twin/${siteId}/comparisons/cost?referenceBundleId=${referenceId}&comparedBundleId=${comparedId}`,
      pathOf(done.tilesetUrl),
    ]) {
      expect((await other.admin.get(route)).status, route).toBe(404);
    }
    await expectRefused(() => other.admin.delete(`/v1/twin/${siteId}/comparisons/${id}`), { status: 404 }, nothingStored);
    await expectRefused(
      () =>
        other.admin.post(`/v1/twin/${siteId}/comparisons`, {
          referenceBundleId: referenceId,
          comparedBundleId: comparedId,
          cost,
        }),
      { status: 404 },
      nothingStored,
    );
    // Another site of the organization does not show it.
    const otherSite = await createSite(org, 'Third site');
    expect((await org.admin.get(`/v1/twin/${otherSite}/comparisons/${id}`)).status).toBe(404);
    expect((await org.admin.get(`/v1/twin/${otherSite}/comparisons`)).body).toEqual([]);
  }, 120_000);
  it('compares by M3C2: signed changes along the normals with their level of detection, in the CSV, the figures and the layer', async () => {
    const cost = await costOf(referenceId, comparedId);
    const started = await org.admin.post(`/v1/twin/${siteId}/comparisons`, {
      name: 'Slab by M3C2',
      referenceBundleId: referenceId,
      comparedBundleId: comparedId,
      method: 'm3c2',
      cost,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({ method: 'm3c2', state: 'queued' });
    const id = started.body.id as string;
    const done = await waitForEnd(org.admin, siteId, id);
    expect(done.state, done.failureReason).toBe('ready');

    const lines = (await (await fetch(done.downloadUrl)).text()).trim().split('\n');
    expect(lines[0]).toBe('x,y,z,distance,lod95,significant');
    expect(lines.length - 1).toBe(COMPARED_COUNT);
    // The floor's points within 2 m of x = 0 (the cylinders, 4 m across at a 0.5 m spacing, wholly on the raised part): +10 cm, significant.
    let raised = 0;
    let none = 0;
    for (const line of lines.slice(1)) {
      const [x, , z, distance, lod95, significant] = line.split(',');
      if (distance === '') {
        none += 1;
        continue;
      }
      expect(Number(lod95)).toBeGreaterThanOrEqual(0);
      if (Number(x) - ORIGIN.x <= 2 && Number(z) - ORIGIN.z > 0.05 && Number(z) - ORIGIN.z < 0.15) {
        // Within 2 mm: the normals lean a little where their 8 m neighbourhood reaches the step.
        expect(Number(distance)).toBeCloseTo(0.1, 2);
        expect(significant).toBe('1');
        raised += 1;
      }
    }
    expect(raised).toBe(5 * 21);
    expect(none).toBeGreaterThanOrEqual(FAR);
    expect(done.stats).toMatchObject({ comparedPoints: COMPARED_COUNT, beyondMaxDistance: none });
    expect(done.stats.max).toBeLessThanOrEqual(1);

    const layer = await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${id}`);
    expect(layer.status, JSON.stringify(layer.body)).toBe(201);
    expect(layer.body).toMatchObject({ kind: 'comparison', comparison: { comparisonId: id, method: 'm3c2' } });
    expect((await org.admin.request('DELETE', `/v1/twin/${siteId}/comparisons/${id}`)).status).toBe(204);
  });

  it("takes one of the organization's processing slots, counted with its processings: refused as a processing is when they are all taken, storing nothing", async () => {
    const processingCost = (await org.admin.get(`/v1/bundles/${referenceId}/processing/cost`)).body.cost as number;
    const processingRefused = async () => {
      const before = await snapshot(t, org);
      const refused = await org.admin.post(`/v1/bundles/${referenceId}/processing`, { cost: processingCost });
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(await snapshot(t, org)).toEqual(before);
      return refused.body;
    };
    // The comparison's job waits at its first write: running, it holds the organization's one slot.
    const reached = gate();
    const release = gate();
    const writes = interceptComparisonWrites(async () => {
      reached.open();
      await release.opened;
    });
    try {
      expect(await rdpAdmin(t, 'org', 'set-processing-slots', '--org', org.orgId, '--slots', '1')).toMatchObject({
        processingSlots: 1,
      });
      const held = await submitComparison();
      expect(held.status, JSON.stringify(held.body)).toBe(202);
      await reached.opened;
      expect((await org.admin.get(`/v1/twin/${siteId}/comparisons/${held.body.id}`)).body.state).toBe('running');
      const comparisonRefusal = await expectRefused(
        submitComparison,
        {
          status: 409,
          error: 'InsufficientProcessingCapacity',
          message: "The organization's 1 processing slots are taken; retry later",
        },
        nothingStored,
      );
      // The same refusal as a processing's, which the running comparison's slot holds back too.
      expect(await processingRefused()).toEqual(comparisonRefusal.body);
      release.open();
      expect((await waitForEnd(org.admin, siteId, held.body.id)).state).toBe('ready');
      // The slot is free again: a comparison is taken.
      const next = await submitComparison();
      expect(next.status, JSON.stringify(next.body)).toBe(202);
      expect((await waitForEnd(org.admin, siteId, next.body.id)).state).toBe('ready');

      // No slot at all: a comparison is refused as a processing is, with the same answer.
      await rdpAdmin(t, 'org', 'set-processing-slots', '--org', org.orgId, '--slots', '0');
      const none = await expectRefused(submitComparison, { status: 409, error: 'InsufficientProcessingCapacity' }, nothingStored);
      expect(await processingRefused()).toEqual(none.body);
      for (const id of [held.body.id, next.body.id])
        expect((await org.admin.delete(`/v1/twin/${siteId}/comparisons/${id}`)).status).toBe(204);
    } finally {
      release.open();
      writes.restore();
      await rdpAdmin(t, 'org', 'set-processing-slots', '--org', org.orgId, '--slots', 'unlimited');
    }
  }, 120_000);

  it('counts its tiles and CSV in the storage use until it is deleted; outputs past the quota are kept as a processing keeps them, and the next upload is refused', async () => {
    const before = await storageUse();
    const operatorBefore = await rdpAdmin(t, 'org', 'storage', '--org', org.orgId);
    // A quota of one byte more than in use: the comparison's outputs go past it, as a processing's may.
    await rdpAdmin(t, 'org', 'set-quota', '--org', org.orgId, '--storage-quota', String(before.usedBytes + 1));
    const writes = interceptComparisonWrites(async () => undefined);
    try {
      const started = await submitComparison();
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const done = await waitForEnd(org.admin, siteId, started.body.id);
      expect(done.state, done.failureReason).toBe('ready');
      let stored = 0;
      for (const key of writes.keys) stored += (await t.platform.blobs.head(key))?.size ?? Number.NaN;
      expect(writes.keys.some((key) => key.endsWith('/distances.csv'))).toBe(true);
      expect(writes.keys.some((key) => key.includes('/tiles/'))).toBe(true);
      expect(stored).toBeGreaterThan(0);
      const after = await storageUse();
      expect(after).toMatchObject({ usedBytes: before.usedBytes + stored, quotaBytes: before.usedBytes + 1 });
      // The operator's view counts them as the quota does, and says which part they are.
      expect(await rdpAdmin(t, 'org', 'storage', '--org', org.orgId)).toMatchObject({
        comparisonBytes: operatorBefore.comparisonBytes + stored,
        usedBytes: after.usedBytes,
      });
      // Over the quota: the next upload is refused, storing nothing.
      const bundle = await org.admin.post(`/v1/nodes/${folderId}/bundle`, { name: 'Over the quota' });
      await expectRefused(
        () => org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`),
        { status: 403, error: 'StorageLimitExceeded' },
        () => snapshot(t, org),
      );
      // The delete releases them.
      expect((await org.admin.delete(`/v1/twin/${siteId}/comparisons/${started.body.id}`)).status).toBe(204);
      expect((await storageUse()).usedBytes).toBe(before.usedBytes);
      expect((await org.admin.delete(`/v1/nodes/${bundle.body.id}`)).status).toBe(204);
    } finally {
      writes.restore();
      await rdpAdmin(t, 'org', 'set-quota', '--org', org.orgId, '--storage-quota', String(100 * 1024 * 1024));
    }
  }, 120_000);

  it('keeps nothing in the blob store of a comparison deleted while its job runs, when the job then fails', async () => {
    // The job waits at its first tile; the comparison is deleted; it then writes more tiles and fails on its CSV.
    const reached = gate();
    const release = gate();
    let first = true;
    const writes = interceptComparisonWrites(async (key) => {
      if (first) {
        first = false;
        reached.open();
        await release.opened;
      }
      if (key.endsWith('/distances.csv')) throw new Error('the blob store refused the write');
    });
    try {
      const started = await submitComparison();
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      await reached.opened;
      const db = t.platform.regions[org.region].store.db;
      const { job_id: jobId } = await db
        .selectFrom('comparisons')
        .select('job_id')
        .where('id', '=', started.body.id)
        .executeTakeFirstOrThrow();
      expect(jobId).toBeTruthy();
      expect((await org.admin.delete(`/v1/twin/${siteId}/comparisons/${started.body.id}`)).status).toBe(204);
      release.open();
      const since = Date.now();
      for (;;) {
        const job = await t.platform.jobs.get(jobId as string);
        if (job?.state === 'failed') break;
        if (Date.now() - since > 60_000) throw new Error(`the comparison job did not fail within 60 s: ${job?.state}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // It wrote after the delete (every tile, then the CSV it failed on), and none of it stays.
      expect(writes.keys.length).toBeGreaterThan(2);
      for (const key of writes.keys) expect(await t.platform.blobs.head(key), key).toBeUndefined();
      expect((await org.admin.get(`/v1/twin/${siteId}/comparisons/${started.body.id}`)).status).toBe(404);
    } finally {
      release.open();
      writes.restore();
    }
  }, 120_000);

  it("reuses a caller's admitted tile read for a second, never a refusal; a deleted comparison stops serving at once", async () => {
    const started = await submitComparison();
    const done = await waitForEnd(org.admin, siteId, started.body.id);
    expect(done.state, done.failureReason).toBe('ready');
    const tilesetPath = pathOf(done.tilesetUrl);
    const tileUrl = `${t.regionUrl(org.region)}${tilesetPath.replace(/tileset\.json$/, '')}${contentUris((await org.admin.get(tilesetPath)).body)[0]}`;
    const read = async (client: ApiClient) => {
      const response = await fetch(tileUrl, { headers: { authorization: `Bearer ${client.token}` } });
      await response.arrayBuffer();
      return response.status;
    };
    // A refusal is not kept: a caller refused, then given a role, reads at once.
    const otherSite = await createSite(org, 'Elsewhere for tiles');
    const { client: caller, userId } = await org.serviceClient({ roleName: 'Viewer', nodeId: otherSite });
    expect([403, 404]).toContain(await read(caller));
    const role = { roleId: org.roles.Viewer };
    expect((await org.admin.request('PUT', `/v1/nodes/${siteId}/memberships/${userId}`, role)).status).toBe(200);
    const admittedAt = performance.now();
    expect(await read(caller)).toBe(200);
    // Its role taken back, the admitted read serves it until the second is over, then it is refused.
    expect((await org.admin.delete(`/v1/nodes/${siteId}/memberships/${userId}`)).status).toBe(204);
    let refusedAt: number | undefined;
    while (refusedAt === undefined && performance.now() - admittedAt < 5000) {
      const status = await read(caller);
      if (status !== 200) {
        expect([403, 404]).toContain(status);
        refusedAt = performance.now();
      } else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(refusedAt).toBeDefined();
    expect((refusedAt as number) - admittedAt).toBeGreaterThanOrEqual(1000);
    expect((refusedAt as number) - admittedAt).toBeLessThan(2000);
    // Another caller is checked on its own: the administrator reads it; deleted, it is 404 at once.
    expect(await read(org.admin)).toBe(200);
    expect((await org.admin.delete(`/v1/twin/${siteId}/comparisons/${started.body.id}`)).status).toBe(204);
    expect(await read(org.admin)).toBe(404);
    expect((await org.admin.get(tilesetPath)).status).toBe(404);
  }, 120_000);
});
