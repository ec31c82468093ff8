import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestPlatform } from './platform.js';
import { outputOf, type ProcessOutput } from './process-output.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs the command line from source as a process of its own, with only the environment of the
 * platform's stores and its public address: what a deployment's admin would have.
 */
export function runRdp(t: TestPlatform, args: string[], extraEnv: Record<string, string> = {}): Promise<ProcessOutput> {
  const { config } = t.platform;
  const env = {
    PATH: process.env.PATH ?? '',
    RDP_DATA_DIR: config.dataDir,
    RDP_LOG_LEVEL: 'silent',
    RDP_PUBLIC_URL: t.origin,
    ...(config.databaseUrl
      ? { RDP_DATABASE_URL: config.databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: config.databaseSchemaPrefix }
      : {}),
    ...extraEnv,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/rdp.ts', ...args], { cwd: ROOT, env });
  return outputOf(child);
}

/** `rdp admin … --json` that must succeed; returns its JSON. */
export async function rdpAdmin(t: TestPlatform, ...args: string[]): Promise<any> {
  const run = await runRdp(t, ['admin', ...args, '--json']);
  if (run.code !== 0) throw new Error(`rdp admin ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
