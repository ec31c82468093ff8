import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestPlatform } from './platform.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `rdp admin … --json` as a process of its own on the platform's stores; returns its JSON. */
export async function rdpAdmin(t: TestPlatform, ...args: string[]): Promise<any> {
  const { config } = t.platform;
  const env = {
    ...process.env,
    RDP_DATA_DIR: config.dataDir,
    RDP_LOG_LEVEL: 'silent',
    ...(config.databaseUrl
      ? { RDP_DATABASE_URL: config.databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: config.databaseSchemaPrefix }
      : {}),
  };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'src/cli/rdp.ts', 'admin', ...args, '--json'],
    {
      cwd: ROOT,
      env,
    },
  );
  return JSON.parse(stdout);
}
