// `prepare`: what `npm ci` runs once it has installed the dependencies, the whole build.
//
// `npx rdp` in the project runs the project's own bin: npm links the project into npx's cache
// and runs that link's `prepare` again, on every `npx rdp` (npm_command is then `exec`): a second
// whole build of a project `npm ci` has just built, half a minute of CPU before each command.
// There, an existing build is used as it is (README.md: after changing the sources,
// `npm run build`); only a project never built is built.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const built = fs.existsSync(new URL('../dist/cli/rdp.js', import.meta.url));
if (process.env.npm_command === 'exec' && built) process.exit(0);

const npm = process.env.npm_execpath;
const build = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(build.status ?? 1);
