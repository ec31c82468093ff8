import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GENERATED = path.join(ROOT, 'packages/sdk/src/generated/openapi.ts');

describe('the SDK types generated from openapi.json', () => {
  it('are what openapi-typescript makes of the committed document (run `npm run sdk:types` when this fails)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-sdk-types-'));
    try {
      const fresh = path.join(dir, 'openapi.ts');
      execFileSync(
        process.execPath,
        [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), path.join(ROOT, 'openapi/openapi.json'), '-o', fresh],
        { stdio: 'pipe' },
      );
      expect(fs.readFileSync(GENERATED, 'utf8') === fs.readFileSync(fresh, 'utf8')).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
