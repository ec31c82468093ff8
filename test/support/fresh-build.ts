import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Compiles the server into `dir`/dist as `npm start` runs it, beside a package.json and the
 * project's node_modules: a test that spawns `node dist/main.js` runs today's code, not whatever
 * dist/ an earlier build left in the tree.
 */
export async function buildServerInto(dir: string): Promise<void> {
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', path.join(dir, 'dist'), '--sourceMap', 'false'];
  await promisify(execFile)(process.execPath, [tsc, ...build], { cwd: ROOT });
}
