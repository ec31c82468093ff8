import { fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { latenciesDuring, pairedMedians, percentile, timedRequest } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { buildScaleStore, type ScaleStore } from './support/scale-store.js';
import { benchDatabases } from './support/stores.js';

/**
 * The platform on a large store against a small one: reads must stay within 2x; moving and
 * trashing a large subtree must cost in proportion to the subtree, not the tree, while reads of
 * other nodes keep answering (p99 under 50 ms). SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL
 * (the same trees, built in SQLite and copied in: bench/support/tree-store.ts).
 */
const LARGE = quick ? 200_000 : 1_000_000;
const MID = quick ? 100_000 : 200_000;
const SMALL = 1_000;
const BIG = quick ? 20_000 : 100_000;
const MEDIUM = quick ? 2_000 : 10_000;
const REQUESTS = quick ? 100 : 400;
const READERS = 4;

interface Reads {
  browse: number;
  get: number;
  contains: number;
  startsWith: number;
  frequent: number;
}

interface Changes {
  moveBig: number;
  trashBig: number;
  moveMedium?: number;
  trashMedium?: number;
  readP99DuringMove?: number;
  readP50DuringMove?: number;
  readsDuringMove?: number;
}

async function withPlatform<T>(
  scale: ScaleStore,
  work: (api: string, headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  const server = await startChildServer('bench/servers/platform-server.ts', { ...scale.store.env, RDP_LOG_LEVEL: 'warn' });
  try {
    const headers = { authorization: `Bearer ${await fetchToken(server.origin, scale.client)}` };
    return await work(`${server.origin}/eu/reality`, headers);
  } finally {
    await server.stop();
  }
}

/** The same reads on the large and the small store, both served at once and asked in turn. */
async function reads(large: ScaleStore, small: ScaleStore): Promise<{ large: Reads; small: Reads }> {
  return withPlatform(large, (largeApi, largeHeaders) =>
    withPlatform(small, async (smallApi, smallHeaders) => {
      const both = async (path: (scale: ScaleStore) => string) =>
        pairedMedians(
          { url: `${largeApi}${path(large)}`, headers: largeHeaders },
          { url: `${smallApi}${path(small)}`, headers: smallHeaders },
          REQUESTS,
        );
      const search = (query: string, match: string) => () =>
        `/v1/nodes/search?${new URLSearchParams({ searchNameQuery: query, searchNameMatch: match })}`;
      const measured = {
        browse: await both((scale) => `/v1/nodes/${scale.browseFolderId}/browse`),
        get: await both((scale) => `/v1/nodes/${scale.otherNodeIds[3]}`),
        contains: await both(search('rvey marker', 'contains')),
        startsWith: await both(search('survey marker 1', 'startsWith')),
        frequent: await both(search('facade', 'contains')),
      };
      const pick = (index: 0 | 1) =>
        Object.fromEntries(Object.entries(measured).map(([key, pair]) => [key, pair[index]])) as unknown as Reads;
      return { large: pick(0), small: pick(1) };
    }),
  );
}

async function changes(scale: ScaleStore, readDuringMove: boolean): Promise<Changes> {
  return withPlatform(scale, async (api, headers) => {
    const move = (id: string) =>
      timedRequest(`${api}/v1/nodes/${id}/move/${scale.targetDivisionId}`, { method: 'PATCH', headers });
    const trash = (id: string) => timedRequest(`${api}/v1/nodes/${id}`, { method: 'DELETE', headers });
    const result: Changes = { moveBig: 0, trashBig: 0 };
    await move(scale.warmupSiteId);
    if (scale.mediumSiteId) result.moveMedium = await move(scale.mediumSiteId);
    if (readDuringMove) {
      const urls = scale.otherNodeIds.map((id) => `${api}/v1/nodes/${id}`);
      const { result: moveBig, latencies } = await latenciesDuring(urls, headers, READERS, () => move(scale.bigSiteId as string));
      result.moveBig = moveBig;
      result.readP99DuringMove = percentile(latencies, 99);
      result.readP50DuringMove = percentile(latencies, 50);
      result.readsDuringMove = latencies.length;
    } else {
      result.moveBig = await move(scale.bigSiteId as string);
    }
    if (scale.mediumSiteId) result.trashMedium = await trash(scale.mediumSiteId);
    result.trashBig = await trash(scale.bigSiteId as string);
    return result;
  });
}

export async function runScale(): Promise<SummaryRow[]> {
  log(
    `# scale: ${LARGE} nodes against ${SMALL}; subtrees of ${BIG} and ${MEDIUM}; median of ${REQUESTS} sequential requests, alternating between the stores`,
  );
  const rows: SummaryRow[] = [];
  for (const databaseUrl of benchDatabases()) {
    const label = databaseUrl ? 'PostgreSQL' : 'SQLite';
    log(`## ${label}`);
    const measured = await scaleOn(databaseUrl);
    rows.push(...measured.map((row) => ({ ...row, measure: `${row.measure}, ${label}` })));
  }
  if (benchDatabases().length === 1) log('scale: PostgreSQL not measured; set RDP_BENCH_DATABASE_URL to measure it too');
  return rows;
}

/** Every measure on stores of one database: SQLite (no URL) or PostgreSQL. */
async function scaleOn(databaseUrl: string | undefined): Promise<SummaryRow[]> {
  const onStore = async <T>(nodes: number, big: number, medium: number, work: (scale: ScaleStore) => Promise<T>) => {
    const scale = await buildScaleStore(`scale-${nodes}`, nodes, big, medium, databaseUrl);
    log(`built a store of ${scale.nodes} nodes in ${scale.buildSeconds.toFixed(1)} s`);
    try {
      return await work(scale);
    } finally {
      await scale.store.remove();
    }
  };
  const { small, large, largeChanges } = await onStore(SMALL, 0, 0, (smallStore) =>
    onStore(LARGE, BIG, MEDIUM, async (largeStore) => ({
      ...(await reads(largeStore, smallStore)),
      largeChanges: await changes(largeStore, true),
    })),
  );
  const midChanges = await onStore(MID, BIG, 0, (scale) => changes(scale, false));

  const rows: SummaryRow[] = [];
  const readNames: [keyof Reads, string][] = [
    ['browse', 'browse (20 children)'],
    ['get', 'get a node'],
    ['contains', 'search contains "rvey marker"'],
    ['startsWith', 'search startsWith "survey marker 1"'],
  ];
  for (const [key, name] of readNames) {
    const ratio = large[key] / small[key];
    log(`${name}: ${ms(large[key])} at ${LARGE} vs ${ms(small[key])} at ${SMALL}: ${times(ratio)}`);
    rows.push({
      bench: 'scale',
      measure: `${name}, ${LARGE / 1000}k / 1k`,
      ratio: times(ratio),
      target: '<= 2x',
      met: ratio <= 2,
    });
  }
  const frequent = large.frequent / small.frequent;
  log(`search contains "facade" (a fifth of all names): ${ms(large.frequent)} vs ${ms(small.frequent)}: ${times(frequent)}`);
  rows.push({
    bench: 'scale',
    measure: 'search contains a frequent word, large / 1k',
    ratio: times(frequent),
    target: 'info',
    met: undefined,
  });

  const c = largeChanges;
  log(
    `at ${LARGE}: move ${MEDIUM} ${ms(c.moveMedium ?? 0)}, move ${BIG} ${ms(c.moveBig)}; trash ${MEDIUM} ${ms(c.trashMedium ?? 0)}, trash ${BIG} ${ms(c.trashBig)}`,
  );
  log(`at ${MID}: move ${BIG} ${ms(midChanges.moveBig)}, trash ${BIG} ${ms(midChanges.trashBig)}`);
  log(
    `reads of other nodes during the ${BIG} move: ${c.readsDuringMove} reads, p50 ${ms(c.readP50DuringMove ?? 0)}, p99 ${ms(c.readP99DuringMove ?? 0)}`,
  );
  const subtreeGrowth = c.moveBig / (c.moveMedium as number);
  const treeGrowth = c.moveBig / midChanges.moveBig;
  rows.push(
    {
      bench: 'scale',
      measure: `move ${BIG / 1000}k subtree at ${LARGE / 1000}k`,
      ratio: ms(c.moveBig),
      target: 'info',
      met: undefined,
    },
    {
      bench: 'scale',
      measure: `trash ${BIG / 1000}k subtree at ${LARGE / 1000}k`,
      ratio: ms(c.trashBig),
      target: 'info',
      met: undefined,
    },
    {
      bench: 'scale',
      measure: `move ${BIG / 1000}k / ${MEDIUM / 1000}k subtree (same tree)`,
      ratio: times(subtreeGrowth),
      target: `~${BIG / MEDIUM}x`,
      met: undefined,
    },
    {
      bench: 'scale',
      measure: `move ${BIG / 1000}k subtree, ${LARGE / 1000}k / ${MID / 1000}k tree`,
      ratio: times(treeGrowth),
      target: '~1x (< 2x)',
      met: treeGrowth < 2,
    },
    {
      bench: 'scale',
      measure: `trash ${BIG / 1000}k / ${MEDIUM / 1000}k subtree`,
      ratio: times(c.trashBig / (c.trashMedium as number)),
      target: `~${BIG / MEDIUM}x`,
      met: undefined,
    },
    {
      bench: 'scale',
      measure: `trash ${BIG / 1000}k subtree, ${LARGE / 1000}k / ${MID / 1000}k tree`,
      ratio: times(c.trashBig / midChanges.trashBig),
      target: '~1x (< 2x)',
      met: c.trashBig / midChanges.trashBig < 2,
    },
    {
      bench: 'scale',
      measure: `p99 of other reads during the ${BIG / 1000}k move`,
      ratio: ms(c.readP99DuringMove ?? 0),
      target: '< 50 ms',
      met: (c.readP99DuringMove ?? 0) < 50,
    },
  );
  return rows;
}

runMain(import.meta.url, runScale);
