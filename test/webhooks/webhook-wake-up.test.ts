import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** A poll that never comes during the test: only the in-process wake-up can send the deliveries. */
const POLL_MS = 60_000;
/** Far below the poll: a delivery inside it left without waiting for one. */
const WITHIN_MS = 3_000;

// On PostgreSQL the dispatcher is not woken in process (docs/webhooks.md): the poll sends.
describe.skipIf(process.env.RDP_TEST_DATABASE_URL)('webhook deliveries on SQLite leave at once, not at the next poll', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let hooks: ApiClient;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startPlatform(
      { RDP_WEBHOOK_ALLOW_PRIVATE: '1', RDP_WEBHOOK_POLL_INTERVAL_MS: String(POLL_MS) },
      { worker: true, webhooks: true },
    );
    org = await createOrg(t);
    hooks = (
      await org.serviceClient({ scopes: 'read:basic read:webhooks write:webhooks', roleName: 'Organization Administrator' })
    ).client;
    receiver = await WebhookReceiver.start(t.clock);
    const created = await hooks.post('/v1/webhooks', { url: receiver.url, eventTypes: ['node.created'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    receiver.secrets = [created.body.secret];
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('sends a change made through the API, and each of a burst of changes, within seconds under a minute-long poll', async () => {
    const siteId = await createSite(org);
    const first = await createNode(org, siteId, 'folder', 'First');
    const [delivered] = await receiver.waitFor(
      (d) => d.body.type === 'node.created' && d.body.data.nodeId === first,
      1,
      WITHIN_MS,
    );
    expect(delivered?.verifiedBy).toBe(0);

    // Changes written while a pass is sending are sent too (the pass goes round again).
    const burst = await Promise.all(['A', 'B', 'C', 'D', 'E'].map((name) => createNode(org, siteId, 'folder', name)));
    const ids = new Set(burst);
    await receiver.waitFor((d) => d.body.type === 'node.created' && ids.has(d.body.data.nodeId), burst.length, WITHIN_MS);
  });
});
