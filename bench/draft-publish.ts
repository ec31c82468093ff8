import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from '../src/adapters/db/database.js';
import { loadConfig } from '../src/config/config.js';
import { openPlatform } from '../src/platform.js';
import { fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { percentile } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow } from './support/report.js';
import { median } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';
import {
  insertDraftChanges,
  insertNodes,
  insertPointsOfInterest,
  pointOfInterestFields,
  seedTwinOrganization,
  siteRows,
} from './support/twin-store.js';

/**
 * Publishing a draft of 1,000 changes to points of interest (400 added, 400 modified, 200
 * removed) of a twin of 2,000, while readers (READERS loops, one request at a time each) GET the
 * live twin's first page of points of interest and single points (one modified, one removed, one
 * added) through the same server. Reports the publish's time and the p99 of the reads that
 * overlapped it (target < 50 ms), and checks that the publish is one transaction: every read
 * answers exactly the twin before or exactly the twin after, and in each reader's sequence no
 * read shows the before after one showed the after. One twin per round (a published draft takes
 * no more writes). The changes are written straight in the store. SQLite (the publish holds the
 * writer; readers read the WAL), and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const LIVE = 2_000;
const ADDED = 400;
const MODIFIED = 400;
const REMOVED = 200;
const READERS = 2;
const ROUNDS = quick ? 1 : 3;
const TARGET_MS = 50;

interface Round {
  siteId: string;
  draftId: string;
  modifiedId: string;
  removedId: string;
  addedId: string;
}

interface Read {
  url: string;
  start: number;
  end: number;
  /** The answer's status and a digest of its body. */
  answer: string;
}

