import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { addAdminCommands } from '../../src/cli/admin-commands.js';
import { expectedPrints, runShellBlocks, shellBlocksOfSection } from '../support/doc-commands.js';
import { buildServerInto } from '../support/fresh-build.js';
import { freePort } from '../support/ports.js';
import { type ServerProcess, startServer } from '../support/server-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = path.join(ROOT, 'README.md');
const databaseUrl = process.env.RDP_TEST_DATABASE_URL;
/** What the project's build, if npx ran it, leaves in the project folder. */
const REBUILT = 'rebuilt-by-npx';

/** The sections a newcomer pastes one after the other into one terminal. */
const SECTIONS = [
  '## First call',
  '## Upload and process a point cloud',
  '## People and permissions',
  '## In the browser: the console',
];

/** A `# prints:` line matches what was printed; `…` in it stands for any text (ids, tokens). */
function matches(printed: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+');
  return new RegExp(`^${pattern}$`).test(printed);
}

/**
 * The README's first call, upload-and-process and people sections, run as written in bash against
 * a server run as `npm start` runs it (compiled, `node dist/main.js`, the worker included), from
 * a project folder where `npx rdp` is the project's own command line and ./data the server's store.
 * Only the address of the embedded default is replaced by the test server's.
 */
describe("the README's newcomer path, run as written", () => {
  const projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-readme-'));
  const schemaPrefix = `t_${randomBytes(5).toString('hex')}`;
  const storeEnv: Record<string, string> = databaseUrl
    ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix }
    : {};
  let server: ServerProcess;

  beforeAll(async () => {
    await buildServerInto(projectDir);
    // The project's package.json as npx reads it: `npx rdp` runs its bin, and npm runs the
    // project's `prepare` (scripts/prepare.mjs) on every `npx rdp`. Its build is one that leaves a
    // mark here: the README's commands must start at once on the build `npm ci` made, never build
    // again (the test below finds no mark). The README's commands get a project without src/, so
    // the rest of the manifest stays out.
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    fs.writeFileSync(
      path.join(projectDir, 'package.json'),
      JSON.stringify({
        name: manifest.name,
        version: manifest.version,
        type: 'module',
        bin: manifest.bin,
        scripts: { prepare: manifest.scripts.prepare, build: `node -e "require('fs').appendFileSync('${REBUILT}', 'x')"` },
      }),
    );
    fs.cpSync(path.join(ROOT, 'scripts', 'prepare.mjs'), path.join(projectDir, 'scripts', 'prepare.mjs'));
    for (const bin of Object.values(manifest.bin as Record<string, string>)) fs.chmodSync(path.join(projectDir, bin), 0o755);
    fs.symlinkSync(path.join(ROOT, 'examples'), path.join(projectDir, 'examples'), 'dir');
    server = await startServer(await freePort(), { RDP_LOG_LEVEL: 'warn', ...storeEnv }, 60_000, {
      cwd: projectDir,
      args: ['dist/main.js'],
    });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix);
    fs.rmSync(projectDir, { recursive: true, force: true });
  });

  it('goes from an empty store to a processed point cloud in the viewer, then people, printing what it says', async () => {
    const blocks = SECTIONS.flatMap((heading) => shellBlocksOfSection(README, heading)).map((block) =>
      block.replaceAll('http://127.0.0.1:8080', server.origin),
    );
    expect(blocks.join('\n')).not.toMatch(/<[a-zA-Z][\w ]*>/); // no <placeholder> left for the reader to fill in
    // The README's first npx command is `npx rdp`, the one that built the project again before.
    expect(blocks[0]?.match(/^[^#\n]*\b(npx [a-z]+)/m)?.[1]).toBe('npx rdp');
    const run = await runShellBlocks(blocks, storeEnv, projectDir);
    // No `npx rdp` built the project again (scripts/prepare.mjs): each started on the existing build.
    expect(fs.existsSync(path.join(projectDir, REBUILT)), 'an `npx rdp` ran the build').toBe(false);
    // npm may warn about the machine's own configuration; anything else on stderr is a failure.
    const stderr = run.stderr
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('npm warn'))
      .join('\n');
    expect(stderr, run.stdout).toBe('');
    expect(run.code, `${run.stdout}\n${server.output()}`).toBe(0);
    const printed = run.stdout.trimEnd().split('\n');
    const expected = expectedPrints(blocks);
    expect(printed).toHaveLength(expected.length);
    for (const [index, line] of printed.entries()) {
      expect(matches(line, expected[index] ?? ''), `${line} ≠ ${expected[index]}`).toBe(true);
    }

    // The viewer's address it printed opens the viewer's page.
    const viewer = await fetch(printed.find((line) => line.includes('/viewer/embed/')) ?? '');
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get('content-type')).toMatch(/^text\/html/);
    await viewer.arrayBuffer();
    // The invitation's mail is in the outbox, as the people section says.
    expect(await (await fetch(`${server.origin}/auth/outbox`)).text()).toContain('ada@example.com');
    // The console's address answers its page (test/console/ signs people in to it in chromium).
    const consolePage = await fetch(`${server.origin}/console`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain('id="rdp-console-config"');
  }, 180_000);
});

describe("the README's table of admin commands", () => {
  it('lists every command of the command line', () => {
    // Read from the command line's own definition: every leaf under `rdp admin`.
    const program = new Command('rdp');
    addAdminCommands(program);
    const admin = program.commands.find((command) => command.name() === 'admin');
    const commands = (admin?.commands ?? []).flatMap((group) => group.commands.map((leaf) => `${group.name()} ${leaf.name()}`));
    expect(commands.length, 'no admin commands found in src/cli/admin-commands.ts').toBeGreaterThan(10);
    const readme = fs.readFileSync(README, 'utf8');
    for (const command of commands) expect(readme, command).toContain(`| \`rdp admin ${command}`);
  });
});
