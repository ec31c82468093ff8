import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { outputOf } from '../support/process-output.js';
import { lineMatching, RdpUser } from '../support/rdp-user.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** rdp process and rdp watch against a platform whose worker really processes. */
describe('rdp process, rdp watch', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let rdp: RdpUser;
  let siteId: string;
  let dir: string;

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    org = await createOrg(t);
    rdp = new RdpUser(t);
    const login = await rdp.loginWithForms(await createMember(t, org, 'Organization Administrator'), org.orgId);
    expect(login.code, login.stderr).toBe(0);
    const division = (await rdp.run(['mkdir', 'Surveys'])).stdout.trim();
    siteId = (
      await rdp.run(['mkdir', 'Harbour', '--in', division, '--type', 'site', '--address', '1 Quay Street'])
    ).stdout.trim();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-process-'));
  });
  afterAll(async () => {
    await t?.close();
    rdp?.remove();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function uploaded(name: string, write: (file: string) => Promise<void>): Promise<string> {
    const file = path.join(dir, name);
    await write(file);
    const run = await rdp.run(['upload', file, '--to', siteId]);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout.trim();
  }

  it('without --yes and without a terminal, process shows the cost, refuses with exit 1 and starts nothing', async () => {
    const bundleId = await uploaded('scan.las', (file) => writeLas(file, 3000));
    const cost = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
    const run = await rdp.run(['process', bundleId]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`costs ${cost.cost} ${cost.unit}.`);
    expect(run.stderr).toMatch(
      /rdp: not started: there is no terminal to confirm the cost on; add --yes to start without asking\n$/,
    );
    expect((await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`)).body.processings).toEqual([]);
  });

  it('on a terminal, process asks: no starts nothing, yes starts the processing', async () => {
    const bundleId = await uploaded('asked.las', (file) => writeLas(file, 3000));
    // `script` gives the command a terminal (a pty), as a person's shell does.
    const onTerminal = async (answer: string) => {
      const child = spawn(
        'script',
        ['-qec', `"${process.execPath}" --import tsx src/cli/rdp.ts process ${bundleId}`, '/dev/null'],
        {
          cwd: ROOT,
          env: rdp.env(),
        },
      );
      const done = outputOf(child);
      await lineMatching(child.stdout as Readable, /Start processing\? \[y\/N\] /);
      child.stdin?.write(`${answer}\n`);
      return done;
    };
    const declined = await onTerminal('n');
    expect(declined.code).toBe(1);
    expect(declined.stdout).toMatch(/costs \d+ \S+\.[\s\S]*Start processing\? \[y\/N\] [\s\S]*rdp: not started: not confirmed/);
    expect((await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`)).body.processings).toEqual([]);
    const accepted = await onTerminal('y');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(new RegExp(`processing [0-9a-f-]{36} queued; follow it with: rdp watch ${bundleId}`));
    expect((await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`)).body.processings).toHaveLength(1);
  });

  it('watch follows a processing that fails to its end: exit 1 with the reason', async () => {
    // A LAS whose header promises more points than the file holds: finalize accepts it, processing fails.
    const bundleId = await uploaded('cut.las', async (file) => {
      await writeLas(file, 20_000);
      fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    });
    const started = await rdp.json(['process', bundleId, '--yes']);
    expect(started).toMatchObject({ bundleId, state: 'queued' });
    const watch = await rdp.run(['watch', bundleId, '--interval', '0.2']);
    expect(watch.code).toBe(1);
    const failed = (await org.admin.get(`/v1/bundles/${bundleId}?expand=processings`)).body.processings[0];
    expect(failed).toMatchObject({ state: 'failed', failureReason: expect.stringMatching(/truncated/) });
    // A line per state it saw (it may start late enough to see only the end), then the reason.
    const line = `processing ${started.id}`;
    expect(watch.stderr.split('\n').slice(-3)).toEqual([
      `${line}: failed`,
      `rdp: processing failed: ${failed.failureReason}`,
      '',
    ]);
    expect(watch.stderr).toMatch(new RegExp(`^(${line}: (queued|running)\\n)*${line}: failed\\n`));
  });
});
