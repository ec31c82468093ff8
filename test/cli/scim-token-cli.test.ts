import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { runRdp } from '../support/rdp-cli.js';
import { ScimClient } from '../support/scim.js';

describe('rdp admin scim-token create', () => {
  // The command line and a server share one store: the printed token works on the server.
  let t: TestPlatform;
  const rdp = (args: string[]) => runRdp(t, args);

  const tokenCount = async () =>
    Number(
      (
        await t.platform.stores.global.db
          .selectFrom('scim_tokens')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    t = await startPlatform();
  });
  afterAll(() => t.close());

  it('prints the token once with the SCIM address; the identity provider can use it at once', async () => {
    const org = await t.admin.createOrganization({ name: 'Acme', region: 'eu' });
    const run = await rdp(['admin', 'scim-token', 'create', '--org', org.id, '--name', 'Okta', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(Object.keys(printed).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'scimUrl', 'token']);
    expect(printed).toMatchObject({ name: 'Okta', scimUrl: `${t.origin}/scim/v2` });

    const scim = new ScimClient(printed.scimUrl, printed.token);
    const users = await scim.get('/Users');
    expect(users.status).toBe(200);
    expect(users.body.totalResults).toBe(0);

    const event = await t.platform.regions.eu.store.db
      .selectFrom('audit_events')
      .selectAll()
      .where('org_id', '=', org.id)
      .where('action', '=', 'scim-token.created')
      .executeTakeFirstOrThrow();
    expect(event).toMatchObject({ actor_type: 'admin-cli', target_type: 'scim-token', target_id: printed.id });
  });

  it('refuses an unknown organization (exit 1) and a missing name (exit 2), storing nothing', async () => {
    const before = await tokenCount();
    const unknown = await rdp(['admin', 'scim-token', 'create', '--org', randomUUID(), '--name', 'Okta']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^rdp: organization [0-9a-f-]+ not found/);
    const missing = await rdp(['admin', 'scim-token', 'create', '--org', randomUUID()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--name is required/);
    expect(await tokenCount()).toBe(before);
  });
});
