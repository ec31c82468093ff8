import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminService } from '../../src/composition/platform-services.js';
import { loadConfig } from '../../src/config/config.js';
import { openPlatform } from '../../src/platform.js';

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

/**
 * An organization in eu with an administrator application, made in the stores `env` names (as
 * `rdp admin` would) before a server opens them.
 */
export async function seedOrganization(
  env: Record<string, string>,
  name = 'Bench Construction Ltd',
): Promise<{ orgId: string; clientId: string; clientSecret: string }> {
  const platform = await openPlatform(loadConfig({ ...env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const admin = adminService(platform);
    const org = await admin.createOrganization({ name, region: 'eu' });
    const app = await admin.createApplication({
      orgId: org.id,
      name: 'Bench integration',
      flow: 'client-credentials',
      scopes: ['read:hierarchy', 'write:hierarchy'],
    });
    await admin.grantMembership({
      nodeId: org.id,
      principalId: app.serviceUserId as string,
      roleId: 'organization-administrator',
    });
    return { orgId: org.id, clientId: app.clientId, clientSecret: app.clientSecret as string };
  } finally {
    await platform.close();
  }
}

export async function createBenchStore(label: string): Promise<BenchStore> {
  fs.mkdirSync(ROOT, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(ROOT, `${label}-`));
  return {
    dataDir,
    ...(await seedOrganization({ RDP_DATA_DIR: dataDir })),
    regionFile: path.join(dataDir, 'region_eu.sqlite'),
    remove: () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
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

/**
 * A JSON client of a region's API for a benchmark's setup: `call(method, path, body?)` sends
 * with the bearer token and answers the parsed body, throwing on any status that is not 2xx.
 */
export function apiCaller(api: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}
