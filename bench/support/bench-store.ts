import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { openPlatform } from '../../src/platform.js';
import { AdminService } from '../../src/services/admin-service.js';

/** Stores made for a benchmark live here and are removed by remove(). */
const ROOT = path.join(os.tmpdir(), 'rdp-bench');

/** An embedded store with one organization and an administrator application, as `rdp admin` would make it. */
export interface BenchStore {
  dataDir: string;
  orgId: string;
  clientId: string;
  clientSecret: string;
  /** The SQLite file of the organization's region (eu). */
  regionFile: string;
  remove(): void;
}

export async function createBenchStore(label: string): Promise<BenchStore> {
  fs.mkdirSync(ROOT, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(ROOT, `${label}-`));
  const platform = await openPlatform(loadConfig({ RDP_DATA_DIR: dataDir, RDP_LOG_LEVEL: 'silent' }));
  try {
    const admin = new AdminService(platform);
    const org = await admin.createOrganization({ name: 'Bench Construction Ltd', region: 'eu' });
    const app = await admin.createApplication({
      orgId: org.id,
      name: 'Bench integration',
      flow: 'client-credentials',
      scopes: ['read:hierarchy', 'write:hierarchy'],
    });
    const roles = await admin.listRoles(org.id);
    const roleId = roles.find((role) => role.name === 'Organization Administrator')?.id as string;
    await admin.grantMembership({ nodeId: org.id, principalId: app.serviceUserId as string, roleId });
    return {
      dataDir,
      orgId: org.id,
      clientId: app.clientId,
      clientSecret: app.clientSecret as string,
      regionFile: path.join(dataDir, 'region_eu.sqlite'),
      remove: () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  } finally {
    await platform.close();
  }
}

/** A client-credentials access token from a running platform. */
export async function fetchToken(origin: string, store: Pick<BenchStore, 'clientId' | 'clientSecret'>): Promise<string> {
  const response = await fetch(`${origin}/auth/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${store.clientId}:${store.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return body.access_token;
}
