import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { outputOf, type ProcessOutput } from '../support/process-output.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const databaseUrl = process.env.RDP_TEST_DATABASE_URL;

/** The command line with nothing but PATH, a home of its own, and what the case adds. */
function rdp(args: string[], env: Record<string, string> = {}): Promise<ProcessOutput> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-usage-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/rdp.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, RDP_LOG_LEVEL: 'silent', ...env },
  });
  return outputOf(child).finally(() => fs.rmSync(home, { recursive: true, force: true }));
}

const SUBCOMMANDS = [
  ['login'],
  ['logout'],
  ['whoami'],
  ['ls'],
  ['places'],
  ['mkdir'],
  ['upload'],
  ['process'],
  ['watch'],
  ['open'],
  ['admin'],
  ['admin', 'org', 'create'],
  ['admin', 'app', 'create'],
  ['admin', 'trash', 'purge'],
];

describe('rdp: help, version, suggestions and exit statuses', () => {
  it('--version prints the package version and exits 0', async () => {
    const run = await rdp(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('the top-level help lists every command group', async () => {
    const run = await rdp(['--help']);
    expect(run.code).toBe(0);
    for (const name of ['login', 'logout', 'whoami', 'ls', 'places', 'mkdir', 'upload', 'process', 'watch', 'open', 'admin']) {
      expect(run.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  it('every subcommand has its help: usage line, description, options, exit 0', async () => {
    const runs = await Promise.all(SUBCOMMANDS.map((words) => rdp([...words, '--help'])));
    runs.forEach((run, i) => {
      const words = (SUBCOMMANDS[i] as string[]).join(' ');
      expect(run.code, words).toBe(0);
      expect(run.stdout, words).toMatch(new RegExp(`^Usage: rdp ${words} `));
      expect(run.stdout.split('\n')[2], words).not.toBe('');
      expect(run.stdout, words).toMatch(/-h, --help/);
    });
    // Flags are described where they belong.
    expect(runs[SUBCOMMANDS.findIndex((w) => w.join(' ') === 'upload')]?.stdout).toMatch(/--to <node>/);
    expect(runs[SUBCOMMANDS.findIndex((w) => w.join(' ') === 'process')]?.stdout).toMatch(/-y, --yes/);
  });

  it('a mistyped subcommand gets a suggestion and exit 2', async () => {
    const run = await rdp(['uplaod', 'x.laz']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^rdp: unknown command 'uplaod'\n\(Did you mean upload\?\)/);
    expect(run.stdout).toBe('');
    const nested = await rdp(['admin', 'org', 'craete']);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toMatch(/\(Did you mean create\?\)/);
  });

  it('a mistyped flag gets a suggestion and exit 2', async () => {
    const run = await rdp(['ls', '--jsno']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^rdp: unknown option '--jsno'\n\(Did you mean --json\?\)/);
    const admin = await rdp(['admin', 'org', 'create', '--nmae', 'Acme', '--region', 'eu']);
    expect(admin.code).toBe(2);
    expect(admin.stderr).toMatch(/\(Did you mean --name\?\)/);
  });

  it('no command at all shows the help on stderr and exits 2', async () => {
    const run = await rdp([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Usage: rdp /);
  });

  it('a command that needs a sign-in refuses with exit 1 and says how to sign in', async () => {
    const run = await rdp(['ls']);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe('rdp: not signed in: run rdp login first\n');
  });
});

describe('rdp admin refuses to create a store where the server keeps none', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-nostore-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('on SQLite: names the file it looked for and how to fix it; creates nothing', async () => {
    const where = path.join(dataDir, 'data');
    const run = await rdp(['admin', 'org', 'create', '--name', 'Acme', '--region', 'eu', '--json'], { RDP_DATA_DIR: where });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`rdp: no store found: looked for the SQLite file ${path.join(where, 'global.sqlite')}`);
    expect(run.stderr).toMatch(/Start the server first \(npm start\), or run rdp with the same RDP_DATA_DIR or RDP_DATABASE_URL/);
    expect(fs.existsSync(where)).toBe(false);
  });

  it.runIf(databaseUrl)('on PostgreSQL: names the schema it looked for; creates no schema', async () => {
    const prefix = `t_${randomBytes(5).toString('hex')}`;
    const run = await rdp(['admin', 'trash', 'purge'], {
      RDP_DATABASE_URL: databaseUrl as string,
      RDP_DATABASE_SCHEMA_PREFIX: prefix,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^rdp: no store found: looked for the PostgreSQL schema ${prefix}_global at RDP_DATABASE_URL=`),
    );
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const schemas = await client.query('SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE $1', [
        `${prefix}%`,
      ]);
      expect(schemas.rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
