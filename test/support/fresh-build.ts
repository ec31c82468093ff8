import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * One compile per test process: the forks run file after file (vitest.config.ts), so the files
 * that need a build share it, and each gets its own copy of the output. Sources do not change
 * during a run, so the copy is today's code as a build of its own would be.
 */
let compiled: Promise<string> | undefined;

/** The run's own directory (test/global-setup.ts), removed at the run's end. */
export const RUN_DIR_ENV = 'RDP_TEST_RUN_DIR';

function compileOnce(): Promise<string> {
  compiled ??= (async () => {
    const runDir = process.env[RUN_DIR_ENV];
    const dir = fs.mkdtempSync(path.join(runDir ?? os.tmpdir(), 'rdp-build-'));
    // Outside a vitest run (no run directory), removed when the process exits.
    if (!runDir) process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const build = ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', path.join(dir, 'dist'), '--sourceMap', 'false'];
    await promisify(execFile)(process.execPath, [tsc, ...build], { cwd: ROOT });
    return dir;
  })().catch((error) => {
    compiled = undefined;
    throw error;
  });
  return compiled;
}

/**
 * Compiles the server into `dir`/dist as `npm start` runs it, beside a package.json and the
 * project's node_modules: a test that spawns `node dist/main.js` runs today's code, not whatever
 * dist/ an earlier build left in the tree.
 */
export async function buildServerInto(dir: string): Promise<void> {
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  fs.cpSync(path.join(await compileOnce(), 'dist'), path.join(dir, 'dist'), { recursive: true });
}
