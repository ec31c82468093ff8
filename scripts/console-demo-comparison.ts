import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApiResponse, OrgFixture } from '../test/support/fixtures.js';
import { type PointSource, type SamplePoint, writeLas } from '../test/support/point-cloud-samples.js';
import { processedPointCloud } from '../test/support/processed-point-cloud.js';

/**
 * A pier deck of 40 x 16 m scanned twice on a 0.1 m grid, with a parapet 1.2 m high along its
 * far edge. In the later scan the deck has settled in a bowl (28 cm at its deepest), tilts by a
 * centimetre or two, the parapet leans out towards one end and a crate stands on the deck (beyond
 * the comparison's maximum distance): a heat map with every colour of the ramp.
 */
const ORIGIN = { x: 100, y: 200, z: 5 };
const [DECK_X, DECK_Y, PARAPET_Z] = [401, 161, 13];
const DECK = DECK_X * DECK_Y;
const PARAPET = DECK_X * PARAPET_Z;
const CRATE = 11 * 11;

function deckPoint(i: number, later: boolean): SamplePoint {
  const grey = { r: 150, g: 150, b: 150, intensity: 0 };
  if (i < DECK) {
    const [x, y] = [(i % DECK_X) * 0.1, Math.floor(i / DECK_X) * 0.1];
    const bowl = -0.28 * Math.exp(-((x - 27) ** 2 + (y - 7) ** 2) / (2 * 3.5 ** 2));
    const tilt = 0.0005 * x;
    return { x: ORIGIN.x + x, y: ORIGIN.y + y, z: ORIGIN.z + (later ? bowl + tilt : 0), ...grey };
  }
  if (i < DECK + PARAPET) {
    const j = i - DECK;
    const [x, z] = [(j % DECK_X) * 0.1, Math.floor(j / DECK_X) * 0.1];
    const lean = later ? 0.12 * (x / 40) * (z / 1.2) : 0;
    return { x: ORIGIN.x + x, y: ORIGIN.y + 16 + lean, z: ORIGIN.z + z, ...grey };
  }
  const k = i - DECK - PARAPET;
  return { x: ORIGIN.x + 8 + (k % 11) * 0.1, y: ORIGIN.y + 4 + Math.floor(k / 11) * 0.1, z: ORIGIN.z + 0.9, ...grey };
}

const source = (later: boolean): PointSource => ({ origin: ORIGIN, pointAt: (i) => deckPoint(i, later) });

async function ok(request: Promise<ApiResponse>, what: string): Promise<any> {
  const response = await request;
  if (response.status >= 300) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Both scans processed into the site, compared (C2C, 0.3 m, tolerance 2 cm) and shown as the twin's layer; the comparison's id once ready. */
export async function seedComparison(org: OrgFixture, siteId: string): Promise<string> {
  const api = org.admin;
  const dir = await mkdtemp(path.join(tmpdir(), 'rdp-demo-comparison-'));
  const bundles: string[] = [];
  try {
    for (const [file, later, name] of [
      ['deck-2025.las', false, 'Deck survey 2025'],
      ['deck-2026.las', true, 'Deck survey 2026'],
    ] as const) {
      const target = path.join(dir, file);
      await writeLas(target, DECK + PARAPET + (later ? CRATE : 0), '1.2', { source: source(later) });
      const { bundleId } = await processedPointCloud(org, siteId, { name: file, bytes: await readFile(target) });
      await ok(api.patch(`/v1/nodes/${bundleId}`, { name }), 'the bundle rename');
      bundles.push(bundleId);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const [referenceBundleId, comparedBundleId] = bundles as [string, string];
  const twin = `/v1/twin/${siteId}`;
  const { cost } = await ok(
    api.get(`${twin}/comparisons/cost?referenceBundleId=${referenceBundleId}&comparedBundleId=${comparedBundleId}`),
    'the comparison cost',
  );
  const started = await ok(
    api.post(`${twin}/comparisons`, {
      name: 'Deck settlement 2025 to 2026',
      referenceBundleId,
      comparedBundleId,
      method: 'c2c',
      maxDistance: 0.3,
      tolerance: 0.02,
      cost,
    }),
    'the comparison',
  );
  const since = Date.now();
  for (;;) {
    const comparison = await ok(api.get(`${twin}/comparisons/${started.id}`), 'the comparison');
    if (comparison.state === 'ready') break;
    if (comparison.state === 'failed') throw new Error(`the comparison failed: ${comparison.failureReason}`);
    if (Date.now() - since > 120_000) throw new Error('the comparison did not end within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await ok(api.request('PUT', `${twin}/layers/${started.id}`), 'the comparison layer');
  return started.id as string;
}
