import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const HOOKS = 'read:basic read:webhooks write:webhooks';
/** The log reads itself again each second while a delivery is under way. */
const LOG = { timeout: 10_000 };

/**
 * Webhooks in the console: an administrator makes an endpoint for a receiver on 127.0.0.1 (allowed
 * by RDP_WEBHOOK_ALLOW_PRIVATE, as in development), tests it, reads its delivery log, redelivers,
 * rotates the secret, changes and deletes it; the API and the receiver agree with the screen.
 * Someone who is not an administrator sees none of it.
 */
describe('the web console: webhooks', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let hooks: ApiClient;
  let receiver: WebhookReceiver;
  let reader: { email: string; password: string };

  const statusText = () => page.locator('main [role=status]').allTextContents();
  const secretShown = async (title: string, checkAccessible = false) => {
    const dialog = page.getByRole('dialog', { name: title });
    if (checkAccessible) await expectAccessible(page);
    const secret = await dialog.getByLabel('Signing secret').inputValue();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    return secret;
  };

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startConsolePlatform({
        env: { RDP_RATE_LIMIT_DISABLED: '1', RDP_WEBHOOK_ALLOW_PRIVATE: '1', RDP_WEBHOOK_POLL_INTERVAL_MS: '50' },
        webhooks: true,
      }),
      launchBrowser(),
    ]);
    org = await createOrg(t);
    receiver = await WebhookReceiver.start(t.clock);
    const [administrator, readerPerson, service] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
      org.serviceClient({ scopes: HOOKS, roleName: 'Organization Administrator' }),
    ]);
    reader = readerPerson;
    hooks = service.client;
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('makes an endpoint, tests it, shows and redelivers its deliveries, rotates its secret, changes and deletes it', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Webhooks');
    await expect.poll(() => page.textContent('main')).toContain('There is no endpoint yet.');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'New endpoint' }).click();
    const create = page.getByRole('dialog', { name: 'New webhook endpoint' });
    // A refusal in the dialog's words; nothing stored.
    await create.getByLabel('Address (URL)').fill('ftp://files.example.test/hook');
    await create.getByRole('button', { name: 'Create endpoint' }).click();
    await expect.poll(() => create.getByRole('alert').textContent()).toMatch(/url/i);
    expect((await hooks.get('/v1/webhooks')).body.total).toBe(0);
    await create.getByLabel('Address (URL)').fill(receiver.url);
    await create.getByLabel('Description').fill('Site office');
    await create.getByLabel('All events, including those added later').uncheck();
    await create.getByLabel('node.created', { exact: true }).check();
    await create.getByLabel('bundle.processing.succeeded', { exact: true }).check();
    await expectAccessible(page);
    await create.getByRole('button', { name: 'Create endpoint' }).click();
    const firstSecret = await secretShown('Endpoint created', true);
    expect(firstSecret).toMatch(/^whsec_/);
    await expect.poll(statusText).toContain(`Endpoint ${receiver.url} created.`);
    const listed = (await hooks.get('/v1/webhooks')).body;
    expect(listed.items).toEqual([
      expect.objectContaining({
        url: receiver.url,
        description: 'Site office',
        eventTypes: ['node.created', 'bundle.processing.succeeded'],
        enabled: true,
      }),
    ]);
    const webhookId = listed.items[0].id as string;
    await expect
      .poll(() => page.getByRole('table', { name: 'Webhook endpoints' }).textContent())
      .toContain('node.created, bundle.processing.succeeded');

    // The test event, signed with the secret the screen showed once.
    receiver.secrets = [firstSecret];
    await page.getByRole('link', { name: receiver.url }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Webhook endpoint');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const [test] = await receiver.waitFor((delivery) => delivery.body.type === 'webhook.test');
    expect(test).toMatchObject({ verifiedBy: 0, sdkVerifiedBy: 0, body: { data: { webhookId } } });
    const rows = page.getByRole('table', { name: 'Deliveries, newest first' }).locator('tbody tr');
    await expect.poll(() => rows.allTextContents(), LOG).toEqual([expect.stringMatching(/webhook\.testDelivered1200Detail$/)]);
    const logged = (await hooks.get(`/v1/webhooks/${webhookId}/deliveries`)).body;
    expect(logged.total).toBe(1);
    expect(logged.items[0]).toMatchObject({ eventId: test?.id, status: 'succeeded', attempt: 1, responseStatus: 200 });
    expect(await rows.first().getAttribute('data-delivery-id')).toBe(logged.items[0].id);
    await expectAccessible(page);

    // Its detail, and sent again: a second delivery of the same event.
    await rows
      .first()
      .getByRole('button', { name: /^Detail of the webhook\.test delivery/ })
      .click();
    const detail = page.getByRole('dialog', { name: 'Delivery of webhook.test' });
    await expect.poll(() => detail.textContent()).toContain(logged.items[0].eventId);
    await expectAccessible(page);
    await detail.getByRole('button', { name: 'Redeliver' }).click();
    await detail.waitFor({ state: 'detached' });
    await expect.poll(statusText).toContain('Sent again as a new delivery of the same event.');
    await receiver.waitFor((delivery) => delivery.id === test?.id, 2);
    const again = (await hooks.get(`/v1/webhooks/${webhookId}/deliveries`)).body;
    expect(again.total).toBe(2);
    expect(again.items.map((item: { eventId: string }) => item.eventId)).toEqual([test?.id, test?.id]);
    await expect
      .poll(() => rows.allTextContents(), LOG)
      .toEqual([
        expect.stringMatching(/webhook\.testDelivered1200Detail$/),
        expect.stringMatching(/webhook\.testDelivered1200Detail$/),
      ]);

    // A new secret: the next test event is signed with it.
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate the secret' })
      .click();
    const newSecret = await secretShown('New signing secret');
    expect(newSecret).not.toBe(firstSecret);
    receiver.secrets = [newSecret];
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const tests = await receiver.waitFor((delivery) => delivery.body.type === 'webhook.test' && delivery.id !== test?.id);
    expect(tests[0]).toMatchObject({ verifiedBy: 0, sdkVerifiedBy: 0 });
    await expect.poll(() => rows.count(), LOG).toBe(3);

    // Changed: paused, every event.
    await page.getByRole('button', { name: 'Change', exact: true }).click();
    const change = page.getByRole('dialog', { name: `Change the endpoint ${receiver.url}` });
    await change.getByLabel('Description').fill('Site office, paused');
    await change.getByLabel('All events, including those added later').check();
    await change.getByLabel('Active: send events to it').uncheck();
    await change.getByRole('button', { name: 'Save' }).click();
    await change.waitFor({ state: 'detached' });
    await expect.poll(statusText).toContain('Endpoint saved.');
    expect((await hooks.get(`/v1/webhooks/${webhookId}`)).body).toMatchObject({
      description: 'Site office, paused',
      eventTypes: ['*'],
      enabled: false,
    });
    await expect.poll(() => page.textContent('dl.webhook-facts')).toContain('Paused');

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page
      .getByRole('dialog', { name: `Delete the endpoint ${receiver.url}?` })
      .getByRole('button', { name: 'Delete endpoint' })
      .click();
    await expect.poll(() => page.textContent('main h1')).toBe('Webhooks');
    await expect.poll(statusText).toContain(`Endpoint ${receiver.url} deleted.`);
    expect((await hooks.get(`/v1/webhooks/${webhookId}`)).status).toBe(404);
  });

  it('shows someone who is not an administrator no Webhooks entry, and words on its address', async () => {
    const theirs = await freshPage(browser);
    await signIntoConsole(theirs, t, reader);
    const nav = theirs.getByRole('navigation', { name: 'Console' });
    await expect.poll(() => nav.getByRole('link').allTextContents()).toEqual(['Data', 'Trash', 'Library']);
    await theirs.goto(`${t.origin}/console/webhooks`);
    await expect.poll(() => theirs.textContent('main .notice')).toContain('Only administrators');
    expect(await theirs.locator('main .notice.error, main [role=alert]').count()).toBe(0);
    expect(await theirs.getByRole('button', { name: 'New endpoint' }).count()).toBe(0);
    await expectAccessible(theirs);
    await theirs.context().close();
  });
});
