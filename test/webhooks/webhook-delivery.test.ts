import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/domain/webhooks/retries.js';
import { hasValidSignature } from '../../src/domain/webhooks/signing.js';
import { purgeWebhookLog, WEBHOOK_LOG_RETENTION_MS } from '../../src/jobs/retention.js';
import { WebhookDispatcher } from '../../src/jobs/webhook-dispatcher.js';
import { type ApiClient, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { createSite, openDraft } from '../support/twins.js';
import { bundleWithInput, sampleBytes, uploadBytes } from '../support/uploads.js';
import { type ReceivedDelivery, settled, WebhookReceiver } from '../support/webhook-receiver.js';

const HOOKS = 'read:basic read:webhooks write:webhooks';

describe('webhook deliveries: events from real changes, signed, retried, disabled by 410, redelivered', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let hooks: ApiClient;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startPlatform(
      { RDP_WEBHOOK_ALLOW_PRIVATE: '1', RDP_WEBHOOK_POLL_INTERVAL_MS: '50' },
      { worker: true, webhooks: true },
    );
    org = await createOrg(t);
    hooks = (await org.serviceClient({ scopes: HOOKS, roleName: 'Organization Administrator' })).client;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  /** A receiver and an endpoint for it; the receiver knows the endpoint's secret. */
  async function endpoint(eventTypes: string[] = ['*']) {
    const receiver = await WebhookReceiver.start(t.clock);
    receivers.push(receiver);
    const created = await hooks.post('/v1/webhooks', { url: receiver.url, eventTypes });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    receiver.secrets = [created.body.secret];
    return { receiver, id: created.body.id as string, secret: created.body.secret as string };
  }

  const deliveriesOf = async (id: string) => (await hooks.get(`/v1/webhooks/${id}/deliveries?limit=100`)).body;
  const verified = (delivery: ReceivedDelivery) => delivery.verifiedBy === 0 && delivery.sdkVerifiedBy === 0;

  it('tells of nodes created, moved, trashed and restored, a point of interest, a published draft, an upload and a processing', async () => {
    const { receiver, id } = await endpoint();
    const siteId = await createSite(org);
    const a = await createNode(org, siteId, 'folder', 'A');
    const b = await createNode(org, siteId, 'folder', 'B');
    expect((await org.admin.patch(`/v1/nodes/${a}/move/${b}`)).status).toBe(200);
    expect((await org.admin.delete(`/v1/nodes/${a}`)).status).toBe(204);
    expect((await org.admin.patch(`/v1/nodes/${a}/restore`)).status).toBe(200);
    const poi = await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, { name: 'Valve', position: { x: 1, y: 2, z: 3 } });
    expect(poi.status).toBe(201);
    const draft = await openDraft(org, siteId);
    await org.admin.post(`/v1/twin/${draft.id}/points-of-interest`, { name: 'Planned', position: { x: 0, y: 0, z: 0 } });
    expect((await org.admin.post(`/v1/twin/${draft.id}/publish`, {})).status).toBe(200);
    const bytes = await sampleBytes((file) => writeLas(file, 500));
    const { bundleId, derivativeId } = await processedPointCloud(org, b, { name: 'scan.las', bytes });

    const base = { organizationId: org.orgId, region: 'eu' };
    const [created] = await receiver.waitFor((d) => d.body.type === 'node.created' && d.body.data.nodeId === a);
    expect(created?.body.data).toEqual({ ...base, nodeId: a, kind: 'folder', parentId: siteId });
    const [moved] = await receiver.waitFor((d) => d.body.type === 'node.moved');
    expect(moved?.body.data).toEqual({ ...base, nodeId: a, kind: 'folder', fromParentId: siteId, toParentId: b });
    await receiver.waitFor((d) => d.body.type === 'node.trashed' && d.body.data.nodeId === a);
    await receiver.waitFor((d) => d.body.type === 'node.restored' && d.body.data.nodeId === a);
    const [poiCreated] = await receiver.waitFor(
      (d) => d.body.type === 'pointOfInterest.created' && d.body.data.objectId === poi.body.id,
    );
    expect(poiCreated?.body.data).toEqual({ ...base, siteId, objectType: 'pointOfInterest', objectId: poi.body.id });
    // The draft's own write is no live change: only its publish is told.
    expect(receiver.ofType('pointOfInterest.created')).toHaveLength(1);
    const [published] = await receiver.waitFor((d) => d.body.type === 'draft.published');
    expect(published?.body.data).toMatchObject({ ...base, draftId: draft.id, siteId, published: 1, skipped: 0 });
    const [uploaded] = await receiver.waitFor((d) => d.body.type === 'upload.finalized');
    expect(uploaded?.body.data).toMatchObject({ ...base, bundleId, bytes: bytes.length, files: 1 });
    const [started] = await receiver.waitFor((d) => d.body.type === 'bundle.processing.started');
    const [succeeded] = await receiver.waitFor((d) => d.body.type === 'bundle.processing.succeeded');
    expect(succeeded?.body.data).toMatchObject({ ...base, bundleId, derivativeNodeId: derivativeId });
    expect(succeeded?.body.data.processingId).toBe(started?.body.data.processingId);

    // Every delivery verified with standardwebhooks, each event once, with its own webhook-id.
    expect(receiver.received.every(verified)).toBe(true);
    expect(new Set(receiver.received.map((d) => d.id)).size).toBe(receiver.received.length);
    for (const delivery of receiver.received) {
      expect(delivery.id).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(Date.parse(delivery.body.timestamp)).not.toBeNaN();
    }
    const log = await settled(
      () => deliveriesOf(id),
      (body) => body.items.every((item: any) => item.status !== 'pending'),
    );
    expect(log.total).toBe(receiver.received.length);
    expect(log.items[0]).toMatchObject({
      status: 'succeeded',
      responseStatus: 200,
      attempt: 1,
      nextAttemptAt: null,
      error: null,
    });
    expect(log.items.every((item: any) => item.status === 'succeeded' && item.durationMs >= 0)).toBe(true);
  }, 120_000);

  it('tells of zones, site files, hard deletes and failed processings', async () => {
    const { receiver } = await endpoint([
      'zone.created',
      'zone.updated',
      'zone.deleted',
      'siteFile.finalized',
      'node.deleted',
      'bundle.processing.failed',
    ]);
    const siteId = await createSite(org);
    const volume = {
      boxes: [{ center: { x: 1, y: 2, z: 3 }, size: { x: 4, y: 5, z: 6 }, rotation: { x: 0, y: 0, z: 0, w: 1 } }],
    };
    const zone = await org.admin.post(`/v1/twin/${siteId}/zones`, { name: 'Hall', volume });
    expect(zone.status, JSON.stringify(zone.body)).toBe(201);
    expect((await org.admin.patch(`/v1/twin/${siteId}/zones/${zone.body.id}`, { name: 'Hall 2' })).status).toBe(200);
    expect((await org.admin.delete(`/v1/twin/${siteId}/zones/${zone.body.id}`)).status).toBe(204);
    for (const change of ['zone.created', 'zone.updated', 'zone.deleted']) {
      const [told] = await receiver.waitFor((d) => d.body.type === change);
      expect(told?.body.data).toMatchObject({ siteId, objectType: 'zone', objectId: zone.body.id });
    }

    const folder = await createNode(org, siteId, 'folder', 'Files');
    const bytes = Buffer.from('not a point cloud at all');
    const initiated = await org.admin.post('/v1/site-files', { parentId: folder, name: 'notes.txt', size: bytes.length });
    const { etag } = await uploadBytes(initiated.body, bytes);
    expect((await org.admin.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag: `"${etag}"` })).status).toBe(200);
    const [file] = await receiver.waitFor((d) => d.body.type === 'siteFile.finalized');
    expect(file?.body.data).toMatchObject({ siteFileId: initiated.body.id, parentId: folder, bytes: bytes.length });

    expect((await org.admin.delete(`/v1/nodes/${folder}`)).status).toBe(204);
    expect((await org.admin.delete(`/v1/nodes/${folder}/hard`)).status).toBe(204);
    const [deleted] = await receiver.waitFor((d) => d.body.type === 'node.deleted');
    expect(deleted?.body.data).toMatchObject({ nodeId: folder, kind: 'folder' });

    // A file that claims to be LAS but is not: accepted at upload, the processing fails.
    const broken = Buffer.concat([Buffer.from('LASF'), Buffer.alloc(400)]);
    const { bundleId } = await bundleWithInput(org.admin, siteId, 'Broken', { name: 'broken.las', bytes: broken });
    const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
    const submitted = await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost });
    expect(submitted.status).toBe(202);
    const [failed] = await receiver.waitFor((d) => d.body.type === 'bundle.processing.failed', 1, 60_000);
    expect(failed?.body.data).toMatchObject({ bundleId, processingId: submitted.body.id, reason: expect.any(String) });
    expect(receiver.received.every(verified)).toBe(true);
  }, 90_000);

  it('sends only the subscribed types; a refused change (its transaction rolled back) tells nothing', async () => {
    const { receiver } = await endpoint(['node.moved']);
    const siteId = await createSite(org);
    const a = await createNode(org, siteId, 'folder', 'A');
    const inner = await createNode(org, a, 'folder', 'Inner');
    // Into its own subtree: 409, nothing moved, nothing told.
    expect((await org.admin.patch(`/v1/nodes/${a}/move/${inner}`)).status).toBe(409);
    // A change that records its event and then fails inside the same transaction leaves no row.
    const region = t.platform.regions.eu;
    const before = await region.store.db.selectFrom('webhook_events').select('id').execute();
    await expect(
      region.store.db.transaction().execute(async (tx) => {
        await region.outbox.record(tx, org.orgId, 'node.moved', { nodeId: a });
        throw new Error('refused after the event');
      }),
    ).rejects.toThrow('refused after the event');
    expect(await region.store.db.selectFrom('webhook_events').select('id').execute()).toHaveLength(before.length);
    const b = await createNode(org, siteId, 'folder', 'B');
    expect((await org.admin.patch(`/v1/nodes/${inner}/move/${b}`)).status).toBe(200);
    const [moved] = await receiver.waitFor((d) => d.body.type === 'node.moved');
    expect(moved?.body.data.nodeId).toBe(inner);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.map((d) => d.body.type)).toEqual(['node.moved']);
  });

  it('test event, redelivery with the same webhook-id, and rotation signing with both secrets', async () => {
    const { receiver, id, secret } = await endpoint(['node.created']);
    const test = await hooks.post(`/v1/webhooks/${id}/test`);
    expect(test.status).toBe(202);
    const [first] = await receiver.waitFor((d) => d.id === test.body.eventId);
    expect(first?.body).toMatchObject({ type: 'webhook.test', data: { webhookId: id, organizationId: org.orgId } });
    expect(first && verified(first)).toBe(true);

    const redelivered = await hooks.post(`/v1/webhooks/${id}/deliveries/${test.body.deliveryId}/redeliver`);
    expect(redelivered.status).toBe(201);
    expect(redelivered.headers.get('location')).toBe(`${t.regionUrl('eu')}/v1/webhooks/${id}/deliveries/${redelivered.body.id}`);
    expect(redelivered.body).toMatchObject({ eventId: test.body.eventId, status: 'pending', attempt: 0 });
    const both = await receiver.waitFor((d) => d.id === test.body.eventId, 2);
    const resent = await settled(
      async () => (await hooks.get(`/v1/webhooks/${id}/deliveries/${redelivered.body.id}`)).body,
      (body) => body.status === 'succeeded',
    );
    expect(resent).toMatchObject({ eventId: test.body.eventId, attempt: 1, status: 'succeeded', responseStatus: 200 });
    expect(both[1]?.body).toEqual(first?.body);
    expect(both.every(verified)).toBe(true);
    expect((await hooks.post(`/v1/webhooks/${id}/deliveries/nope/redeliver`)).status).toBe(404);

    const rotated = await hooks.post(`/v1/webhooks/${id}/rotate-secret`);
    receiver.secrets = [rotated.body.secret];
    const again = await hooks.post(`/v1/webhooks/${id}/test`);
    const [signed] = await receiver.waitFor((d) => d.id === again.body.eventId);
    expect(signed && verified(signed)).toBe(true);
    // For the grace period the old secret's signature rides along, so a receiver mid-rotation keeps verifying.
    const body = JSON.stringify(signed?.body);
    expect(signed?.signature.split(' ')).toHaveLength(2);
    expect(hasValidSignature(secret, signed?.signature ?? '', again.body.eventId, signed?.timestamp ?? 0, body)).toBe(true);
    const log = await deliveriesOf(id);
    expect(log.items.map((item: any) => item.eventId)).toEqual([again.body.eventId, test.body.eventId, test.body.eventId]);
  });

  it('several workers at once never send the same delivery twice', async () => {
    const { receiver, id } = await endpoint(['webhook.test']);
    const region = t.platform.regions.eu;
    const eventIds: string[] = [];
    await region.store.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 40; i += 1) {
        eventIds.push((await region.outbox.write(tx, org.orgId, 'webhook.test', { webhookId: id, n: i }, [id])).eventId);
      }
    });
    const others = [1, 2].map(() => new WebhookDispatcher(t.platform, { concurrency: 8, pollIntervalMs: 1000, timeoutMs: 5000 }));
    await Promise.all([...others.map((dispatcher) => dispatcher.runOnce()), t.webhooks?.runOnce()]);
    await receiver.waitFor(() => true, 40);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.map((d) => d.id).sort()).toEqual([...eventIds].sort());
  });

  it('a 410 disables the endpoint; its deliveries wait until it is enabled again', async () => {
    const { receiver, id } = await endpoint();
    receiver.respond = () => 410;
    const test = await hooks.post(`/v1/webhooks/${id}/test`);
    await receiver.waitFor((d) => d.id === test.body.eventId);
    let endpointBody: any;
    for (let i = 0; i < 50 && !endpointBody?.disabledAt; i += 1) {
      endpointBody = (await hooks.get(`/v1/webhooks/${id}`)).body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(endpointBody).toMatchObject({ enabled: true, disabledReason: 'The receiver answered 410 Gone' });
    expect(endpointBody.disabledAt).toEqual(expect.any(String));
    expect((await deliveriesOf(id)).items[0]).toMatchObject({ status: 'failed', responseStatus: 410, nextAttemptAt: null });

    // Events of a disabled endpoint are not even recorded; a test waits for it.
    receiver.respond = () => 204;
    const waiting = await hooks.post(`/v1/webhooks/${id}/test`);
    await createNode(org, org.orgId, 'division', 'Quiet');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);
    expect((await hooks.patch(`/v1/webhooks/${id}`, { enabled: true })).body).toMatchObject({
      disabledAt: null,
      disabledReason: null,
    });
    const [sent] = await receiver.waitFor((d) => d.id === waiting.body.eventId);
    expect(sent?.answered).toBe(204);
    expect(receiver.ofType('node.created')).toHaveLength(0);
  });

  it('retries a failing receiver on the Standard Webhooks schedule, then gives up (exhausted)', async () => {
    const { receiver, id } = await endpoint(['webhook.test']);
    receiver.respond = () => 503;
    const test = await hooks.post(`/v1/webhooks/${id}/test`);
    const region = t.platform.regions.eu;
    const deliveryRow = () => region.webhooks.findDelivery(id, test.body.deliveryId);
    await receiver.waitFor((d) => d.id === test.body.eventId);
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
      let row = await deliveryRow();
      for (let i = 0; i < 50 && row?.attempt !== attempt; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        row = await deliveryRow();
      }
      const readAt = t.clock.now().getTime();
      const pause = RETRY_DELAYS_MS[attempt - 1] as number;
      expect(row).toMatchObject({ attempt, status: 'failed', response_status: 503 });
      expect(row?.error).toMatch(/^HTTP 503/);
      // The retry is due exactly `pause` after the failure was recorded: after the attempt
      // arrived at the receiver, before the row was read (one clock, the platform's, in ms).
      const recordedAt = Date.parse(row?.next_attempt_at ?? '') - pause;
      expect(recordedAt).toBeGreaterThanOrEqual(receiver.received.at(-1)?.receivedAt ?? Number.NaN);
      expect(recordedAt).toBeLessThanOrEqual(readAt);
      if (attempt <= 2) {
        // Not a moment early.
        t.clock.advance(pause - 2000);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(receiver.received).toHaveLength(attempt);
        t.clock.advance(2000);
      } else {
        t.clock.advance(pause);
      }
      await receiver.waitFor((d) => d.id === test.body.eventId, attempt + 1);
    }
    let last = await deliveryRow();
    for (let i = 0; i < 50 && last?.status !== 'exhausted'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = await deliveryRow();
    }
    expect(last).toMatchObject({ attempt: MAX_ATTEMPTS, status: 'exhausted', next_attempt_at: null });
    const stamps = receiver.received.map((d) => d.timestamp);
    const gaps = stamps.slice(1).map((stamp, i) => stamp - (stamps[i] as number));
    gaps.forEach((gap, i) => {
      expect(Math.abs(gap - (RETRY_DELAYS_MS[i] as number) / 1000)).toBeLessThanOrEqual(2);
    });
    // One event, one webhook-id on every attempt, each verified.
    expect(new Set(receiver.received.map((d) => d.id))).toEqual(new Set([test.body.eventId]));
    expect(receiver.received.every(verified)).toBe(true);
    t.clock.advance(24 * 3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
  }, 60_000);

  it('housekeeping removes finished deliveries after 30 days, and keeps those still waiting', async () => {
    // The tests before moved the clock past the token's life: a fresh one.
    hooks = (await org.serviceClient({ scopes: HOOKS, roleName: 'Organization Administrator' })).client;
    const { receiver, id } = await endpoint(['webhook.test']);
    const sent = await hooks.post(`/v1/webhooks/${id}/test`);
    await receiver.waitFor((d) => d.id === sent.body.eventId);
    await settled(
      () => deliveriesOf(id),
      (body) => body.items[0]?.status === 'succeeded',
    );
    await hooks.patch(`/v1/webhooks/${id}`, { enabled: false });
    const waiting = await hooks.post(`/v1/webhooks/${id}/test`);
    const region = t.platform.regions.eu;
    expect(await purgeWebhookLog(t.platform)).toBe(0);
    t.clock.advance(WEBHOOK_LOG_RETENTION_MS + 60_000);
    expect(await purgeWebhookLog(t.platform)).toBeGreaterThanOrEqual(1);
    expect(await region.webhooks.findDelivery(id, sent.body.deliveryId)).toBeUndefined();
    expect(await region.webhooks.findEvent(org.orgId, sent.body.eventId)).toBeUndefined();
    expect(await region.webhooks.findDelivery(id, waiting.body.deliveryId)).toMatchObject({ status: 'pending' });
    expect(await region.webhooks.findEvent(org.orgId, waiting.body.eventId)).toMatchObject({ type: 'webhook.test' });
  });
});
