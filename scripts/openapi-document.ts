import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { REGIONS } from '../src/domain/regions.js';
import { buildApp } from '../src/http/app.js';
import { openPlatform } from '../src/platform.js';

/** The committed document, written by `npm run openapi` and checked by test/api/openapi.test.ts. */
export const OPENAPI_FILE = fileURLToPath(new URL('../openapi/openapi.json', import.meta.url));

/** A fixed origin, so the committed document does not depend on the machine that wrote it. */
export const DOCUMENT_PUBLIC_URL = 'http://127.0.0.1:8080';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Keys sorted at every level, so reordering routes or components does not churn the file;
 * the members of a `properties` map keep their declared order, which is the order readers see.
 */
function sortKeys(value: Json, keepOrder = false): Json {
  if (Array.isArray(value)) return value.map((item) => sortKeys(item));
  if (value === null || typeof value !== 'object') return value;
  const keys = keepOrder ? Object.keys(value) : Object.keys(value).sort();
  return Object.fromEntries(keys.map((key) => [key, sortKeys(value[key] as Json, key === 'properties')]));
}

/** The top level in the order the OpenAPI specification presents it; everything below sorted. */
const TOP_LEVEL = ['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'components'];

export function formatOpenApiDocument(document: { [key: string]: Json }): string {
  const sorted = sortKeys(document) as { [key: string]: Json };
  const rank = (key: string) => (TOP_LEVEL.includes(key) ? TOP_LEVEL.indexOf(key) : TOP_LEVEL.length);
  const keys = Object.keys(sorted).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return `${JSON.stringify(Object.fromEntries(keys.map((key) => [key, sorted[key] as Json])), null, 2)}\n`;
}

/**
 * The regional document as the code generates it, built in-process on a throwaway SQLite store.
 * The four regions publish the same operations; the committed copy names no single region and
 * lists their base addresses as the values of one server variable.
 */
export async function generateOpenApiDocument(): Promise<{ [key: string]: Json }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-openapi-'));
  const config = loadConfig({ RDP_DATA_DIR: dataDir, RDP_PUBLIC_URL: DOCUMENT_PUBLIC_URL, RDP_LOG_LEVEL: 'silent' });
  const platform = await openPlatform(config);
  try {
    const app = await buildApp(platform, { logger: false });
    try {
      const response = await app.inject({ method: 'GET', url: '/eu/reality/openapi.json' });
      if (response.statusCode !== 200) throw new Error(`openapi.json answered ${response.statusCode}`);
      const document = response.json() as { [key: string]: Json } & { info: { [key: string]: Json } };
      return {
        ...document,
        info: { ...document.info, title: 'Reality Data Platform API' },
        servers: [
          {
            url: '{baseUrl}',
            description: 'The apiUrl that GET {auth_url}/oauth/api-info returns for the organization',
            variables: {
              baseUrl: { default: config.regionUrls.eu, enum: REGIONS.map((region) => config.regionUrls[region]) },
            },
          },
        ],
      };
    } finally {
      await app.close();
    }
  } finally {
    await platform.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
