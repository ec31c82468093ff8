// Once per vitest run, before the test files (vitest.config.ts globalSetup): the migrated stores
// each test platform starts from (test/support/pg-template.ts, test/support/sqlite-template.ts).
import fs from 'node:fs';
import { createTemplateDatabase, dropDatabase, TEMPLATE_ENV } from './support/pg-template.js';
import { createSqliteTemplate, SQLITE_TEMPLATE_ENV } from './support/sqlite-template.js';

export default async function setup(): Promise<() => Promise<void>> {
  const baseUrl = process.env.RDP_TEST_DATABASE_URL;
  if (baseUrl) {
    const template = await createTemplateDatabase(baseUrl);
    process.env[TEMPLATE_ENV] = template;
    return async () => {
      await dropDatabase(baseUrl, template);
    };
  }
  const template = await createSqliteTemplate();
  process.env[SQLITE_TEMPLATE_ENV] = template;
  return async () => {
    fs.rmSync(template, { recursive: true, force: true });
  };
}
