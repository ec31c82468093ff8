import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { adminService } from '../../src/composition/platform-services.js';
import { loadConfig } from '../../src/config/config.js';
import { openPlatform } from '../../src/platform.js';
import { administratorClient } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { type ServerProcess, spawnServer, startServer } from '../support/server-process.js';

const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

/** The roles started as real processes of one deployment (`node src/main.ts` with RDP_ROLES). */
describe('roles started as separate processes', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-roles-'));
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  const storeEnv: Record<string, string> = {
    RDP_DATA_DIR: dataDir,
    ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix } : {}),
  };
  const servers: ServerProcess[] = [];
  let auth: ServerProcess;
  let api: ServerProcess;
  let worker: ServerProcess;
  let orgId: string;
  let basic: string;

  beforeAll(async () => {
    const platform = await openPlatform(loadConfig({ ...storeEnv, RDP_LOG_LEVEL: 'silent' }));
    try {
      const admin = adminService(platform);
      orgId = (await admin.createOrganization({ name: 'Apart', region: 'eu' })).id;
      basic = await administratorClient(admin, orgId, 'Caller', ['read:hierarchy']);
    } finally {
      await platform.close();
    }
    const [authPort, apiPort, workerPort] = [await freePort(), await freePort(), await freePort()];
    // Every copy shares the public address: the tokens' issuer.
    const shared = { ...storeEnv, RDP_PUBLIC_URL: `http://127.0.0.1:${authPort}`, RDP_LOG_LEVEL: 'info' };
    [auth, worker] = await Promise.all([
      startServer(authPort, { ...shared, RDP_ROLES: 'auth' }),
      startServer(workerPort, { ...shared, RDP_ROLES: 'worker' }),
    ]);
    servers.push(auth, worker);
    api = await startServer(apiPort, {
      ...shared,
      RDP_ROLES: 'api',
      RDP_REGIONS: 'eu',
      RDP_AUTH_JWKS_URL: `${auth.origin}/auth/oauth/jwks`,
    });
    servers.push(api);
  }, 150_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("a token of the auth process works on the api process, which fetched the auth process's key set", async () => {
    const issued = await fetch(`${auth.origin}/auth/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(issued.status).toBe(200);
    const { access_token: token } = (await issued.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${token}` };
    expect((await fetch(`${api.origin}/eu/reality/v1/nodes/${orgId}/browse`, { headers })).status).toBe(200);
    expect((await fetch(`${api.origin}/us/reality/v1/nodes/${orgId}/browse`, { headers })).status).toBe(404);
    expect((await fetch(`${api.origin}/auth/oauth/api-info`, { headers })).status).toBe(404);
    expect((await fetch(`${auth.origin}/eu/reality/v1/nodes/${orgId}/browse`, { headers })).status).toBe(404);
    expect(api.output()).toContain(`token keys: ${auth.origin}/auth/oauth/jwks (RDP_AUTH_JWKS_URL)`);
    expect(api.output()).toContain('roles: api; regional APIs: eu;');
  });

  it('a worker process answers health and nothing else', async () => {
    expect((await fetch(`${worker.origin}/health`)).status).toBe(200);
    expect((await fetch(`${worker.origin}/eu/reality/openapi.json`)).status).toBe(404);
    expect((await fetch(`${worker.origin}/auth/oauth/jwks`)).status).toBe(404);
    expect((await fetch(`${worker.origin}/`)).status).toBe(404); // no landing page: it serves no people
  });

  it('the landing page: on the auth process at / and /auth; on the api process at / only (docs/api-reference.md)', async () => {
    for (const address of [`${auth.origin}/`, `${auth.origin}/auth`, `${api.origin}/`]) {
      const answer = await fetch(address);
      expect(answer.status, address).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await answer.text()).toContain('/eu/reality/docs');
    }
    expect((await fetch(`${api.origin}/auth`)).status).toBe(404);
  });
});

describe('a start that cannot go on', () => {
  it.each([
    ['RDP_ROLES', 'auth,admin', 'rdp: configuration error: RDP_ROLES must list roles of auth, api, worker, got "admin"\n'],
    ['RDP_REGIONS', 'eu,mars', 'rdp: configuration error: RDP_REGIONS must list regions of ca, us, eu, au, got "mars"\n'],
  ])('stops with status 2 and a message naming %s', async (name, value, message) => {
    const server = spawnServer({ [name]: value });
    expect(await server.exited).toBe(2);
    expect(server.output()).toBe(message);
  });

  it('stops with status 1 and one line naming RDP_DATABASE_URL, its password masked, when PostgreSQL is unreachable', async () => {
    const port = await freePort(); // nothing listens there
    const server = spawnServer({
      PORT: String(await freePort()),
      RDP_DATABASE_URL: `postgres://rdp:s3cret@127.0.0.1:${port}/rdp`,
    });
    expect(await server.exited).toBe(1);
    const output = server.output();
    expect(output).toContain(`PostgreSQL at RDP_DATABASE_URL=postgres://rdp:***@127.0.0.1:${port}/rdp is unreachable`);
    expect(output).toContain('ECONNREFUSED');
    expect(output).not.toContain('s3cret');
    expect(output).not.toMatch(/\n\s+at /); // no stack
    expect(output.trim().split('\n')).toHaveLength(1);
  });
});
