import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { runHousekeeping } from '../../src/jobs/housekeeping.js';
import { RETENTION_BATCH } from '../../src/jobs/retention.js';
import type { ApiClient, OrgFixture } from '../support/fixtures.js';
import { createOrg } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';
import { uploadBytes } from '../support/uploads.js';
import { settled, WebhookReceiver } from '../support/webhook-receiver.js';

const DAY_MS = 86_400_000;
const SCOPES = 'read:basic read:user write:user read:hierarchy write:hierarchy read:webhooks write:webhooks';
const silent = { warn: () => undefined, error: (object: object) => console.error(object) };

/**
 * The housekeeper's retention through HTTP, with the platform's clock moved (docs/operations.md,
 * "Retention"): ended embed sessions and uploads a week after their expiry, webhook deliveries
 * after 30 days, audit events after RDP_AUDIT_RETENTION_DAYS (60 here) are gone; what is within
 * its time stays, and an expired upload's reservation no longer counts in the storage use.
 */
describe('retention by the housekeeper', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let receiver: WebhookReceiver;
  let siteId: string;

  beforeAll(async () => {
    t = await startPlatform(
      {
        RDP_AUDIT_RETENTION_DAYS: '60',
        RDP_UPLOAD_EXPIRY_SECONDS: '600',
        RDP_WEBHOOK_ALLOW_PRIVATE: '1',
        RDP_WEBHOOK_POLL_INTERVAL_MS: '50',
      },
      { webhooks: true },
    );
    org = await createOrg(t);
    receiver = await WebhookReceiver.start(t.clock);
    siteId = await createSite(org);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  /** A client with a token fresh at the platform's current time (moving the clock ends the older ones). */
  const freshClient = async () => (await org.serviceClient({ scopes: SCOPES, roleName: 'Organization Administrator' })).client;

  /** A bundle's upload session holding one uploaded, unfinalized file of `bytes` bytes: its address and the file's blob. */
  async function openUpload(api: ApiClient, name: string, bytes: number) {
    const bundle = await api.post(`/v1/nodes/${siteId}/bundle`, { name });
    const session = await api.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
    const file = await api.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
      name: 'scan.xyz',
      size: bytes,
    });
    expect(file.status, JSON.stringify(file.body)).toBe(201);
    await uploadBytes(file.body, Buffer.alloc(bytes, '1 2 3\n'));
    return {
      path: `/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}`,
      blobKey: `orgs/${org.orgId}/nodes/${bundle.body.id}/inputs/${file.body.id}`,
    };
  }

  /** Sends a test event to the endpoint and waits until its delivery succeeded; its delivery id. */
  async function deliveredTest(api: ApiClient, webhookId: string): Promise<string> {
    const sent = await api.post(`/v1/webhooks/${webhookId}/test`);
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    await settled(
      async () => (await api.get(`/v1/webhooks/${webhookId}/deliveries?limit=100`)).body,
      (body) =>
        body.items.some(
          (item: { id: string; status: string }) => item.id === sent.body.deliveryId && item.status === 'succeeded',
        ),
    );
    return sent.body.deliveryId;
  }

  const embed = (api: ApiClient) =>
    api.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: ['https://app.example.com'], expiresInSeconds: 300 });

  it('removes what is past its time and keeps what is within', async () => {
    // Made now: all past their time once the clock has moved 61 days.
    let api = await freshClient();
    const oldEmbed = await embed(api);
    expect(oldEmbed.status, JSON.stringify(oldEmbed.body)).toBe(201);
    const oldUpload = await openUpload(api, 'Old', 900);
    expect((await api.get('/v1/storage')).body.reservedBytes).toBe(900);
    const webhook = await api.post('/v1/webhooks', { url: receiver.url, eventTypes: ['webhook.test'] });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    receiver.secrets = [webhook.body.secret];
    const oldDelivery = await deliveredTest(api, webhook.body.id);

    t.clock.advance(61 * DAY_MS);
    api = await freshClient();
    // Made now: within their time when the housekeeper runs.
    const newEmbed = await embed(api);
    const newUpload = await openUpload(api, 'New', 500);
    const newDelivery = await deliveredTest(api, webhook.body.id);
    // Before the housekeeper: the expired session and upload still answer; the old reservation no longer counts.
    expect((await api.get(`/v1/embed-sessions/${oldEmbed.body.id}`)).status).toBe(200);
    expect((await api.get(oldUpload.path)).status).toBe(200);
    expect(await t.platform.blobs.head(oldUpload.blobKey)).toBeDefined();
    const storage = (await api.get('/v1/storage')).body;
    expect(storage.reservedBytes).toBe(500);
    const audited = async (id: string) =>
      (await api.get(`/v1/audit-events?action=embed-session.created&targetId=${id}`)).body.length;
    expect(await audited(oldEmbed.body.id)).toBe(1);

    await runHousekeeping(t.platform, silent);

    expect((await api.get(`/v1/embed-sessions/${oldEmbed.body.id}`)).status).toBe(404);
    expect((await api.get(`/v1/embed-sessions/${newEmbed.body.id}`)).status).toBe(200);
    expect((await fetch(`${t.origin}/viewer/embed/${oldEmbed.body.id}`)).status).toBe(404);
    expect((await api.get(oldUpload.path)).status).toBe(404);
    expect(await t.platform.blobs.head(oldUpload.blobKey)).toBeUndefined();
    expect(await t.platform.blobs.head(newUpload.blobKey)).toBeDefined();
    expect((await api.get(newUpload.path)).body).toMatchObject({
      state: 'open',
      files: [expect.objectContaining({ state: 'uploading' })],
    });
    expect((await api.get('/v1/storage')).body).toEqual(storage);
    const log = (await api.get(`/v1/webhooks/${webhook.body.id}/deliveries?limit=100`)).body.items.map(
      (item: { id: string }) => item.id,
    );
    expect(log).toContain(newDelivery);
    expect(log).not.toContain(oldDelivery);
    expect(await audited(oldEmbed.body.id)).toBe(0);
    expect(await audited(newEmbed.body.id)).toBe(1);
  });

  it('removes in bounded batches until none is left', async () => {
    const { audit } = t.platform.regions[org.region];
    const old = new Date(t.clock.now().getTime() - 90 * DAY_MS).toISOString();
    const count = 2 * RETENTION_BATCH + 500;
    await audit.db.transaction().execute(async (tx) => {
      for (let i = 0; i < count; i++) {
        await audit.record(tx, {
          orgId: org.orgId,
          actor: { type: 'admin-cli', id: 'retention-test' },
          action: 'test.old',
          target: { type: 'user', id: 'retention-test' },
          at: old,
        });
      }
    });
    const batches: number[] = [];
    const deleteBefore = audit.deleteBefore.bind(audit);
    audit.deleteBefore = async (cutoff, limit) => {
      const removed = await deleteBefore(cutoff, limit);
      batches.push(removed);
      return removed;
    };
    try {
      await runHousekeeping(t.platform, silent);
    } finally {
      audit.deleteBefore = deleteBefore;
    }
    // Full batches, then the rest (with what earlier tests left past its time), then one that finds none.
    expect(batches.slice(0, 2)).toEqual([RETENTION_BATCH, RETENTION_BATCH]);
    expect(batches[2]).toBeGreaterThanOrEqual(500);
    expect(batches[2]).toBeLessThan(RETENTION_BATCH);
    expect(batches.slice(3)).toEqual([0]);
    const api = await freshClient();
    expect((await api.get('/v1/audit-events?action=test.old')).body).toEqual([]);
  });

  it('refuses a retention that is not a whole number of days from 1', () => {
    for (const bad of ['0', '-3', '1.5', 'forever']) {
      expect(() => loadConfig({ RDP_AUDIT_RETENTION_DAYS: bad })).toThrow(
        `RDP_AUDIT_RETENTION_DAYS must be an integer from 1 to 36500, got "${bad}"`,
      );
    }
    expect(loadConfig({}).auditRetentionDays).toBe(365);
  });
});
