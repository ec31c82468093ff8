import { performance } from 'node:perf_hooks';
import { createStoreUnderTest, type StoreUnderTest } from './stores.js';
import { bulkTreeOn } from './tree-store.js';

/** The nodes a scale run reads, moves and trashes. */
export interface ScaleStore {
  /** SQLite, or PostgreSQL when built with a database URL; the caller removes it. */
  store: StoreUnderTest;
  /** The organization's administrator application. */
  client: { clientId: string; clientSecret: string };
  nodes: number;
  buildSeconds: number;
  /** A folder with 20 children named "Survey marker 01" to "Survey marker 20". */
  browseFolderId: string;
  /** Data items far from the moved subtrees, read while they move. */
  otherNodeIds: string[];
  /** Sites of `big` and `medium` nodes (absent when 0 was asked), and a division to move them to. */
  bigSiteId: string | undefined;
  /** A site of 20 nodes, moved once before the timed changes so that none of them pays for a cold start. */
  warmupSiteId: string;
  mediumSiteId: string | undefined;
  targetDivisionId: string;
}

/**
 * A store of `nodes` nodes: a division holding the big site, one holding the medium site, an empty
 * target division, a projects division with the browse folder, and filler divisions of sites of
 * `fillerSite` nodes each.
 */
export async function buildScaleStore(
  label: string,
  nodes: number,
  big: number,
  medium: number,
  databaseUrl?: string,
): Promise<ScaleStore> {
  const started = performance.now();
  const store = await createStoreUnderTest(label, databaseUrl);
  try {
    return await buildTree(store, nodes, big, medium, started);
  } catch (error) {
    await store.remove();
    throw error;
  }
}

async function buildTree(
  store: StoreUnderTest,
  nodes: number,
  big: number,
  medium: number,
  started: number,
): Promise<ScaleStore> {
  const build = await bulkTreeOn(store);
  const { tree } = build;
  const rail = tree.add(tree.org, 'division', 'Rail');
  const bigSite = big > 0 ? tree.site(rail, 'Central Station', big) : undefined;
  const highways = tree.add(tree.org, 'division', 'Highways');
  const mediumSite = medium > 0 ? tree.site(highways, 'Ring Road Junction 4', medium) : undefined;
  const target = tree.add(tree.org, 'division', 'Archive');
  const projects = tree.add(tree.org, 'division', 'Projects');
  const survey = tree.add(projects, 'site', 'Harbour Bridge', '2 Harbour Road');
  const folder = tree.add(survey, 'folder', 'Survey 2024');
  const warmup = tree.site(projects, 'Depot Yard', 20);
  const otherNodeIds: string[] = [];
  for (let i = 1; i <= 20; i += 1) {
    otherNodeIds.push(tree.add(folder, 'pointCloud', `Survey marker ${String(i).padStart(2, '0')}`).id);
  }

  const fillerSite = nodes >= 100_000 ? 10_000 : 100;
  for (let d = 1; tree.count + 1 < nodes; d += 1) {
    const division = tree.add(tree.org, 'division', `Region ${d}`);
    for (let s = 1; s <= 10 && tree.count + 1 < nodes; s += 1) {
      const size = Math.min(fillerSite, nodes - 1 - tree.count);
      const site = tree.site(division, `Site ${d}.${s}`, size);
      if (otherNodeIds.length < 200) otherNodeIds.push(site.id);
    }
  }
  await build.commit();
  return {
    store,
    client: build,
    nodes: tree.count + 1,
    buildSeconds: (performance.now() - started) / 1000,
    browseFolderId: folder.id,
    otherNodeIds,
    bigSiteId: bigSite?.id,
    warmupSiteId: warmup.id,
    mediumSiteId: mediumSite?.id,
    targetDivisionId: target.id,
  };
}
