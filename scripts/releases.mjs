// The tagged releases (CHANGELOG.md) and how an earlier one is made ready to run beside the
// current code: its sources at the release's commit, its own dependencies (npm ci of its lock
// file) and its build, in a folder kept for the next run. The upgrade test starts them on fresh
// data and then starts the current code on that data (docs/operations.md, "Upgrades").
// `node scripts/releases.mjs` prepares the releases the tests start from (CI does it once, before both stores' runs).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every release before the current code, oldest first: its tag and the commit the tag names. */
export const EARLIER_RELEASES = [
  { tag: 'v0.1.0', commit: 'f8510a51e53e9ff9c77747c9955cd6e44b6894c5' },
  { tag: 'v0.2.0', commit: 'e4dfec4c042ee442a62c100b77133ec1a1671aa5' },
  { tag: 'v0.3.0', commit: '5a4c6793d28557ea874437a52c22dacad32b919d' },
];

/**
 * The releases the upgrade tests start from: the oldest and the latest (docs/upgrades.md). The
 * ones between were each tested while they were the latest.
 */
export const TESTED_RELEASES = [...new Set([EARLIER_RELEASES[0], EARLIER_RELEASES[EARLIER_RELEASES.length - 1]])];

/** Where prepared releases are kept: RDP_RELEASES_DIR, else a folder under the system's temporary one. */
export function releasesDir() {
  return process.env.RDP_RELEASES_DIR || path.join(os.tmpdir(), 'rdp-releases');
}

function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code} in ${cwd}:\n${output.slice(-4000)}`)),
    );
  });
}

const versionOf = (dir) => JSON.parse(readFileSync(path.join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')).version;

async function nativeSqlite(dir) {
  const built = path.join(root, 'node_modules/better-sqlite3/build');
  if (existsSync(built) && versionOf(root) === versionOf(dir)) {
    await cp(built, path.join(dir, 'node_modules/better-sqlite3/build'), { recursive: true });
  } else {
    await run('npm', ['rebuild', 'better-sqlite3'], dir);
  }
}

/**
 * The folder of `release`, ready to run (`node dist/main.js`, `node dist/cli/rdp.js`): made once
 * (sources from git, `npm ci`, its build), then found again. A half-made folder is never
 * taken: the work is done beside it and renamed into place at the end.
 */
export async function prepareRelease(release) {
  const dir = path.join(releasesDir(), `${release.tag}-${release.commit.slice(0, 12)}`);
  if (existsSync(path.join(dir, '.prepared'))) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    const { stdout } = await promisify(execFile)('git', ['rev-parse', '--verify', `${release.commit}^{commit}`], { cwd: root });
    if (!stdout.trim()) throw new Error(`commit ${release.commit} of ${release.tag} is not in this clone's history`);
    await run('sh', ['-c', `git archive ${stdout.trim()} | tar -x -C "${partial}"`], root);
    // Its own locked dependencies, without their install scripts: the one that matters,
    // better-sqlite3's native build, is taken from this checkout when the versions are the same
    // (compiling SQLite again costs a minute or two), else rebuilt.
    await run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], partial);
    await nativeSqlite(partial);
    await run('npm', ['run', 'build'], partial);
    await writeFile(path.join(partial, '.prepared'), `${release.tag} ${stdout.trim()}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
    return dir;
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const release of TESTED_RELEASES) {
    const started = Date.now();
    const dir = await prepareRelease(release);
    console.log(`${release.tag} ready in ${dir} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}
