import fs from 'node:fs';
import path from 'node:path';
import {
  ClientCredentials,
  connect,
  ok,
  paginate,
  type RdpClient,
  startProcessing,
  type UploadProgress,
  uploadBundleInput,
  waitForProcessing,
} from '@reality-data-platform/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const SAMPLE = path.resolve(import.meta.dirname, '../../examples/sample-scan.laz');

describe("the README's walk-through through the SDK, with the real worker", () => {
  let t: TestPlatform;
  let rdp: RdpClient;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    const org = await createOrg(t);
    // As the README's first call: an application with the scopes it needs, its service user an administrator.
    const app = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Walk-through',
      flow: 'client-credentials',
      scopes: ['read:basic', 'read:hierarchy', 'write:hierarchy'],
    });
    await t.admin.grantMembership({
      nodeId: org.orgId,
      principalId: app.serviceUserId as string,
      roleId: org.roles['Organization Administrator'] as string,
    });
    const tokens = new ClientCredentials({
      authUrl: t.authUrl,
      clientId: app.clientId,
      clientSecret: app.clientSecret as string,
    });
    rdp = await connect({ authUrl: t.authUrl, tokens });
  });
  afterAll(() => t?.close());

  it('creates a division and a site, uploads the sample scan into a bundle, processes it and browses the result', async () => {
    expect(rdp.apiUrl).toBe(t.regionUrl('eu'));
    const division = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/division', {
        params: { path: { parentId: rdp.organizationId } },
        body: { name: 'North' },
      }),
    );
    const site = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/site', {
        params: { path: { parentId: division.id } },
        body: { name: 'Harbour', address: '1 Quay Street' },
      }),
    );
    const bundle = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/bundle', { params: { path: { parentId: site.id } }, body: { name: 'Scan 1' } }),
    );

    const progress: UploadProgress[] = [];
    const uploaded = await uploadBundleInput(rdp, {
      bundleId: bundle.id,
      files: [{ source: SAMPLE }],
      onProgress: (step) => progress.push(step),
    });
    const size = fs.statSync(SAMPLE).size;
    expect(uploaded.state).toBe('uploaded');
    expect(progress.at(-1)).toEqual({ sentBytes: size, totalBytes: size });

    const started = await startProcessing(rdp, bundle.id);
    expect(started.state).toBe('queued');
    const ended = await waitForProcessing(rdp, bundle.id, started.id, { intervalMs: 200, timeoutMs: 60_000 });
    expect(ended).toMatchObject({ id: started.id, state: 'succeeded', failureReason: null });

    // Browse: the site holds the bundle and the point cloud the processing made.
    const items = [];
    for await (const node of paginate((page) =>
      rdp.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId: site.id }, query: page } }),
    )) {
      items.push(node);
    }
    expect(items.map((node) => node.id).sort()).toEqual([bundle.id, ended.derivativeId].sort());
    // The tileset answers through the SDK's authorized fetch.
    const tileset = await rdp.fetch(ended.tilesetUrl as string);
    expect(tileset.status).toBe(200);
    expect(((await tileset.json()) as { asset: { version: string } }).asset.version).toBe('1.1');
  });
});
