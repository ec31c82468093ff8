import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/http/app.js';
import { startWorker } from '../../src/jobs/start-worker.js';
import { openPlatform } from '../../src/platform.js';
import { writeLas } from '../../test/support/point-cloud-samples.js';
import { freePort } from '../../test/support/ports.js';
import { fetchToken, seedOrganization } from './bench-store.js';
import type { StoreUnderTest } from './stores.js';

/** A real PNG of one pixel: the bundle's thumbnail. */
const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A bundle as a user sees it after a processing, and the administrator application that made it. */
export interface ProcessedBundle {
  orgId: string;
  clientId: string;
  clientSecret: string;
  bundleId: string;
}

/** Input files of the bundle: the largest is the one processing reads. */
const INPUT_FILES = [
  { name: 'scan.las', points: 3000 },
  { name: 'scan-north.las', points: 1000 },
  { name: 'scan-south.las', points: 500 },
];

/**
 * A data bundle made the way a client makes one, through the API of a platform with its worker
 * running in this process on `store`: division > site > folder > bundle, an upload session of
 * three LAS files uploaded through their signed addresses and finalized, one processing run to
 * its end (a derivative point cloud), and a thumbnail. So every expansion of a fetch has rows to
 * read: processings, components (the input's files and the output) and thumbnail.
 */
export async function seedProcessedBundle(store: StoreUnderTest): Promise<ProcessedBundle> {
  const client = await seedOrganization(store.env);
  const port = await freePort();
  const platform = await openPlatform(loadConfig({ ...store.env, PORT: String(port), RDP_LOG_LEVEL: 'silent' }));
  const app = await buildApp(platform, { logger: false });
  await app.listen({ host: '127.0.0.1', port });
  const worker = await startWorker(platform);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'rdp-bench-bundle-'));
  try {
    const origin = `http://127.0.0.1:${port}`;
    const token = await fetchToken(origin, client);
    const call = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${origin}/eu/reality${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = (await response.json()) as any;
      if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const division = await call('POST', `/v1/nodes/${client.orgId}/division`, { name: 'Infrastructure' });
    const site = await call('POST', `/v1/nodes/${division.id}/site`, { name: 'Central Station', address: '1 Station Avenue' });
    const folder = await call('POST', `/v1/nodes/${site.id}/folder`, { name: 'Survey 2024' });
    const bundle = await call('POST', `/v1/nodes/${folder.id}/bundle`, { name: 'Concourse scan' });
    const session = await call('POST', `/v1/bundles/${bundle.id}/upload-sessions`);
    const files: { id: string; etag: string }[] = [];
    for (const input of INPUT_FILES) {
      const file = path.join(scratch, input.name);
      await writeLas(file, input.points);
      const bytes = await fs.readFile(file);
      const added = await call('POST', `/v1/bundles/${bundle.id}/upload-sessions/${session.id}/files`, {
        name: input.name,
        size: bytes.length,
      });
      const put = await fetch(added.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) });
      if (put.status !== 200) throw new Error(`PUT of ${input.name} answered ${put.status}`);
      files.push({ id: added.id, etag: (put.headers.get('etag') ?? '').replaceAll('"', '') });
    }
    await call('POST', `/v1/bundles/${bundle.id}/upload-sessions/${session.id}/finalize`, { files });
    const { cost } = await call('GET', `/v1/bundles/${bundle.id}/processing/cost`);
    await call('POST', `/v1/bundles/${bundle.id}/processing`, { cost });
    for (let waited = 0; ; waited += 100) {
      const { state } = await call('GET', `/v1/bundles/${bundle.id}`);
      if (state === 'ready') break;
      if (state === 'failed' || waited > 120_000) throw new Error(`the bundle's processing ended ${state}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const thumbnail = await fetch(`${origin}/eu/reality/v1/nodes/${bundle.id}/thumbnail`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: new Uint8Array(ONE_PIXEL_PNG),
    });
    if (thumbnail.status !== 200) throw new Error(`setting the thumbnail answered ${thumbnail.status}`);
    return { ...client, bundleId: bundle.id };
  } finally {
    await worker.stop();
    await app.close();
    await platform.close();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}
