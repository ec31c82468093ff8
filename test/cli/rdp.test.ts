import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { REGIONS } from '../../src/domain/regions.js';
import { ApiClient, clientCredentialsToken } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { outputOf, type ProcessOutput } from '../support/process-output.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

describe('the rdp admin command line', () => {
  // The command line and a server share one store, as in the README's first call.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-cli-'));
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  const storeEnv: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    RDP_LOG_LEVEL: 'silent',
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
  };
  let t: TestPlatform;

  /** Runs the command line from source, as a separate process with only the store's environment. */
  function rdp(args: string[], env: Record<string, string> = {}): Promise<ProcessOutput> {
    const fullEnv = { PATH: process.env.PATH ?? '', ...storeEnv, RDP_PUBLIC_URL: t.origin, ...env };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/rdp.ts', ...args], { cwd: ROOT, env: fullEnv });
    return outputOf(child);
  }

  /** The one JSON object a successful --json command prints, and nothing else. */
  function printed(run: ProcessOutput): Record<string, any> {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(run.stdout);
  }

  /** Row counts of every table the commands write, in the global store and each region. */
  async function storeCounts() {
    const global = t.platform.stores.global.db;
    const counts: Record<string, unknown> = {};
    for (const table of ['organizations', 'users', 'user_organizations', 'oauth_applications'] as const) {
      counts[table] = (
        await global
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    }
    for (const region of REGIONS) {
      const db = t.platform.regions[region].store.db;
      for (const table of ['nodes', 'roles', 'memberships'] as const) {
        counts[`${region}.${table}`] = (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      }
    }
    return counts;
  }

  async function createOrg(name = 'Acme') {
    return printed(await rdp(['admin', 'org', 'create', '--name', name, '--region', 'eu', '--json']));
  }

  beforeAll(async () => {
    t = await startPlatform(storeEnv);
  });
  afterAll(async () => {
    await t.close();
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('org create prints id (a UUID), name, region and apiUrl, and stores the organization', async () => {
    const org = await createOrg('Acme Surveys');
    expect(Object.keys(org)).toEqual(['id', 'name', 'region', 'apiUrl']);
    expect(org).toMatchObject({ name: 'Acme Surveys', region: 'eu', apiUrl: t.regionUrl('eu') });
    expect(org.id).toMatch(UUID);
    expect(await t.platform.directory.findOrganization(org.id)).toMatchObject({ name: 'Acme Surveys', region: 'eu' });
    expect(await t.platform.regions.eu.nodes.findById(org.id)).toMatchObject({ kind: 'organization', parent_id: null });
  });

  it('user create prints id and the e-mail address', async () => {
    const org = await createOrg();
    const email = `Ada.${randomUUID().slice(0, 6)}@Example.com`;
    const run = await rdp([
      'admin',
      'user',
      'create',
      '--email',
      email,
      '--password',
      'correct horse',
      '--org',
      org.id,
      '--json',
    ]);
    const user = printed(run);
    expect(Object.keys(user)).toEqual(['id', 'email']);
    expect(user.email).toBe(email.toLowerCase());
    expect(await t.platform.directory.findUser(user.id)).toMatchObject({ kind: 'user', email: email.toLowerCase() });
  });

  it('app create (client credentials) prints the secret and a service user that has no memberships', async () => {
    const org = await createOrg();
    const args = ['--org', org.id, '--name', 'Sync', '--flow', 'client-credentials', '--scopes', 'manage:user manage:hierarchy'];
    const app = printed(await rdp(['admin', 'app', 'create', ...args, '--json']));
    expect(Object.keys(app).sort()).toEqual(['clientId', 'clientSecret', 'scopes', 'serviceUserId']);
    expect(app.clientSecret).toMatch(/^\S{32,}$/);
    // Legacy scope names are accepted and stored under their new names.
    expect(app.scopes).toEqual(['write:user', 'write:hierarchy']);
    expect(await t.platform.directory.findApplication(app.clientId)).toMatchObject({ scopes: 'write:user write:hierarchy' });
    expect(await t.platform.directory.findUser(app.serviceUserId)).toMatchObject({ kind: 'service' });
    for (const region of REGIONS) {
      const db = t.platform.regions[region].store.db;
      expect(await db.selectFrom('memberships').selectAll().where('principal_id', '=', app.serviceUserId).execute()).toEqual([]);
    }
  });

  it('app create --no-secret (authorization code) prints no secret and no service user', async () => {
    const org = await createOrg();
    const run = await rdp([
      ...['admin', 'app', 'create', '--org', org.id, '--name', 'Viewer', '--flow', 'authorization-code'],
      ...['--redirect-uri', 'https://viewer.example.com/callback', '--no-secret', '--scopes', 'read:hierarchy', '--json'],
    ]);
    const app = printed(run);
    expect(Object.keys(app).sort()).toEqual(['clientId', 'scopes']);
    expect(await t.platform.directory.findApplication(app.clientId)).toMatchObject({ secret_hash: null, service_user_id: null });
  });

  it('role list prints {roles: [{id, name, kind, permissions}]}', async () => {
    const org = await createOrg();
    const { roles, ...rest } = printed(await rdp(['admin', 'role', 'list', '--org', org.id, '--json']));
    expect(rest).toEqual({});
    expect(roles.map((role: object) => Object.keys(role))).toEqual(roles.map(() => ['id', 'name', 'kind', 'permissions']));
    const admin = roles.find((role: { name: string }) => role.name === 'Organization Administrator');
    expect(admin).toMatchObject({ kind: 'administrative', permissions: expect.arrayContaining(['read', 'manage', 'delete']) });
    expect(roles.every((role: { kind: string }) => ['administrative', 'custom'].includes(role.kind))).toBe(true);
  });

  it('membership grant gives the service user access: its token then browses the organization', async () => {
    const org = await createOrg();
    const args = ['--org', org.id, '--name', 'Sync', '--flow', 'client-credentials', '--scopes', 'read:hierarchy', '--json'];
    const app = printed(await rdp(['admin', 'app', 'create', ...args]));
    const client = new ApiClient(org.apiUrl, await clientCredentialsToken(t, app.clientId, app.clientSecret));
    expect((await client.get(`/v1/nodes/${org.id}/browse`)).status).toBe(403);

    const { roles } = printed(await rdp(['admin', 'role', 'list', '--org', org.id, '--json']));
    const reader = roles.find((role: { name: string }) => role.name === 'Organization Reader');
    const grant = ['--node', org.id, '--principal', app.serviceUserId, '--role', reader.id, '--json'];
    const granted = printed(await rdp(['admin', 'membership', 'grant', ...grant]));
    expect(granted).toEqual({ nodeId: org.id, principalId: app.serviceUserId, roleId: reader.id });

    const browse = await client.get(`/v1/nodes/${org.id}/browse`);
    expect(browse.status).toBe(200);
    expect(browse.body).toEqual([]);
  });

  it('refuses a group of another organization as a principal', async () => {
    const [org, other] = [await createOrg(), await createOrg('Other')];
    const groupId = randomUUID();
    const now = new Date().toISOString();
    await t.platform.regions.eu.store.db
      .insertInto('groups')
      .values({
        id: groupId,
        org_id: other.id,
        name: 'G',
        name_key: 'g',
        division_id: null,
        scim_managed: 0,
        saml_linked: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const { roles } = printed(await rdp(['admin', 'role', 'list', '--org', org.id, '--json']));
    const before = await storeCounts();
    const run = await rdp(['admin', 'membership', 'grant', '--node', org.id, '--principal', groupId, '--role', roles[0].id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/principal .* not found/);
    expect(await storeCounts()).toEqual(before);
  });

  const NAME_256 = 'n'.repeat(256);
  const refusals: {
    what: string;
    args: () => string[];
    env?: Record<string, string>;
    code: number;
    message: RegExp;
    error?: string;
  }[] = [
    {
      what: 'a region that does not exist',
      args: () => ['admin', 'org', 'create', '--name', 'Acme', '--region', 'mars'],
      code: 1,
      message: /region must be one of ca, us, eu, au/,
      error: 'ValidationError',
    },
    {
      what: 'a name of 256 characters',
      args: () => ['admin', 'org', 'create', '--name', NAME_256, '--region', 'eu'],
      code: 1,
      message: /name must be 1 to 255 characters/,
      error: 'ValidationError',
    },
    {
      what: 'an unknown organization',
      args: () => [
        'admin',
        'app',
        'create',
        '--org',
        randomUUID(),
        '--name',
        'X',
        '--flow',
        'client-credentials',
        '--scopes',
        'read:basic',
      ],
      code: 1,
      message: /organization [0-9a-f-]+ not found/,
      error: 'Not Found',
    },
    {
      what: 'a missing required option',
      args: () => ['admin', 'org', 'create', '--region', 'eu'],
      code: 2,
      message: /--name is required/,
    },
    { what: 'an unknown command', args: () => ['admin', 'org', 'delete'], code: 2, message: /unknown command 'delete'/ },
    {
      what: 'a bad configuration value',
      args: () => ['admin', 'trash', 'purge'],
      env: { PORT: 'abc' },
      code: 2,
      message: /PORT must be an integer from 0 to 65535, got "abc"/,
    },
  ];

  for (const refusal of refusals) {
    it(`refuses ${refusal.what}: exit ${refusal.code}, a clear message, nothing stored`, async () => {
      const before = await storeCounts();
      const run = await rdp([...refusal.args(), '--json'], refusal.env);
      expect(run.code).toBe(refusal.code);
      expect(run.stderr).toMatch(new RegExp(`^rdp: .*${refusal.message.source}`));
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
      if (refusal.error) expect(JSON.parse(run.stdout)).toMatchObject({ error: refusal.error });
      else expect(run.stdout).toBe('');
      expect(await storeCounts()).toEqual(before);
    });
  }

  it('accepts a name of exactly 255 characters', async () => {
    const org = await createOrg('n'.repeat(255));
    expect(org.name).toHaveLength(255);
  });
});