async function seed(store: StoreUnderTest, origin: string) {
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const { client, root } = await seedTwinOrganization(platform);
    const sites = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      const { rows, site } = siteRows(root, `Publish plant ${r}`, 0, new Date().toISOString());
      await insertNodes(platform, rows);
      const live = await insertPointsOfInterest(platform, site, client.userId, LIVE);
      sites.push({ site, live });
    }
    if (store.databaseUrl) await sql`VACUUM ANALYZE`.execute(platform.region('eu').store.db);
    const token = await fetchToken(origin, client);
    const rounds: Round[] = [];
    for (const { site, live } of sites) {
      const response = await fetch(`${origin}/eu/reality/v1/twin/${site.id}/drafts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: '1,000 changes' }),
      });
      const draft = (await response.json()) as { id: string };
      if (response.status !== 201) throw new Error(`draft: ${response.status} ${JSON.stringify(draft)}`);
      const now = new Date().toISOString();
      // Added objects sort before every live one, so the first page changes in all three ways.
      const added = Array.from({ length: ADDED }, (_, i) => {
        const fields = pointOfInterestFields(`Added ${i}`, client.userId, new Date(Date.UTC(2025, 0, 1) + i).toISOString(), i);
        return { objectId: randomUUID(), kind: 'added' as const, fields };
      });
      // Even live objects of the first 800 modified, odd ones of the first 400 removed.
      const modified = live
        .filter((_, i) => i % 2 === 0)
        .slice(0, MODIFIED)
        .map((row) => ({
          objectId: row.id,
          kind: 'modified' as const,
          fields: { name: `Renamed ${row.name}`, updatedBy: client.userId, updatedAt: now },
        }));
      const removed = live
        .filter((_, i) => i % 2 === 1)
        .slice(0, REMOVED)
        .map((row) => ({ objectId: row.id, kind: 'removed' as const, fields: null }));
      await insertDraftChanges(platform, draft.id, [...added, ...modified, ...removed], now);
      rounds.push({
        siteId: site.id,
        draftId: draft.id,
        modifiedId: modified[0]?.objectId as string,
        removedId: removed[0]?.objectId as string,
        addedId: added[0]?.objectId as string,
      });
    }
    return { token, rounds };
  } finally {
    await platform.close();
  }
}

async function answerOf(url: string, headers: Record<string, string>): Promise<Read> {
  const start = performance.now();
  const response = await fetch(url, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  const end = performance.now();
  if (response.status !== 200 && response.status !== 404) throw new Error(`GET ${url}: ${response.status} ${body}`);
  return { url, start, end, answer: `${response.status} ${createHash('sha1').update(body).digest('hex')}` };
}

/** Each URL's answer now, once all reads have settled. */
async function stateOf(urls: string[], headers: Record<string, string>): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  for (const url of urls) state.set(url, (await answerOf(url, headers)).answer);
  return state;
}

async function publishRound(api: string, headers: Record<string, string>, round: Round) {
  const twin = `${api}/v1/twin/${round.siteId}/points-of-interest`;
  const urls = [`${twin}?limit=100`, `${twin}/${round.modifiedId}`, `${twin}/${round.removedId}`, `${twin}/${round.addedId}`];
  const before = await stateOf(urls, headers);
  let done = false;
  const sequences: Read[][] = Array.from({ length: READERS }, () => []);
  const loops = sequences.map(async (reads, reader) => {
    for (let next = reader; !done; next += 1) reads.push(await answerOf(urls[next % urls.length] as string, headers));
  });
  // The readers' own pace first: their p99 without a publish, for comparison.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const publishStart = performance.now();
  const response = await fetch(`${api}/v1/twin/${round.draftId}/publish`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: '{}',
  });
  const publishEnd = performance.now();
  const published = (await response.json()) as { skipped?: string[] };
  await new Promise((resolve) => setTimeout(resolve, 200));
  done = true;
  await Promise.all(loops);
  if (response.status !== 200 || published.skipped?.length)
    throw new Error(`publish: ${response.status} ${JSON.stringify(published)}`);
  const after = await stateOf(urls, headers);
  for (const url of urls) if (before.get(url) === after.get(url)) throw new Error(`${url} answers the same before and after`);

  // One transaction: each read is the whole before or the whole after, and never the before again.
  let partial = 0;
  let backwards = 0;
  for (const reads of sequences) {
    let seenAfter = false;
    for (const read of reads) {
      const isAfter = read.answer === after.get(read.url);
      if (!isAfter && read.answer !== before.get(read.url)) partial += 1;
      if (isAfter) seenAfter = true;
      else if (seenAfter) backwards += 1;
    }
  }
  const all = sequences.flat();
  const during = all.filter((read) => read.end > publishStart && read.start < publishEnd).map((read) => read.end - read.start);
  const quiet = all.filter((read) => read.end < publishStart).map((read) => read.end - read.start);
  return { seconds: (publishEnd - publishStart) / 1000, during, quiet, partial, backwards, reads: all.length };
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...store.env });
  try {
    const { token, rounds } = await seed(store, server.origin);
    const api = `${server.origin}/eu/reality`;
    const headers = { authorization: `Bearer ${token}` };
    const results = [];
    for (const [i, round] of rounds.entries()) {
      const result = await publishRound(api, headers, round);
      results.push(result);
      log(
        `  ${store.label} round ${i + 1}: publish ${result.seconds.toFixed(2)} s; ${result.during.length} reads during it, ` +
          `p99 ${ms(percentile(result.during, 99))}, max ${ms(Math.max(...result.during))} ` +
          `(without a publish p99 ${ms(percentile(result.quiet, 99))}); partial answers ${result.partial}, before after after ${result.backwards}`,
      );
      if (result.partial > 0 || result.backwards > 0) throw new Error(`${store.label}: a reader saw a partial publish`);
    }
    const seconds = median(results.map((result) => result.seconds));
    const p99 = median(results.map((result) => percentile(result.during, 99)));
    const reads = results.reduce((sum, result) => sum + result.during.length, 0);
    const changes = ADDED + MODIFIED + REMOVED;
    return [
      {
        bench: 'draft-publish',
        measure: `publish of ${changes} changes (${ADDED} added, ${MODIFIED} modified, ${REMOVED} removed) of a twin of ${LIVE}, ${store.label}: one transaction, checked by ${reads} reads`,
        ratio: `${seconds.toFixed(2)} s`,
        target: 'info',
        met: undefined,
      },
      {
        bench: 'draft-publish',
        measure: `p99 of live twin reads (list, get) during the publish, ${READERS} readers, ${store.label}`,
        ratio: ms(p99),
        target: `< ${TARGET_MS} ms`,
        met: p99 < TARGET_MS,
      },
    ];
  } finally {
    await server.stop();
  }
}

export async function runDraftPublish(): Promise<SummaryRow[]> {
  log(
    `# draft-publish: a draft of ${ADDED + MODIFIED + REMOVED} changes published while ${READERS} readers read the live twin; ${ROUNDS} round(s), medians`,
  );
  return onEachStore('draft-publish', onStore);
}

runMain(import.meta.url, runDraftPublish);
