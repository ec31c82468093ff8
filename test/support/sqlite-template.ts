// SQLite runs: the stores are migrated once per run into a template directory (test/global-setup.ts),
// and each test platform starts from copies of those files instead of migrating its own (docs/ci.md).
import fs from 'node:fs';
import path from 'node:path';
import { openStores } from '../../src/adapters/db/database.js';
import { loadConfig } from '../../src/config/config.js';
import { REGIONS } from '../../src/domain/regions.js';

/** Where the global setup tells the test files the run's template directory (the forks inherit it). */
export const SQLITE_TEMPLATE_ENV = 'RDP_TEST_SQLITE_TEMPLATE';

const STORE_FILES = ['global', ...REGIONS.map((region) => `region_${region}`)].map((name) => `${name}.sqlite`);

/** Every store migrated and closed: only what the migrations write (no server secrets or keys). */
export async function createSqliteTemplate(under: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(under, 'sqlite-template-'));
  const stores = await openStores(loadConfig({ RDP_DATA_DIR: dir, RDP_LOG_LEVEL: 'silent' }));
  await stores.close();
  return dir;
}

/** Copies the migrated stores into a new platform's data directory (closed files: WAL checkpointed). */
export function copySqliteTemplate(template: string, dataDir: string): void {
  for (const file of STORE_FILES) {
    for (const suffix of ['', '-wal']) {
      const from = path.join(template, file + suffix);
      if (suffix === '' || fs.existsSync(from)) fs.copyFileSync(from, path.join(dataDir, file + suffix));
    }
  }
}
