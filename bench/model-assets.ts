import { performance } from 'node:perf_hooks';
import { sql } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { openPlatform } from '../src/platform.js';
import { apiCaller, fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { timedRequest } from './support/latency.js';
import { log, median, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';
import {
  insertModelAssets,
  insertNodes,
  insertPointsOfInterest,
  insertReadyLibraryModel,
  seedTwinOrganization,
  siteRows,
} from './support/twin-store.js';

/**
 * Issue 12's speed item: reads of a twin with 1,000 placed model assets against reads of a twin
 * with 1,000 points of interest, the same page size, on the same server: through the live twin
 * and through a draft of a few changes. Each round times REQUESTS alternating requests to the two
 * and keeps each side's median; the ratio reported is the median of the rounds' ratios. The
 * objects are written straight in the store. SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const OBJECTS = 1_000;
const PAGE = 100;
const ROUNDS = quick ? 5 : 11;
const REQUESTS = quick ? 20 : 40;
const TARGET = 1.5;

async function seed(store: StoreUnderTest) {
  const started = performance.now();
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const { orgId, client, root } = await seedTwinOrganization(platform);
    const now = new Date().toISOString();
    const points = siteRows(root, 'Points plant', 0, now);
    const models = siteRows(root, 'Models plant', 0, now);
    await insertNodes(platform, [...points.rows, ...models.rows]);
    const pointRows = await insertPointsOfInterest(platform, points.site, client.userId, OBJECTS);
    const modelId = await insertReadyLibraryModel(platform, orgId, client.userId);
    const modelRows = await insertModelAssets(platform, models.site, client.userId, modelId, OBJECTS);
    if (store.databaseUrl) await sql`VACUUM ANALYZE`.execute(platform.region('eu').store.db);
    log(
      `  ${store.label}: ${OBJECTS} points of interest and ${OBJECTS} model assets in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return {
      client,
      modelId,
      points: { siteId: points.site.id, ids: pointRows.map((row) => row.id) },
      models: { siteId: models.site.id, ids: modelRows.map((row) => row.id) },
    };
  } finally {
    await platform.close();
  }
}

/** The median of ROUNDS rounds' ratios (target / baseline), each round's sides the medians of REQUESTS alternating requests. */
async function roundsRatio(target: string, baseline: string, headers: Record<string, string>) {
  for (let i = 0; i < 30; i += 1) {
    await timedRequest(target, { headers });
    await timedRequest(baseline, { headers });
  }
  const ratios: number[] = [];
  const targets: number[] = [];
  const baselines: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < REQUESTS; i += 1) {
      // The order swaps every round, so a drift of the machine's load favours neither.
      if (round % 2 === 0) {
        ours.push(await timedRequest(target, { headers }));
        theirs.push(await timedRequest(baseline, { headers }));
      } else {
        theirs.push(await timedRequest(baseline, { headers }));
        ours.push(await timedRequest(target, { headers }));
      }
    }
    targets.push(median(ours));
    baselines.push(median(theirs));
    ratios.push(median(ours) / median(theirs));
  }
  return { ratio: median(ratios), target: median(targets), baseline: median(baselines) };
}

function row(measure: string, measured: { ratio: number; target: number; baseline: number }): SummaryRow {
  const { ratio, target, baseline } = measured;
  const met = ratio <= TARGET;
  log(
    `  ${measure}: ${times(ratio)} (${ms(target)} vs ${ms(baseline)}), target <= ${TARGET}x: ${met ? 'holds' : 'does NOT hold'}`,
  );
  return { bench: 'model-assets', measure, ratio: times(ratio), target: `<= ${TARGET}x`, met };
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const seeded = await seed(store);
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...store.env });
  try {
    const api = `${server.origin}/eu/reality`;
    const token = await fetchToken(server.origin, seeded.client);
    const headers = { authorization: `Bearer ${token}` };
    const call = apiCaller(api, token);
    // The same few changes in a draft of each twin: two added, two of the first page modified, one removed.
    const drafts = { points: '', models: '' };
    for (const kind of ['points', 'models'] as const) {
      const { siteId, ids } = seeded[kind];
      const route = kind === 'points' ? 'points-of-interest' : 'model-assets';
      const draft = await call('POST', `/v1/twin/${siteId}/drafts`, { name: 'A few changes' });
      const place = kind === 'points' ? {} : { libraryModelId: seeded.modelId };
      for (const name of ['New one', 'Another new one'])
        await call('POST', `/v1/twin/${draft.id}/${route}`, { ...place, name, position: { x: 1, y: 2, z: 3 } });
      for (const id of ids.slice(10, 12))
        await call('PATCH', `/v1/twin/${draft.id}/${route}/${id}`, { name: `Renamed ${id.slice(0, 8)}` });
      await call('DELETE', `/v1/twin/${draft.id}/${route}/${ids[20]}`);
      drafts[kind] = draft.id;
    }
    const points = (ctx: string, offset = 0) => `${api}/v1/twin/${ctx}/points-of-interest?limit=${PAGE}&offset=${offset}`;
    const models = (ctx: string, offset = 0) => `${api}/v1/twin/${ctx}/model-assets?limit=${PAGE}&offset=${offset}`;
    const pairs: [string, string, string][] = [
      [`live twin, first page of ${PAGE}`, models(seeded.models.siteId), points(seeded.points.siteId)],
      [
        `live twin, last page of ${PAGE}`,
        models(seeded.models.siteId, OBJECTS - PAGE),
        points(seeded.points.siteId, OBJECTS - PAGE),
      ],
      [`draft (5 changes), first page of ${PAGE}`, models(drafts.models), points(drafts.points)],
    ];
    const rows: SummaryRow[] = [];
    for (const [label, target, baseline] of pairs) {
      // Each side answers a full page, or the ratio compares different work.
      for (const url of [target, baseline]) {
        const page = (await (await fetch(url, { headers })).json()) as unknown[];
        if (page.length !== PAGE) throw new Error(`${url} answered ${page.length} items, not ${PAGE}`);
      }
      rows.push(
        row(
          `model assets / points of interest, ${label}, ${OBJECTS} each (${store.label})`,
          await roundsRatio(target, baseline, headers),
        ),
      );
    }
    return rows;
  } finally {
    await server.stop();
  }
}

export async function runModelAssets(): Promise<SummaryRow[]> {
  log(
    `# model-assets: GET model-assets?limit=${PAGE} of a twin of ${OBJECTS} placed models against GET points-of-interest?limit=${PAGE} of a twin of ${OBJECTS}; median of ${ROUNDS} rounds of ${REQUESTS} alternating requests`,
  );
  return onEachStore('model-assets', onStore);
}

runMain(import.meta.url, runModelAssets);
