import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TAGS_PER_MODEL } from '../../src/domain/library/tags.js';
import { type ApiClient, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { LIBRARY_TEST_ENV, libraryClient, modelRow, modelSnapshot, uniqueName } from './model-support.js';

/** Model routes whose work is in the database: tags on models, lists, PATCH, who may. */
describe('asset library models: tags, lists, PATCH and who may', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let admin: ApiClient;
  let adminId: string;

  beforeAll(async () => {
    t = await startPlatform(LIBRARY_TEST_ENV);
    org = await createOrg(t);
    ({ client: admin, userId: adminId } = await libraryClient(org, 'Organization Administrator'));
  });
  afterAll(() => t?.close());

  /** Sends a request that must be refused, checks its answer and that nothing was stored. */
  const refused = refuser(() => modelSnapshot(t, org));

  async function tag(name = uniqueName(), client = admin) {
    const response = await client.post('/v1/asset-library/tags', { name });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string; name: string; color: string | null };
  }

  async function create(body: Record<string, unknown> = {}, client = admin) {
    const response = await client.post('/v1/asset-library/models', {
      name: uniqueName('Model'),
      fileName: 'm.obj',
      size: 10,
      ...body,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  const modelCount = async (tagId: string) => (await admin.get(`/v1/asset-library/tags/${tagId}`)).body.modelCount;

  it('tags a model at creation: duplicates collapse, the answer and includeTags list them by name, counts are real', async () => {
    const b = await tag(`B ${randomUUID()}`);
    const a = await tag(`a ${randomUUID()}`);
    const model = await create({ tagIds: [b.id, a.id, b.id] });
    const expected = [a, b].map(({ id, name, color }) => ({ id, name, color }));
    expect(model.tags).toEqual(expected);
    expect((await admin.get(`/v1/asset-library/models/${model.id}?includeTags=true`)).body.tags).toEqual(expected);
    expect((await admin.get(`/v1/asset-library/models/${model.id}`)).body.tags).toBeUndefined();
    expect(await modelCount(a.id)).toBe(1);
    expect(await modelCount(b.id)).toBe(1);
    const rows = await t.platform.regions[org.region].store.db
      .selectFrom('library_model_tags')
      .selectAll()
      .where('model_id', '=', model.id)
      .execute();
    expect(rows).toHaveLength(2);
  });

  it(`takes ${MAX_TAGS_PER_MODEL} tags on a model, refuses more (400 naming tagIds); an unknown or another organization's tag is 400`, async () => {
    const tags = await Promise.all(Array.from({ length: MAX_TAGS_PER_MODEL + 1 }, () => tag()));
    const ids = tags.map((row) => row.id);
    const fifty = await create({ tagIds: [...ids.slice(0, MAX_TAGS_PER_MODEL), ids[0]] });
    expect(fifty.tags).toHaveLength(MAX_TAGS_PER_MODEL);
    const body = { name: 'Too many', fileName: 'm.obj', size: 10 };
    await refused(
      () => admin.post('/v1/asset-library/models', { ...body, tagIds: ids }),
      400,
      'ValidationError',
      /tagIds.*at most 50/,
    );
    await refused(() => admin.patch(`/v1/asset-library/models/${fifty.id}`, { tagIds: ids }), 400, 'ValidationError', /tagIds/);
    const other = await createOrg(t);
    const theirs = await tag(uniqueName(), (await libraryClient(other, 'Organization Administrator')).client);
    for (const unknown of [randomUUID(), theirs.id]) {
      await refused(
        () => admin.post('/v1/asset-library/models', { ...body, tagIds: [ids[0], unknown] }),
        400,
        'ValidationError',
        new RegExp(`tagIds: no tag ${unknown}`),
      );
      await refused(
        () => admin.patch(`/v1/asset-library/models/${fifty.id}`, { tagIds: [unknown] }),
        400,
        'ValidationError',
        /tagIds/,
      );
    }
    await refused(() => admin.post('/v1/asset-library/models', { ...body, tagIds: [''] }), 400, 'ValidationError', /tagIds/);
    await refused(() => admin.post('/v1/asset-library/models', { ...body, tagIds: 'x' }), 400, 'ValidationError', /tagIds/);
  });

  it('changes a model with PATCH: name, description, tagIds replacing the set; records library-model.updated', async () => {
    const [x, y, z] = [await tag(), await tag(), await tag()];
    const model = await create({ description: 'old', tagIds: [x.id, y.id] });
    const editor = await libraryClient(org, 'Contributor');
    t.clock.advance(1000);
    const changed = await editor.client.patch(`/v1/asset-library/models/${model.id}`, { name: 'Renamed', tagIds: [z.id, y.id] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const { uploadUrl, expiresAt, ...before } = model;
    expect(changed.body).toEqual({
      ...before,
      name: 'Renamed',
      tags: [y, z]
        .map(({ id, name, color }) => ({ id, name, color }))
        .sort((p, q) => p.name.toLowerCase().localeCompare(q.name.toLowerCase())),
      updatedAt: expect.any(String),
    });
    expect(changed.body.updatedAt > model.updatedAt).toBe(true);
    expect([await modelCount(x.id), await modelCount(y.id), await modelCount(z.id)]).toEqual([0, 1, 1]);
    expect((await modelRow(t, org, model.id))?.updated_by).toBe(editor.userId);

    const described = await admin.patch(`/v1/asset-library/models/${model.id}`, { description: 'é'.repeat(2000) });
    expect(described.body).toMatchObject({ name: 'Renamed', description: 'é'.repeat(2000) });
    expect(described.body.tags.map((row: { id: string }) => row.id).sort()).toEqual([y.id, z.id].sort());
    const cleared = await admin.patch(`/v1/asset-library/models/${model.id}`, { tagIds: [] });
    expect(cleared.body.tags).toEqual([]);
    expect((await admin.get(`/v1/asset-library/models/${model.id}`)).body).toMatchObject({
      name: 'Renamed',
      description: 'é'.repeat(2000),
    });

    const events = await t.platform.regions[org.region].store.db
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', model.id)
      .where('action', '=', 'library-model.updated')
      .orderBy('occurred_at')
      .execute();
    expect(events).toHaveLength(3);
    expect(events[0]?.actor_id).toBe(editor.userId);
    expect(JSON.parse(events[0]?.details ?? '{}')).toEqual({
      before: { name: model.name, description: 'old', tagIds: expect.arrayContaining([x.id, y.id]) },
      after: { name: 'Renamed', description: 'old', tagIds: [z.id, y.id] },
      changed: ['name', 'tagIds'],
    });
  });

  it('refuses bad bodies with 400 ValidationError naming the field; nothing stored', async () => {
    const model = await create();
    const base = { name: 'M', fileName: 'm.obj', size: 10 };
    const post = (body: object) => () => admin.post('/v1/asset-library/models', body);
    await refused(post({ ...base, name: '' }), 400, 'ValidationError', /name/);
    await refused(post({ ...base, name: 'x'.repeat(256) }), 400, 'ValidationError', /name/);
    await refused(post({ ...base, description: 'x'.repeat(2001) }), 400, 'ValidationError', /description/);
    await refused(post({ ...base, fileName: '' }), 400, 'ValidationError', /fileName/);
    await refused(post({ ...base, size: -1 }), 400, 'ValidationError', /size/);
    await refused(post({ ...base, size: 1.5 }), 400, 'ValidationError', /size/);
    await refused(post({ name: 'M', fileName: 'm.obj' }), 400, 'ValidationError', /size/);
    await refused(post({ ...base, extra: true }), 400, 'ValidationError');
    const path = `/v1/asset-library/models/${model.id}`;
    await refused(() => admin.patch(path, {}), 400, 'ValidationError');
    await refused(() => admin.patch(path, { description: 'x'.repeat(2001) }), 400, 'ValidationError', /description/);
    await refused(() => admin.patch(path, { status: 'ready' }), 400, 'ValidationError');
    await refused(() => admin.patch(path, { name: null }), 400, 'ValidationError', /name/);
  });

  it('lists by name without regard to case, then id, by limit and offset, and by tag (tagId repeated: every one)', async () => {
    const own = await createOrg(t);
    const { client } = await libraryClient(own, 'Organization Administrator');
    const [red, blue] = [await tag('red', client), await tag('blue', client)];
    const names = ['delta', 'Alpha', 'charlie', 'bravo'];
    const made: Record<string, { id: string }> = {};
    for (const name of names) {
      const tagIds = name === 'Alpha' ? [red.id, blue.id] : name === 'charlie' ? [red.id] : [];
      made[name] = await create({ name, tagIds }, client);
    }
    const list = async (query: string) => {
      const response = await client.get(`/v1/asset-library/models${query}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return (response.body as { name: string }[]).map((row) => row.name);
    };
    expect(await list('')).toEqual(['Alpha', 'bravo', 'charlie', 'delta']);
    expect(await list('?limit=2')).toEqual(['Alpha', 'bravo']);
    expect(await list('?limit=2&offset=2')).toEqual(['charlie', 'delta']);
    expect(await list('?offset=4')).toEqual([]);
    expect(await list(`?tagId=${red.id}`)).toEqual(['Alpha', 'charlie']);
    expect(await list(`?tagId=${red.id}&tagId=${blue.id}`)).toEqual(['Alpha']);
    expect(await list(`?tagId=${blue.id}&limit=1&offset=1`)).toEqual([]);
    expect(await list(`?tagId=${randomUUID()}`)).toEqual([]);
    const withTags = (await client.get(`/v1/asset-library/models?includeTags=true&tagId=${red.id}`)).body;
    expect(withTags.map((row: { tags: { name: string }[] }) => row.tags.map((tagRow) => tagRow.name))).toEqual([
      ['blue', 'red'],
      ['red'],
    ]);
    expect((await client.get('/v1/asset-library/models')).body[0].tags).toBeUndefined();
    expect((await client.get(`/v1/asset-library/models/${made.Alpha?.id}`)).status).toBe(200);
    for (const query of ['limit=0', 'offset=-1', 'limit=abc', 'limit=1e20', 'includeTags=maybe', 'unknown=1']) {
      await refused(() => client.get(`/v1/asset-library/models?${query}`), 400, 'ValidationError');
    }
    // A tag's deletion takes it off its models.
    expect((await client.delete(`/v1/asset-library/tags/${red.id}`)).status).toBe(204);
    expect((await client.get(`/v1/asset-library/models/${made.charlie?.id}?includeTags=true`)).body.tags).toEqual([]);
  });

  it('needs read:assetlibrary to read and write:assetlibrary to change (403 Insufficient OAuth scopes); nothing stored', async () => {
    const model = await create();
    const reader = await libraryClient(org, 'Organization Administrator', undefined, 'read:basic read:assetlibrary');
    const writer = await libraryClient(org, 'Organization Administrator', undefined, 'read:basic write:assetlibrary');
    const body = { name: 'M', fileName: 'm.obj', size: 10 };
    await refused(() => reader.client.post('/v1/asset-library/models', body), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(
      () => reader.client.patch(`/v1/asset-library/models/${model.id}`, { name: 'x' }),
      403,
      'Forbidden',
      'Insufficient OAuth scopes',
    );
    await refused(
      () => reader.client.delete(`/v1/asset-library/models/${model.id}`),
      403,
      'Forbidden',
      'Insufficient OAuth scopes',
    );
    await refused(
      () => reader.client.post(`/v1/asset-library/models/${model.id}/finalize`, { etag: 'a'.repeat(32) }),
      403,
      'Forbidden',
      'Insufficient OAuth scopes',
    );
    await refused(() => writer.client.get(`/v1/asset-library/models/${model.id}`), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(() => writer.client.get('/v1/asset-library/models'), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(
      () => writer.client.get(`/v1/asset-library/models/${model.id}/thumbnail`),
      403,
      'Forbidden',
      'Insufficient OAuth scopes',
    );
    expect((await reader.client.get(`/v1/asset-library/models/${model.id}`)).status).toBe(200);
  });

  it('lets any member read; changes need edit on the organization node (403 Forbidden resource otherwise)', async () => {
    const model = await create();
    const divisionId = await createNode(org, org.orgId, 'division', uniqueName('Division'));
    const readers = [
      await libraryClient(org, 'Viewer'),
      await libraryClient(org, 'Organization Reader'),
      await libraryClient(org),
      await libraryClient(org, 'Manager', divisionId),
    ];
    for (const caller of readers) {
      expect((await caller.client.get(`/v1/asset-library/models/${model.id}`)).status).toBe(200);
      expect((await caller.client.get('/v1/asset-library/models')).status).toBe(200);
      const body = { name: 'M', fileName: 'm.obj', size: 10 };
      await refused(() => caller.client.post('/v1/asset-library/models', body), 403, 'Forbidden', 'Forbidden resource');
      await refused(
        () => caller.client.patch(`/v1/asset-library/models/${model.id}`, { name: 'x' }),
        403,
        'Forbidden',
        'Forbidden resource',
      );
      await refused(() => caller.client.delete(`/v1/asset-library/models/${model.id}`), 403, 'Forbidden', 'Forbidden resource');
      await refused(
        () => caller.client.post(`/v1/asset-library/models/${model.id}/finalize`, { etag: 'a'.repeat(32) }),
        403,
        'Forbidden',
        'Forbidden resource',
      );
    }
    const contributor = await libraryClient(org, 'Contributor');
    expect((await contributor.client.patch(`/v1/asset-library/models/${model.id}`, { name: 'By contributor' })).status).toBe(200);
    expect((await create({}, contributor.client)).createdBy).toBe(contributor.userId);
    expect(adminId).not.toBe(contributor.userId);
  });
});
