import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from '../src/adapters/db/database.js';
import type { LibraryModelRow, LibraryModelTagRow, LibraryTagRow } from '../src/adapters/db/schema.js';
import { adminService } from '../src/composition/platform-services.js';
import { loadConfig } from '../src/config/config.js';
import { libraryModelOriginalKey } from '../src/domain/library/models.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID } from '../src/domain/people/roles.js';
import { openPlatform } from '../src/platform.js';
import { fetchToken } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { pairedMedians, type Target } from './support/latency.js';
import { log, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

/**
 * A page of 100 library models (with their tags) of a library of 1,000, against a page of 100
 * tags (each counting its models) of the same library on the same server: medians of sequential
 * requests alternating between the two. Each model carries 3 of the 100 tags. The rows are written
 * straight in the store. SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const MODELS = 1000;
const TAGS = 100;
const TAGS_PER_MODEL = 3;
const PAGE = 100;
const REQUESTS = quick ? 100 : 300;
const TARGET = 1.5;

async function seed(store: StoreUnderTest) {
  const started = performance.now();
  const platform = await openPlatform(loadConfig({ ...store.env, RDP_LOG_LEVEL: 'silent' }));
  try {
    const admin = adminService(platform);
    const org = await admin.createOrganization({ name: 'Library Bench Ltd', region: 'eu' });
    const app = await admin.createApplication({
      orgId: org.id,
      name: 'Library bench',
      flow: 'client-credentials',
      scopes: ['read:assetlibrary', 'write:assetlibrary'],
    });
    const userId = app.serviceUserId as string;
    await admin.grantMembership({ nodeId: org.id, principalId: userId, roleId: ORGANIZATION_ADMINISTRATOR_ROLE_ID });
    const db = platform.region('eu').store.db;
    const at = new Date().toISOString();
    const tags: LibraryTagRow[] = Array.from({ length: TAGS }, (_, i) => ({
      id: randomUUID(),
      org_id: org.id,
      name: `Tag ${String(i).padStart(3, '0')}`,
      name_key: `tag ${String(i).padStart(3, '0')}`,
      color: null,
      created_by: userId,
      updated_by: userId,
      created_at: at,
      updated_at: at,
    }));
    const models: LibraryModelRow[] = Array.from({ length: MODELS }, (_, i) => {
      const id = randomUUID();
      return {
        id,
        org_id: org.id,
        name: `Model ${String(i).padStart(4, '0')}`,
        name_key: `model ${String(i).padStart(4, '0')}`,
        description: `Bench model ${i}`,
        status: 'ready',
        file_name: `model-${i}.fbx`,
        declared_bytes: 1000,
        reserved_bytes: 0,
        stored_bytes: 1000,
        blob_key: libraryModelOriginalKey(org.id, id),
        multipart_upload_id: null,
        upload_expires_at: null,
        etag: 'a'.repeat(32),
        format: 'fbx',
        previewable: 0,
        preview_unavailable_reason: 'UnsupportedFormat',
        preview_blob_key: null,
        preview_bytes: null,
        thumbnail_blob_key: null,
        thumbnail_bytes: null,
        failure_reason: null,
        created_by: userId,
        updated_by: userId,
        created_at: at,
        updated_at: at,
        finalized_at: at,
      };
    });
    const assignments: LibraryModelTagRow[] = models.flatMap((model, i) =>
      Array.from({ length: TAGS_PER_MODEL }, (_, k) => ({
        model_id: model.id,
        tag_id: (tags[(i * TAGS_PER_MODEL + k) % TAGS] as LibraryTagRow).id,
        created_at: at,
      })),
    );
    await db.insertInto('library_tags').values(tags).execute();
    for (let i = 0; i < MODELS; i += 250)
      await db
        .insertInto('library_models')
        .values(models.slice(i, i + 250))
        .execute();
    for (let i = 0; i < assignments.length; i += 500)
      await db
        .insertInto('library_model_tags')
        .values(assignments.slice(i, i + 500))
        .execute();
    if (store.databaseUrl) await sql`VACUUM ANALYZE`.execute(db);
    log(`  ${store.label}: ${MODELS} models, ${TAGS} tags in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { clientId: app.clientId, clientSecret: app.clientSecret as string };
  } finally {
    await platform.close();
  }
}

async function onStore(store: StoreUnderTest): Promise<SummaryRow[]> {
  const client = await seed(store);
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...store.env });
  try {
    const api = `${server.origin}/eu/reality`;
    const headers = { authorization: `Bearer ${await fetchToken(server.origin, client)}` };
    const models: Target = { url: `${api}/v1/asset-library/models?limit=${PAGE}&includeTags=true`, headers };
    const tags: Target = { url: `${api}/v1/asset-library/tags?limit=${PAGE}`, headers };
    // Each side answers a full page, or the ratio compares different work.
    for (const target of [models, tags]) {
      const page = (await (await fetch(target.url, { headers })).json()) as unknown[];
      if (page.length !== PAGE) throw new Error(`${target.url} answered ${page.length} items, not ${PAGE}`);
    }
    const [modelPage, tagPage] = await pairedMedians(models, tags, REQUESTS);
    const ratio = modelPage / tagPage;
    const measure = `models (with tags) / tags, page of ${PAGE}, ${MODELS} models (${store.label})`;
    log(`  ${measure}: ${times(ratio)} (${ms(modelPage)} vs ${ms(tagPage)}), target <= ${TARGET}x`);
    return [{ bench: 'library-lists', measure, ratio: times(ratio), target: `<= ${TARGET}x`, met: ratio <= TARGET }];
  } finally {
    await server.stop();
  }
}

export async function runLibraryLists(): Promise<SummaryRow[]> {
  log(
    `# library-lists: GET asset-library/models?limit=${PAGE}&includeTags=true of ${MODELS} models against GET asset-library/tags?limit=${PAGE} (each counting its models); median of ${REQUESTS} requests, alternating`,
  );
  return onEachStore('library-lists', onStore);
}

runMain(import.meta.url, runLibraryLists);
