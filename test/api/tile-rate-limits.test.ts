import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { type ApiResponse, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { createSite } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';

const TILE_BUCKET = 4;
const TILES_REFUSED = {
  statusCode: 429,
  error: 'rate_limited',
  message: "The organization's tile budget is spent; retry after Retry-After seconds",
};

const remaining = (response: ApiResponse) => Number(response.headers.get('ratelimit-remaining'));

/**
 * Tile reads (a derivative's or a comparison's tileset and its files) spend a bucket of their own
 * per organization, apart from its API bucket (docs/operations.md#rate-limits): a viewer
 * streaming a twin and the organization's integrations do not starve each other.
 */
describe("tile reads: the organization's tile bucket, apart from its API bucket", () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tileset: string;

  beforeAll(async () => {
    // A token a second, the slowest refill: a loaded machine's slow requests seldom refill the bucket between them.
    t = await startPlatform(
      { RDP_TILE_RATE_LIMIT_BUCKET: String(TILE_BUCKET), RDP_TILE_RATE_LIMIT_REFILL_PER_SECOND: '1' },
      { worker: true },
    );
    org = await createOrg(t);
    const siteId = await createSite(org);
    const folder = await createNode(org, siteId, 'folder', 'Scans');
    const bytes = await sampleBytes((file) => writeLas(file, 500));
    const { derivativeId } = await processedPointCloud(org, folder, { name: 'scan.las', bytes });
    tileset = `/v1/nodes/${derivativeId}/tiles/tileset.json`;
  }, 120_000);
  afterAll(() => t?.close());

  it("refuses tile reads past the organization's tile bucket with 429 and Retry-After, a tileset's files included", async () => {
    const first = await org.admin.get(tileset);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe(String(TILE_BUCKET));
    expect(remaining(first)).toBe(TILE_BUCKET - 1);

    const tiles = await Promise.all(Array.from({ length: TILE_BUCKET + 2 }, () => org.admin.get(tileset)));
    const refused = tiles.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.body).toEqual(TILES_REFUSED);
    expect(refused[0]?.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(refused[0]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused[0]?.headers.get('ratelimit-limit')).toBe(String(TILE_BUCKET));
    const file = await org.admin.get(tileset.replace('tileset.json', 'tiles/r.glb'));
    expect(file.status).toBe(429);
    expect(file.body).toEqual(TILES_REFUSED);
  });

  // Fresh organizations from here: an organization's API limits are read once and kept a few seconds.
  it('spends nothing of the API bucket on tile reads', async () => {
    const viewer = await createOrg(t);
    await t.admin.setOrganizationRateLimit(viewer.orgId, { bucket: 50, refillPerSecond: 1 });
    // No such derivative: the tile bucket is taken before the read (404 until it is spent, then 429).
    const tiles = await Promise.all(
      Array.from({ length: TILE_BUCKET + 2 }, () => viewer.admin.get(`/v1/nodes/${viewer.orgId}/tiles/tileset.json`)),
    );
    expect(tiles.map((response) => response.status)).toContain(429);
    expect(tiles.map((response) => response.status)).toContain(404);
    const read = await viewer.admin.get(`/v1/nodes/${viewer.orgId}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-limit')).toBe('50');
    expect(remaining(read)).toBe(49);
  });

  it('serves tile reads while the API bucket is spent', async () => {
    const busy = await createOrg(t);
    await t.admin.setOrganizationRateLimit(busy.orgId, { bucket: 2, refillPerSecond: 1 });
    const api = await Promise.all([1, 2, 3, 4].map(() => busy.admin.get(`/v1/nodes/${busy.orgId}`)));
    expect(api.map((response) => response.status)).toContain(429);
    const tile = await busy.admin.get(`/v1/nodes/${busy.orgId}/tiles/tileset.json`);
    expect(tile.status).toBe(404);
    expect(tile.headers.get('ratelimit-limit')).toBe(String(TILE_BUCKET));
    expect(remaining(tile)).toBe(TILE_BUCKET - 1);
  });

  it('refuses tile bucket settings that are not whole numbers from 1 at start-up', () => {
    expect(() => loadConfig({ RDP_TILE_RATE_LIMIT_BUCKET: '0' })).toThrow(
      'RDP_TILE_RATE_LIMIT_BUCKET must be an integer from 1 to 1000000000, got "0"',
    );
    expect(() => loadConfig({ RDP_TILE_RATE_LIMIT_REFILL_PER_SECOND: '2.5' })).toThrow(
      'RDP_TILE_RATE_LIMIT_REFILL_PER_SECOND must be an integer from 1 to 1000000000, got "2.5"',
    );
  });
});
