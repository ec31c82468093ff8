import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../src/jobs/webhook-dispatcher.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** A public address as a literal (no DNS needed in the test's sandbox). */
const PUBLIC = 'https://93.184.215.14/hooks/rdp';
const WRITE = 'read:basic write:webhooks read:webhooks';

describe('webhook endpoints (RDP_WEBHOOK_ALLOW_PRIVATE off)', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;

  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
    other = await createOrg(t);
  });
  afterAll(() => t?.close());

  const adminClient = async (scopes = WRITE) =>
    (await org.serviceClient({ scopes, roleName: 'Organization Administrator' })).client;

  it('creates (201, Location, the secret once), lists, gets, patches, rotates and deletes', async () => {
    const admin = await adminClient();
    const created = await admin.post('/v1/webhooks', {
      url: PUBLIC,
      eventTypes: ['node.created', 'node.moved'],
      description: 'CI',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get('location')).toBe(`${t.regionUrl('eu')}/v1/webhooks/${created.body.id}`);
    expect(created.body).toMatchObject({
      url: PUBLIC,
      eventTypes: ['node.created', 'node.moved'],
      enabled: true,
      description: 'CI',
      disabledAt: null,
      disabledReason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.id;
    // Kept sealed: the regional store alone does not give the secret away.
    const stored = await t.platform.regions.eu.webhooks.findEndpoint(org.orgId, id);
    expect(stored?.secret).toMatch(/^sealed1\./);
    expect(stored?.secret).not.toContain(created.body.secret.slice('whsec_'.length, 20));

    const got = await admin.get(`/v1/webhooks/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(got.body.url).toBe(PUBLIC);

    const list = await admin.get('/v1/webhooks?limit=10');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 0, limit: 10, total: 1 });
    expect(list.body.items.map((item: any) => item.id)).toEqual([id]);
    expect(list.body.items[0].secret).toBeUndefined();

    const patched = await admin.patch(`/v1/webhooks/${id}`, { eventTypes: ['*'], enabled: false, description: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ eventTypes: ['*'], enabled: false, description: null });
    expect((await admin.get(`/v1/webhooks/${id}`)).body).toMatchObject({ eventTypes: ['*'], enabled: false });

    const rotated = await admin.post(`/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    // Another organization's administrator does not see it.
    expect((await other.admin.get(`/v1/webhooks/${id}`)).status).toBe(403); // no webhook scopes at all
    const otherAdmin = (await other.serviceClient({ scopes: WRITE, roleName: 'Organization Administrator' })).client;
    expect((await otherAdmin.get(`/v1/webhooks/${id}`)).status).toBe(404);
    expect((await otherAdmin.delete(`/v1/webhooks/${id}`)).status).toBe(404);

    expect((await admin.delete(`/v1/webhooks/${id}`)).status).toBe(204);
    expect((await admin.get(`/v1/webhooks/${id}`)).status).toBe(404);
    expect((await admin.get('/v1/webhooks')).body.total).toBe(0);
  });

  it('lists the event types an endpoint may subscribe to (webhook.test is only sent by the test)', async () => {
    const listed = await (await adminClient()).get('/v1/webhooks/event-types');
    expect(listed.status).toBe(200);
    expect(listed.body.items).toContain('node.created');
    expect(listed.body.items).toContain('bundle.processing.succeeded');
    expect(listed.body.items).not.toContain('webhook.test');
    expect((await org.admin.get('/v1/webhooks/event-types')).status).toBe(403); // no read:webhooks
  });

  it('refuses bad bodies with 400 naming the field, and stores nothing', async () => {
    const admin = await adminClient();
    const cases: [unknown, RegExp][] = [
      [{ url: PUBLIC }, /eventTypes/],
      [{ url: PUBLIC, eventTypes: [] }, /eventTypes/],
      [{ url: PUBLIC, eventTypes: ['node.exploded'] }, /eventTypes.*node\.exploded/],
      [{ url: PUBLIC, eventTypes: ['*', 'node.created'] }, /eventTypes/],
      [{ url: PUBLIC, eventTypes: ['webhook.test'], extra: 1 }, /extra|additional/i],
      [{ url: 'not a url', eventTypes: ['*'] }, /url/],
      [{ url: 'ftp://93.184.215.14/x', eventTypes: ['*'] }, /url must use https/],
      [{ url: 'http://93.184.215.14/x', eventTypes: ['*'] }, /url must use https/],
      [{ url: 'https://user:pw@93.184.215.14/x', eventTypes: ['*'] }, /url must not carry credentials/],
      [{ url: `https://example.com/${'x'.repeat(2000)}`, eventTypes: ['*'] }, /url/],
      [{ url: 'https://no-such-host.invalid/x', eventTypes: ['*'] }, /does not resolve/],
    ];
    for (const [body, message] of cases) {
      const response = await admin.post('/v1/webhooks', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message, JSON.stringify(body)).toMatch(message);
    }
    const created = await admin.post('/v1/webhooks', { url: PUBLIC, eventTypes: ['*'] });
    const patched = await admin.patch(`/v1/webhooks/${created.body.id}`, { url: 'https://127.0.0.1/x' });
    expect(patched.status).toBe(400);
    expect(patched.body.message).toMatch(/^url /);
    expect((await admin.patch(`/v1/webhooks/${created.body.id}`, {})).status).toBe(400);
    expect((await admin.get(`/v1/webhooks/${created.body.id}`)).body.url).toBe(PUBLIC);
    expect((await admin.get('/v1/webhooks?limit=0')).status).toBe(400);
    expect((await admin.get('/v1/webhooks')).body.total).toBe(1);
    await admin.delete(`/v1/webhooks/${created.body.id}`);
  });

  it('refuses private, loopback, link-local, CGNAT, multicast and unspecified hosts, literal or resolved', async () => {
    const admin = await adminClient();
    const hosts = [
      '127.0.0.1',
      '127.1.2.3',
      '10.0.0.5',
      '172.16.9.9',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '[::1]',
      '[::]',
      '[fe80::1]',
      '[fc00::1]',
      '[ff02::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:10.0.0.1]',
      '[::ffff:7f00:1]',
      'localhost', // refused for what it resolves to (127.0.0.1, ::1)
    ];
    for (const host of hosts) {
      const response = await admin.post('/v1/webhooks', { url: `https://${host}/hook`, eventTypes: ['*'] });
      expect(response.status, host).toBe(400);
      expect(response.body.message, host).toMatch(/^url('s host \S+ resolves to| points to) a (private|non-public)/);
    }
    expect((await admin.get('/v1/webhooks')).body.total).toBe(0);
  });

  it('checks the address again at delivery: a host that now points into a private network gets nothing', async () => {
    const receiver = await WebhookReceiver.start(t.clock);
    try {
      const admin = await adminClient();
      const created = await admin.post('/v1/webhooks', { url: PUBLIC, eventTypes: ['*'] });
      // As if its name now resolved to loopback (DNS rebinding): the stored address is the receiver's.
      await t.platform.regions.eu.webhooks.updateEndpoint(org.orgId, created.body.id, {
        url: receiver.url.replace('http:', 'https:'),
      });
      const test = await admin.post(`/v1/webhooks/${created.body.id}/test`);
      const dispatcher = new WebhookDispatcher(t.platform, { concurrency: 4, pollIntervalMs: 1000, timeoutMs: 2000 });
      await dispatcher.runOnce();
      const [delivery] = (await admin.get(`/v1/webhooks/${created.body.id}/deliveries`)).body.items;
      expect(delivery).toMatchObject({ id: test.body.deliveryId, status: 'failed', attempt: 1, responseStatus: null });
      expect(delivery.error).toMatch(
        /^refused: url points to a private, loopback or otherwise non-public address \(127\.0\.0\.1\)/,
      );
      expect(receiver.received).toHaveLength(0);
      await admin.delete(`/v1/webhooks/${created.body.id}`);
    } finally {
      await receiver.close();
    }
  });

  it('needs write:webhooks to write and read:webhooks to read; organization administrators only', async () => {
    const readOnly = await adminClient('read:basic read:webhooks');
    expect((await readOnly.post('/v1/webhooks', { url: PUBLIC, eventTypes: ['*'] })).body).toMatchObject({
      statusCode: 403,
      message: 'Insufficient OAuth scopes',
    });
    expect((await readOnly.get('/v1/webhooks')).status).toBe(200);
    const writeOnly = await adminClient('read:basic write:webhooks');
    expect((await writeOnly.get('/v1/webhooks')).status).toBe(403);
    const created = await writeOnly.post('/v1/webhooks', { url: PUBLIC, eventTypes: ['*'] });
    expect(created.status).toBe(201);

    // Full scopes, but no administrator role: 403 in the spec's shape.
    const member = (await org.serviceClient({ scopes: WRITE, roleName: 'Organization Reader' })).client;
    for (const response of [
      await member.get('/v1/webhooks'),
      await member.post('/v1/webhooks', { url: PUBLIC, eventTypes: ['*'] }),
      await member.get(`/v1/webhooks/${created.body.id}`),
      await member.delete(`/v1/webhooks/${created.body.id}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ statusCode: 403, error: 'Forbidden', message: 'Forbidden resource' });
    }
    expect((await readOnly.get('/v1/webhooks')).body.total).toBe(1);
    await writeOnly.delete(`/v1/webhooks/${created.body.id}`);
  });

  it('the admin service behind `rdp admin app create --scopes` accepts the webhook scopes', async () => {
    const app = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Hooks',
      flow: 'client-credentials',
      scopes: ['read:webhooks', 'write:webhooks'],
    });
    expect(app.scopes).toEqual(expect.arrayContaining(['read:webhooks', 'write:webhooks']));
  });
});
