import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-plugins-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function pluginsFile(content: unknown): string {
  const file = path.join(dir, `plugins-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const MEASURE = {
  id: 'b3f4c6d2-measure',
  key: 'measure',
  name: 'Measure',
  description: 'Distances and areas on the cloud',
  version: '1.4.0',
  enabled: true,
  entryUrl: 'https://plugins.example.com/measure/1.4.0/index.js',
};
const CLASH = { key: 'clash-check', name: 'Clash check', version: '0.2.0', enabled: false, entryUrl: '/static/plugins/clash.js' };

describe('GET /v1/plugins with RDP_PLUGINS_FILE', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform({ RDP_PLUGINS_FILE: pluginsFile([MEASURE, CLASH]) });
    org = await createOrg(t);
  });
  afterAll(() => t?.close());

  it('lists the configured plugins in file order, defaults filled in (id: the key, description empty), to any caller with read:basic', async () => {
    const reader = await org.serviceClient({ scopes: 'read:basic' });
    const listed = await reader.client.get('/v1/plugins');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toEqual({ items: [MEASURE, { ...CLASH, id: 'clash-check', description: '' }] });
  });

  it('401 without a token, 403 without read:basic', async () => {
    expect((await org.admin.withToken(undefined).get('/v1/plugins')).status).toBe(401);
    const noBasic = await org.serviceClient({ scopes: 'read:hierarchy' });
    const refused = await noBasic.client.get('/v1/plugins');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Insufficient OAuth scopes');
  });
});

describe('GET /v1/plugins without RDP_PLUGINS_FILE', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await startPlatform();
    org = await createOrg(t);
  });
  afterAll(() => t?.close());

  it('answers an empty list', async () => {
    const listed = await org.admin.get('/v1/plugins');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ items: [] });
  });
});

describe('a bad RDP_PLUGINS_FILE is refused at start, naming the problem', () => {
  const cases: [string, unknown, RegExp][] = [
    ['missing file', null, /cannot be read: ENOENT/],
    ['not JSON', '[{"key": "a",', /is not valid JSON/],
    ['not an array', { plugins: [] }, /must hold a JSON array of plugins/],
    ['not an object', ['measure'], /\[0\] must be an object/],
    ['no name', [{ ...MEASURE, name: undefined }], /\[0\]\.name must be a string of 1 to 255 characters/],
    ['empty version', [{ ...MEASURE, version: '' }], /\[0\]\.version must be a string/],
    ['bad key', [{ ...MEASURE, key: 'Measure Tool' }], /\[0\]\.key must be lower-case letters/],
    ['enabled not boolean', [{ ...MEASURE, enabled: 'yes' }], /\[0\]\.enabled must be true or false/],
    [
      'plain http',
      [{ ...MEASURE, entryUrl: 'http://plugins.example.com/a.js' }],
      /\[0\]\.entryUrl must be an https:\/\/ address/,
    ],
    ['protocol-relative', [{ ...MEASURE, entryUrl: '//cdn.example.com/a.js' }], /\[0\]\.entryUrl must be/],
    ['javascript', [{ ...MEASURE, entryUrl: 'javascript:alert(1)' }], /\[0\]\.entryUrl must be/],
    ['unknown field', [{ ...MEASURE, entry: 'x' }], /\[0\]\.entry is not a plugin field/],
    ['duplicate key', [MEASURE, { ...CLASH, key: 'measure' }], /\[1\]\.key "measure" is given to two plugins/],
    ['duplicate id', [MEASURE, { ...CLASH, id: MEASURE.id }], /\[1\]\.id ".*" is given to two plugins/],
  ];
  for (const [what, content, message] of cases) {
    it(`${what}`, () => {
      const file = content === null ? path.join(dir, 'absent.json') : pluginsFile(content);
      let thrown: unknown;
      try {
        loadConfig({ RDP_PLUGINS_FILE: file });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toContain(`RDP_PLUGINS_FILE (${file}): `);
      expect((thrown as Error).message).toMatch(message);
    });
  }

  it('takes http on localhost and 127.0.0.1 (development)', () => {
    const file = pluginsFile([
      { ...MEASURE, entryUrl: 'http://localhost:5173/measure.js' },
      { ...CLASH, entryUrl: 'http://127.0.0.1:5173/clash.js' },
    ]);
    expect(loadConfig({ RDP_PLUGINS_FILE: file }).plugins.map((plugin) => plugin.entryUrl)).toEqual([
      'http://localhost:5173/measure.js',
      'http://127.0.0.1:5173/clash.js',
    ]);
  });

  it('the platform does not start on one', async () => {
    await expect(startPlatform({ RDP_PLUGINS_FILE: pluginsFile([{ ...MEASURE, version: 7 }]) })).rejects.toThrow(
      /RDP_PLUGINS_FILE \(.*\): \[0\]\.version must be a string/,
    );
  });
});
