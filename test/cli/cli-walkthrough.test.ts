import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellBlocksOfSection } from '../support/doc-commands.js';
import { authorizeWithForms } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { outputOf } from '../support/process-output.js';
import { lineMatching } from '../support/rdp-user.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = path.join(ROOT, 'docs/cli.md');

/**
 * docs/cli.md's newcomer path, run as written: the test is the server `npm start` would be (the
 * worker in the process, the stores in a data directory the admin commands share) and the person
 * at the browser; `npx rdp` runs the command line from this tree. Only the address of the embedded
 * default is replaced by the test server's.
 */
describe('docs/cli.md: from zero to a processed point cloud', () => {
  let t: TestPlatform;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-newcomer-'));

  beforeAll(async () => {
    t = await startPlatform({}, { worker: true });
    // `npx rdp` as a newcomer's checkout runs it, from today's source instead of a build.
    fs.mkdirSync(path.join(home, 'bin'));
    fs.writeFileSync(
      path.join(home, 'bin', 'npx'),
      `#!/bin/sh\n[ "$1" = rdp ] || { echo "unexpected npx $1" >&2; exit 127; }\nshift\nexec "${process.execPath}" --import tsx "${ROOT}/src/cli/rdp.ts" "$@"\n`,
      { mode: 0o755 },
    );
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('runs from npm start to the viewer address of the processed scan', async () => {
    const blocks = shellBlocksOfSection(PAGE, '## From zero to a processed point cloud');
    expect(blocks[0]).toBe('npm start\n');
    const commands = blocks.slice(1).map((block) => block.replaceAll('http://127.0.0.1:8080', t.origin));
    const { config } = t.platform;
    const child = spawn('bash', ['-c', `set -euo pipefail\n${commands.join('\n')}`], {
      cwd: ROOT,
      env: {
        PATH: `${path.join(home, 'bin')}:${process.env.PATH ?? ''}`,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, 'config'),
        RDP_NO_BROWSER: '1',
        RDP_LOG_LEVEL: 'silent',
        RDP_DATA_DIR: config.dataDir,
        RDP_PUBLIC_URL: t.origin,
        ...(config.databaseUrl
          ? { RDP_DATABASE_URL: config.databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: config.databaseSchemaPrefix }
          : {}),
      },
    });
    const done = outputOf(child);

    // The person at the browser: signs in as the administrator the page made, and allows.
    const [, address] = await lineMatching(child.stderr as Readable, /Sign in .*: (\S+)/, 120_000);
    const user = await t.platform.directory.findUserByEmail('ada@example.com');
    const [org] = await t.platform.directory.organizationsOf(user?.id as string);
    const redirect = await authorizeWithForms(
      t,
      address as string,
      { email: 'ada@example.com', password: 'correct horse battery' },
      {
        allow: true,
        orgId: org?.id,
      },
    );
    await fetch(redirect);

    const run = await done;
    expect(run.code, run.stderr).toBe(0);
    const printed = run.stdout.trimEnd().split('\n');
    expect(printed).toContainEqual(expect.stringMatching(/^succeeded: derivative [0-9a-f-]{36}; see it with: rdp open /));
    const viewer = printed.at(-1) as string;
    expect(viewer).toMatch(new RegExp(`^${t.origin}/viewer/embed/[0-9a-f-]{36}#token=rdpe_`));
    const page = await fetch(viewer);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);

    // The scan is processed and is the layer of its site's twin, which the viewer shows.
    const [, bundleId] = /rdp open (\S+)/.exec(printed.find((line) => line.startsWith('succeeded:')) as string) ?? [];
    const bundle = await t.platform.regions.eu.nodes.findById(bundleId as string);
    expect(bundle).toMatchObject({ kind: 'dataBundle', name: 'sample-scan.laz' });
    const links = await t.platform.regions.eu.store.db
      .selectFrom('node_links')
      .selectAll()
      .where('from_id', '=', bundleId as string)
      .where('kind', '=', 'twin')
      .execute();
    expect(links).toHaveLength(1);
  }, 240_000);
});
