import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CountingProxy } from '../support/counting-proxy.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { outputOf } from '../support/process-output.js';
import { lineMatching, RdpUser } from '../support/rdp-user.js';

const PART = 5 * 1024 * 1024;

/** rdp upload: an upload killed at half resumes from its state file, sending only the parts not stored. */
describe('rdp upload', () => {
  let t: TestPlatform;
  let proxy: CountingProxy;
  let org: OrgFixture;
  let rdp: RdpUser;
  let siteId: string;
  let dir: string;

  beforeAll(async () => {
    // The platform's public address is the proxy's, so every PUT the command line sends passes it.
    proxy = await CountingProxy.start();
    t = await startPlatform({ RDP_UPLOAD_PART_SIZE_BYTES: String(PART), RDP_PUBLIC_URL: proxy.origin });
    proxy.forwardTo(t.origin);
    org = await createOrg(t);
    rdp = new RdpUser(t, proxy.origin);
    const login = await rdp.loginWithForms(await createMember(t, org, 'Organization Administrator'), org.orgId);
    expect(login.code, login.stderr).toBe(0);
    const division = (await rdp.run(['mkdir', 'Surveys'])).stdout.trim();
    siteId = (
      await rdp.run(['mkdir', 'Harbour', '--in', division, '--type', 'site', '--address', '1 Quay Street'])
    ).stdout.trim();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-upload-'));
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    rdp?.remove();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('killed at half, the same command resumes: only the missing parts are sent and the stored bytes are the file', async () => {
    const file = path.join(dir, 'scan.las');
    await writeLas(file, 1_300_000); // about 34 MiB: seven parts
    const bytes = fs.readFileSync(file);
    const parts = Math.ceil(bytes.length / PART);
    expect(parts).toBeGreaterThanOrEqual(6);
    const args = ['upload', file, '--to', siteId, '--concurrency', '2'];

    const first = rdp.spawn(args);
    const firstDone = outputOf(first);
    await lineMatching(first.stderr as Readable, /uploading: 50%/);
    first.kill('SIGKILL');
    expect((await firstDone).code).toBe(null);

    const stateFiles = fs.readdirSync(path.join(rdp.configHome, 'rdp', 'uploads'));
    expect(stateFiles).toHaveLength(1);
    const statePath = path.join(rdp.configHome, 'rdp', 'uploads', stateFiles[0] as string);
    expect(fs.statSync(statePath).mode & 0o777).toBe(0o600);
    const state = JSON.parse(fs.readFileSync(statePath, 'utf8'));
    const stored: number[] = state.upload.files[0].done.map((part: { partNumber: number }) => part.partNumber);
    expect(stored.length).toBeGreaterThanOrEqual(Math.floor(parts / 2) - 1);
    expect(stored.length).toBeLessThan(parts);
    // Every part the state calls stored was answered 200 by the platform.
    for (const partNumber of stored)
      expect(proxy.puts.some((put) => put.partNumber === partNumber && put.status === 200)).toBe(true);

    const sentBefore = proxy.puts.length;
    const resumed = await rdp.run(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`Resuming the upload into bundle ${state.bundleId} (${stored.length} parts already stored)`);
    expect(resumed.stdout).toBe(`${state.bundleId}\n`);
    const sentOnResume = proxy.puts.slice(sentBefore).map((put) => put.partNumber);
    const missing = Array.from({ length: parts }, (_, i) => i + 1).filter((n) => !stored.includes(n));
    expect(sentOnResume.sort((a, b) => a - b)).toEqual(missing);
    expect(fs.existsSync(statePath)).toBe(false);

    // The bundle's input is the file, byte for byte.
    const bundle = (await org.admin.get(`/v1/bundles/${state.bundleId}`)).body;
    expect(bundle).toMatchObject({ id: state.bundleId, state: 'uploaded' });
    const object = await t.platform.regions.eu.store.db
      .selectFrom('stored_objects')
      .select(['blob_key', 'stored_bytes', 'state'])
      .where('node_id', '=', state.bundleId)
      .executeTakeFirstOrThrow();
    expect(object).toMatchObject({ stored_bytes: bytes.length });
    const chunks: Buffer[] = [];
    for await (const chunk of await t.platform.blobs.read(object.blob_key)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('Ctrl-C stops it with exit 1 and says how to resume; the same command then finishes it', async () => {
    const file = path.join(dir, 'interrupted.las');
    await writeLas(file, 800_000); // about 21 MiB: five parts
    const args = ['upload', file, '--to', siteId, '--concurrency', '1'];
    const first = rdp.spawn(args);
    const firstDone = outputOf(first);
    await lineMatching(first.stderr as Readable, /uploading: 30%/);
    first.kill('SIGINT');
    const stopped = await firstDone;
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).toMatch(/\nrdp: interrupted; run the same command again to resume \(state: .*\.json\)\n$/);
    const resumed = await rdp.run(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^Resuming the upload into bundle /);
    const bundleId = resumed.stdout.trim();
    expect((await org.admin.get(`/v1/bundles/${bundleId}`)).body).toMatchObject({ state: 'uploaded' });
  });

  it('prints plain progress lines without a terminal, and a bundle id on stdout only', async () => {
    const file = path.join(dir, 'small.las');
    await writeLas(file, 2000);
    const run = await rdp.run(['upload', file, '--to', siteId, '--name', 'Small scan']);
    expect(run.code, run.stderr).toBe(0);
    const size = fs.statSync(file).size;
    expect(run.stderr).toMatch(
      new RegExp(`^(uploading: \\d+% \\(\\d+ of ${size} bytes\\)\n)*uploading: 100% \\(${size} of ${size} bytes\\)\n$`),
    );
    const bundleId = run.stdout.trim();
    expect((await org.admin.get(`/v1/nodes/${bundleId}`)).body).toMatchObject({
      name: 'Small scan',
      type: 'dataBundle',
      parentId: siteId,
    });
  });

  it('refuses a missing file with exit 2 and a node that cannot hold a bundle with exit 1, creating nothing', async () => {
    expect(await rdp.run(['upload', path.join(dir, 'nope.las'), '--to', siteId])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^rdp: .*nope\.las is not a file/),
    });
    const file = path.join(dir, 'refused.las');
    await writeLas(file, 100);
    const run = await rdp.run(['upload', file, '--to', org.orgId]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^rdp: /);
    expect(fs.readdirSync(path.join(rdp.configHome, 'rdp', 'uploads'))).toEqual([]);
  });
});
