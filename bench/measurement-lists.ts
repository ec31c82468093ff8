import { performance } from 'node:perf_hooks';
import { sql } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { openPlatform } from '../src/platform.js';
import { apiCaller, fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { pairedMedians, type Target } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { median } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';
import { insertMeasurements, insertNodes, insertPointsOfInterest, seedTwinOrganization, siteRows } from './support/twin-store.js';

/**
 * A page of 100 measurements against a page of 100 points of interest of the same twin, which
 * holds 10,000 of each (docs/design/measurements.md; issue 24's speed figure): through the live
 * twin, and through a draft of a few changes to each kind. Measurements' kinds in turn (distance,
 * height, angle, an area of 8 points, a polyline of 16), their values computed by the platform's
 * rule; the rows written straight in the store. Each round is the median of sequential requests
 * alternating between the two lists; the figure is the median of the rounds' ratios. SQLite, and
 * PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const OBJECTS = 10_000;
const PAGE = 100;
const ROUNDS = quick ? 3 : 5;
const REQUESTS = quick ? 60 : 150;
const TARGET = 1.5;

async function seed(store: StoreUnderTest) {
  const started = performance.now();
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const { client, root } = await seedTwinOrganization(platform);
    const { rows, site } = siteRows(root, 'Measured plant', PAGE, new Date().toISOString());
    await insertNodes(platform, rows);
    const points = await insertPointsOfInterest(platform, site, client.userId, OBJECTS);
    const measurements = await insertMeasurements(platform, site, client.userId, OBJECTS);
    // Fresh bulk-loaded tables have no statistics yet: settle them as in steady state.
    if (store.databaseUrl) await sql`VACUUM ANALYZE`.execute(platform.region('eu').store.db);
    log(
      `  ${store.label}: ${OBJECTS} points of interest and ${OBJECTS} measurements in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return {
      client,
      siteId: site.id,
      pointIds: points.map((row) => row.id),
      measurementIds: measurements.map((row) => row.id),
    };
  } finally {
    await platform.close();
  }
}

function row(measure: string, ratios: number[], detail: string): SummaryRow {
  const ratio = median(ratios);
  log(`  ${measure}: ${times(ratio)} (${detail}; rounds ${ratios.map(times).join(' ')}), target <= ${TARGET}x`);
  return { bench: 'measurement-lists', measure, ratio: times(ratio), target: `<= ${TARGET}x`, met: ratio <= TARGET };
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const seeded = await seed(store);
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...store.env });
  try {
    const api = `${server.origin}/eu/reality`;
    const token = await fetchToken(server.origin, seeded.client);
    const headers = { authorization: `Bearer ${token}` };
    const call = apiCaller(api, token);
    // A draft of the same few changes to each kind: two added, two of the first page renamed, one removed.
    const draft = await call('POST', `/v1/twin/${seeded.siteId}/drafts`, { name: 'A few changes' });
    const kinds = [
      {
        segment: 'points-of-interest',
        ids: seeded.pointIds,
        body: (name: string) => ({ name, position: { x: 1, y: 2, z: 3 } }),
      },
      {
        segment: 'measurements',
        ids: seeded.measurementIds,
        body: (name: string) => ({
          name,
          kind: 'distance',
          points: [
            { x: 1, y: 2, z: 3 },
            { x: 4, y: 6, z: 3 },
          ],
        }),
      },
    ];
    for (const { segment, ids, body } of kinds) {
      for (const name of ['New one', 'Another']) await call('POST', `/v1/twin/${draft.id}/${segment}`, body(name));
      for (const id of ids.slice(10, 12))
        await call('PATCH', `/v1/twin/${draft.id}/${segment}/${id}`, { name: `Renamed ${id.slice(0, 8)}` });
      await call('DELETE', `/v1/twin/${draft.id}/${segment}/${ids[20]}`);
    }

    const list = (context: string, segment: string): Target => ({
      url: `${api}/v1/twin/${context}/${segment}?limit=${PAGE}`,
      headers,
    });
    const rows: SummaryRow[] = [];
    for (const [label, context] of [
      ['live twin', seeded.siteId],
      ['draft (5 changes of each kind)', draft.id],
    ] as const) {
      const measurements = list(context, 'measurements');
      const points = list(context, 'points-of-interest');
      // Each side answers a full page, or the ratio compares different work.
      const bytes: number[] = [];
      for (const target of [measurements, points]) {
        const text = await (await fetch(target.url, { headers })).text();
        const page = JSON.parse(text) as unknown[];
        if (page.length !== PAGE) throw new Error(`${target.url} answered ${page.length} items, not ${PAGE}`);
        bytes.push(text.length);
      }
      const ratios: number[] = [];
      const latencies: [number, number][] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        // The order swapped every round, so a drift of the machine's load favours neither.
        const [m, p] =
          round % 2 === 0
            ? await pairedMedians(measurements, points, REQUESTS)
            : ((await pairedMedians(points, measurements, REQUESTS)).reverse() as [number, number]);
        ratios.push(m / p);
        latencies.push([m, p]);
      }
      const [m, p] = [median(latencies.map(([a]) => a)), median(latencies.map(([, b]) => b))];
      rows.push(
        row(
          `${label} measurements / points of interest, page of ${PAGE}, ${OBJECTS / 1000}k of each (${store.label})`,
          ratios,
          `${ms(m)} vs ${ms(p)}, ${(bytes[0] as number) / 1000} kB vs ${(bytes[1] as number) / 1000} kB a page`,
        ),
      );
    }
    return rows;
  } finally {
    await server.stop();
  }
}

export async function runMeasurementLists(): Promise<SummaryRow[]> {
  log(
    `# measurement-lists: GET measurements?limit=${PAGE} against GET points-of-interest?limit=${PAGE} of one twin of ${OBJECTS} of each (live and through a draft); median of ${ROUNDS} rounds of ${REQUESTS} alternating requests`,
  );
  return onEachStore('measurement-lists', onStore);
}

runMain(import.meta.url, runMeasurementLists);
