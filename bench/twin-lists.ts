import { performance } from 'node:perf_hooks';
import { sql } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { openPlatform } from '../src/platform.js';
import { apiCaller, fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { pairedMedians, type Target } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';
import { insertNodes, insertPointsOfInterest, seedTwinOrganization, siteRows } from './support/twin-store.js';

/**
 * A page of 100 points of interest of a twin holding 10,000, against a browse of 100 children on
 * the same server (medians of sequential requests alternating between the two): through the live
 * twin, and through a draft of a few changes (added, modified, removed), whose view overlays the
 * live rows with its changes. The objects are written straight in the store. SQLite, and
 * PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const OBJECTS = 10_000;
const PAGE = 100;
const REQUESTS = quick ? 100 : 300;
const TARGET = 1.5;

async function seed(store: StoreUnderTest) {
  const started = performance.now();
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const { client, root } = await seedTwinOrganization(platform);
    const { rows, site, folder } = siteRows(root, 'Twin plant', PAGE, new Date().toISOString());
    await insertNodes(platform, rows);
    const objects = await insertPointsOfInterest(platform, site, client.userId, OBJECTS);
    // Fresh bulk-loaded tables have no statistics yet: settle them as in steady state.
    if (store.databaseUrl) await sql`VACUUM ANALYZE`.execute(platform.region('eu').store.db);
    log(`  ${store.label}: ${OBJECTS} points of interest in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { client, siteId: site.id, folderId: folder.id, objectIds: objects.map((row) => row.id) };
  } finally {
    await platform.close();
  }
}

function row(measure: string, ratio: number, detail: string): SummaryRow {
  log(`  ${measure}: ${times(ratio)} (${detail}), target <= ${TARGET}x`);
  return { bench: 'twin-lists', measure, ratio: times(ratio), target: `<= ${TARGET}x`, met: ratio <= TARGET };
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const seeded = await seed(store);
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...store.env });
  try {
    const api = `${server.origin}/eu/reality`;
    const token = await fetchToken(server.origin, seeded.client);
    const headers = { authorization: `Bearer ${token}` };
    const call = apiCaller(api, token);
    // A draft of a few changes: two added, two of the first page modified, one removed.
    const draft = await call('POST', `/v1/twin/${seeded.siteId}/drafts`, { name: 'A few changes' });
    for (const name of ['New valve', 'New gauge'])
      await call('POST', `/v1/twin/${draft.id}/points-of-interest`, { name, position: { x: 1, y: 2, z: 3 } });
    for (const id of seeded.objectIds.slice(10, 12))
      await call('PATCH', `/v1/twin/${draft.id}/points-of-interest/${id}`, { name: `Renamed ${id.slice(0, 8)}` });
    await call('DELETE', `/v1/twin/${draft.id}/points-of-interest/${seeded.objectIds[20]}`);

    const browse: Target = { url: `${api}/v1/nodes/${seeded.folderId}/browse?limit=${PAGE}`, headers };
    const list = (context: string): Target => ({
      url: `${api}/v1/twin/${context}/points-of-interest?limit=${PAGE}`,
      headers,
    });
    // Each side answers a full page, or the ratio compares different work.
    for (const target of [browse, list(seeded.siteId), list(draft.id)]) {
      const page = (await (await fetch(target.url, { headers })).json()) as unknown[];
      if (page.length !== PAGE) throw new Error(`${target.url} answered ${page.length} items, not ${PAGE}`);
    }
    const rows: SummaryRow[] = [];
    const [live, browseA] = await pairedMedians(list(seeded.siteId), browse, REQUESTS);
    rows.push(
      row(
        `live twin points of interest / browse, page of ${PAGE}, ${OBJECTS / 1000}k objects (${store.label})`,
        live / browseA,
        `${ms(live)} vs ${ms(browseA)}`,
      ),
    );
    const [drafted, browseB] = await pairedMedians(list(draft.id), browse, REQUESTS);
    rows.push(
      row(
        `draft (5 changes) points of interest / browse, page of ${PAGE}, ${OBJECTS / 1000}k objects (${store.label})`,
        drafted / browseB,
        `${ms(drafted)} vs ${ms(browseB)}`,
      ),
    );
    return rows;
  } finally {
    await server.stop();
  }
}

export async function runTwinLists(): Promise<SummaryRow[]> {
  log(
    `# twin-lists: GET points-of-interest?limit=${PAGE} of a twin of ${OBJECTS} (live and through a draft) against a browse of ${PAGE} children; median of ${REQUESTS} requests, alternating`,
  );
  return onEachStore('twin-lists', onStore);
}

runMain(import.meta.url, runTwinLists);
