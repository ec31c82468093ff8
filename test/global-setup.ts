// Once per vitest run, before the test files (vitest.config.ts globalSetup): the migrated stores
// each test platform starts from (test/support/pg-template.ts, test/support/sqlite-template.ts),
// and a directory of the run's own, removed at its end (the forks are stopped without an 'exit').
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RUN_DIR_ENV } from './support/fresh-build.js';
import { createTemplateDatabase, dropDatabase, TEMPLATE_ENV } from './support/pg-template.js';
import { createSqliteTemplate, SQLITE_TEMPLATE_ENV } from './support/sqlite-template.js';

export default async function setup(): Promise<() => Promise<void>> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-run-'));
  process.env[RUN_DIR_ENV] = runDir;
  const baseUrl = process.env.RDP_TEST_DATABASE_URL;
  const template = baseUrl ? await createTemplateDatabase(baseUrl) : undefined;
  if (template) process.env[TEMPLATE_ENV] = template;
  else process.env[SQLITE_TEMPLATE_ENV] = await createSqliteTemplate(runDir);
  return async () => {
    if (baseUrl && template) await dropDatabase(baseUrl, template);
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}
