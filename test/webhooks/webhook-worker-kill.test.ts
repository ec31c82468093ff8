import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { freePort } from '../support/ports.js';
import { type ServerProcess, startServer } from '../support/server-process.js';
import { settled, WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * At least once: a worker process killed with SIGKILL while its deliveries wait on the receiver
 * loses none of them. Its claims run out (the lease: twice RDP_WEBHOOK_TIMEOUT_MS plus a
 * second) and the next worker sends them again with the same webhook-id.
 */
describe('a worker killed mid-delivery', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let receiver: WebhookReceiver;
  const workers: ServerProcess[] = [];

  beforeAll(async () => {
    t = await startPlatform({ RDP_WEBHOOK_ALLOW_PRIVATE: '1' });
    org = await createOrg(t);
    receiver = await WebhookReceiver.start(t.clock);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await t?.close();
    await receiver?.close();
  });

  async function startWorker(): Promise<ServerProcess> {
    const databaseUrl = t.databaseUrl;
    const worker = await startServer(await freePort(), {
      RDP_ROLES: 'worker',
      RDP_DATA_DIR: t.dataDir,
      ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: t.schemaPrefix } : {}),
      RDP_PUBLIC_URL: t.origin,
      RDP_LOG_LEVEL: 'warn',
      RDP_WEBHOOK_ALLOW_PRIVATE: '1',
      RDP_WEBHOOK_POLL_INTERVAL_MS: '50',
      RDP_WEBHOOK_TIMEOUT_MS: '1500',
    });
    workers.push(worker);
    return worker;
  }

  it('loses no event: the killed worker’s deliveries are sent again by the next one, same webhook-id', async () => {
    const hooks = (await org.serviceClient({ scopes: 'read:webhooks write:webhooks', roleName: 'Organization Administrator' }))
      .client;
    const created = await hooks.post('/v1/webhooks', { url: receiver.url, eventTypes: ['node.created'] });
    receiver.secrets = [created.body.secret];
    const nodeIds: string[] = [];
    for (let i = 0; i < 4; i += 1) nodeIds.push(await createNode(org, org.orgId, 'division', `D${i}`));

    receiver.hold = true;
    const first = await startWorker();
    await receiver.waitFor(() => true, 4, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const held = receiver.received.map((delivery) => delivery.id);
    receiver.release();
    expect(new Set(held).size).toBe(4);

    await startWorker();
    const answered = await receiver.waitFor((delivery) => delivery.answered === 200, 4, 60_000);
    expect(new Set(answered.map((delivery) => delivery.id))).toEqual(new Set(held));
    expect(answered.map((delivery) => delivery.body.data.nodeId).sort()).toEqual([...nodeIds].sort());
    expect(receiver.received.every((delivery) => delivery.verifiedBy === 0 && delivery.sdkVerifiedBy === 0)).toBe(true);
    const log = await settled(
      async () => (await hooks.get(`/v1/webhooks/${created.body.id}/deliveries`)).body,
      (body) => body.items.every((item: any) => item.status !== 'pending'),
    );
    expect(log.items.map((item: any) => item.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
  }, 120_000);
});
