#!/usr/bin/env node
// npm on Linux leaves other platforms' optional packages (biome, rollup, esbuild binaries) out
// of package-lock.json, and `npm ci` then refuses the lock as out of sync (npm/cli#4828).
// This adds the missing entries from the registry's metadata, as npm writes them elsewhere;
// where the registry in use does not serve a platform's package at all, the platform is read
// from the package's name (npm never fetches a package whose os/cpu do not match).
// Run after any change to dependencies: `npm install && node scripts/complete-lockfile.mjs`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const OSES = ['aix', 'android', 'darwin', 'freebsd', 'linux', 'netbsd', 'openbsd', 'openharmony', 'sunos', 'win32'];
const CPUS = ['arm64', 'arm', 'ia32', 'loong64', 'mips64el', 'ppc64', 'riscv64', 's390x', 'x64', 'wasm32'];

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;

for (const [location, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const hoisted = `node_modules/${name}`;
    const nested = `${location}/node_modules/${name}`;
    if (packages[hoisted] || packages[nested]) continue;
    const info = registryInfo(name, range) ?? platformFromName(name, range);
    const record = { version: info.version };
    if (info['dist.integrity']) record.integrity = info['dist.integrity'];
    for (const key of ['cpu', 'dev', 'libc', 'license', 'optional', 'os', 'engines']) {
      if (key === 'dev') {
        if (entry.dev) record.dev = true;
      } else if (key === 'optional') record.optional = true;
      else if (info[key] !== undefined) record[key] = info[key];
    }
    packages[hoisted] = record;
    added += 1;
  }
}

function registryInfo(name, range) {
  try {
    const fields = ['version', 'dist.integrity', 'os', 'cpu', 'libc', 'license', 'engines'];
    const meta = JSON.parse(
      execFileSync('npm', ['view', `${name}@${range}`, '--json', ...fields], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    return Array.isArray(meta) ? meta[meta.length - 1] : meta;
  } catch {
    return undefined;
  }
}

function platformFromName(name, range) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OSES.includes(part));
  const cpu = parts.find((part) => CPUS.includes(part));
  if (!os || !cpu || !/^\d+\.\d+\.\d+/.test(range)) throw new Error(`cannot tell the platform of ${name}@${range}`);
  const info = { version: range, os: [os], cpu: [cpu] };
  if (os === 'linux') info.libc = [parts.some((part) => part.startsWith('musl')) ? 'musl' : 'glibc'];
  return info;
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} optional platform packages added`);
