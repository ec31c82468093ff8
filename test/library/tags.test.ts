import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ApiClient, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LIBRARY_SCOPES = 'read:basic read:assetlibrary write:assetlibrary';

/** A client with the library's scopes and, when given, a role on a node (the organization's by default). */
async function libraryClient(org: OrgFixture, roleName?: string, nodeId?: string, scopes = LIBRARY_SCOPES) {
  return org.serviceClient({ scopes, roleName, nodeId });
}

/** A name no other test uses. */
function uniqueName(prefix = 'Tag') {
  return `${prefix} ${randomUUID().slice(0, 8)}`;
}

/** The rows a tag write touches: the organization's tags, the model-tag rows and its audit trail. */
async function librarySnapshot(t: TestPlatform, org: OrgFixture) {
  const db = t.platform.regions[org.region].store.db;
  return {
    tags: await db.selectFrom('library_tags').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    modelTags: await db
      .selectFrom('library_model_tags')
      .innerJoin('library_models', 'library_models.id', 'library_model_tags.model_id')
      .selectAll('library_model_tags')
      .where('library_models.org_id', '=', org.orgId)
      .orderBy('model_id')
      .orderBy('tag_id')
      .execute(),
    audit: await db.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
  };
}

/** The tag's audit events, oldest first, details parsed. */
async function auditOf(t: TestPlatform, org: OrgFixture, tagId: string) {
  const rows = await t.platform.regions[org.region].store.db
    .selectFrom('audit_events')
    .selectAll()
    .where('org_id', '=', org.orgId)
    .where('target_id', '=', tagId)
    .orderBy('occurred_at')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

/** A library model carrying the given tags, created through the model routes (an open upload is enough to carry tags). */
async function taggedModel(client: ApiClient, tagIds: string[]): Promise<string> {
  const response = await client.post('/v1/asset-library/models', {
    name: uniqueName('Pump'),
    fileName: 'pump.glb',
    size: 1024,
    tagIds,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
}

describe('asset library tags: /v1/asset-library/tags', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let admin: ApiClient;
  let adminId: string;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    ({ client: admin, userId: adminId } = await libraryClient(org, 'Organization Administrator'));
  });

  /** Sends a request that must be refused, checks its answer and that nothing was stored. */
  const refused = refuser(() => librarySnapshot(t, org));

  async function create(client: ApiClient = admin, body: object = { name: uniqueName() }) {
    const response = await client.post('/v1/asset-library/tags', body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  it('creates a tag (201), answers it whole, reads it back, lists it and records library-tag.created', async () => {
    const created = await admin.post('/v1/asset-library/tags', { name: '  Pumps, spaced  ', color: '#A1b2C3' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      name: '  Pumps, spaced  ',
      color: '#A1b2C3',
      modelCount: 0,
      createdBy: adminId,
      updatedBy: adminId,
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
    });
    expect((await admin.get(`/v1/asset-library/tags/${created.body.id}`)).body).toEqual(created.body);
    expect((await admin.get('/v1/asset-library/tags?limit=500')).body).toContainEqual(created.body);
    const events = await auditOf(t, org, created.body.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action: 'library-tag.created',
      actor_type: 'principal',
      actor_id: adminId,
      target_type: 'library-tag',
      details: { name: '  Pumps, spaced  ', color: '#A1b2C3' },
    });
    // Without a colour, and with an explicit null, the colour is null; 64 characters (code points) fit.
    expect((await create(admin, { name: uniqueName() })).color).toBeNull();
    expect((await create(admin, { name: uniqueName(), color: null })).color).toBeNull();
    expect((await create(admin, { name: '🏷'.repeat(64) })).name).toBe('🏷'.repeat(64));
  });

  it('changes a tag with PATCH: name, colour, or both; null clears the colour; updatedBy and updatedAt move', async () => {
    const tag = await create(admin, { name: uniqueName(), color: '#000000' });
    const editor = await libraryClient(org, 'Contributor');
    t.clock.advance(1000);
    const renamed = await editor.client.patch(`/v1/asset-library/tags/${tag.id}`, { name: 'Valves' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toEqual({ ...tag, name: 'Valves', updatedBy: editor.userId, updatedAt: expect.any(String) });
    expect(renamed.body.updatedAt > tag.updatedAt).toBe(true);
    expect((await admin.get(`/v1/asset-library/tags/${tag.id}`)).body).toEqual(renamed.body);

    const recoloured = await admin.patch(`/v1/asset-library/tags/${tag.id}`, { color: '#ffffff' });
    expect(recoloured.body).toMatchObject({ name: 'Valves', color: '#ffffff', updatedBy: adminId });
    const cleared = await admin.patch(`/v1/asset-library/tags/${tag.id}`, { color: null });
    expect(cleared.body).toMatchObject({ name: 'Valves', color: null });
    // Its own name in another case is a rename, not a duplicate.
    const both = await admin.patch(`/v1/asset-library/tags/${tag.id}`, { name: 'VALVES', color: '#123abc' });
    expect(both.body).toMatchObject({ name: 'VALVES', color: '#123abc' });
    expect((await admin.get(`/v1/asset-library/tags/${tag.id}`)).body).toEqual(both.body);

    const events = (await auditOf(t, org, tag.id)).filter((event) => event.action === 'library-tag.updated');
    expect(events).toHaveLength(4);
    expect(events[0]).toMatchObject({
      actor_id: editor.userId,
      target_type: 'library-tag',
      details: { before: { name: tag.name, color: '#000000' }, after: { name: 'Valves', color: '#000000' }, changed: ['name'] },
    });
    expect(events[2]?.details).toEqual({
      before: { name: 'Valves', color: '#ffffff' },
      after: { name: 'Valves', color: null },
      changed: ['color'],
    });
  });

  it('counts the models that carry a tag; deleting the tag (204) unassigns it in the same change, then 404', async () => {
    const tag = await create();
    const other = await create();
    const both = await taggedModel(admin, [tag.id, other.id]);
    const one = await taggedModel(admin, [tag.id]);
    expect((await admin.get(`/v1/asset-library/tags/${tag.id}`)).body.modelCount).toBe(2);
    const listed = (await admin.get('/v1/asset-library/tags?limit=500')).body as { id: string; modelCount: number }[];
    expect(listed.find((row) => row.id === tag.id)?.modelCount).toBe(2);
    expect(listed.find((row) => row.id === other.id)?.modelCount).toBe(1);
    // A rename answers the count too.
    expect((await admin.patch(`/v1/asset-library/tags/${tag.id}`, { name: uniqueName() })).body.modelCount).toBe(2);

    const deleted = await admin.delete(`/v1/asset-library/tags/${tag.id}`);
    expect(deleted.status).toBe(204);
    const { modelTags } = await librarySnapshot(t, org);
    expect(modelTags.filter((row) => row.tag_id === tag.id)).toEqual([]);
    expect(modelTags.filter((row) => row.tag_id === other.id)).toHaveLength(1);
    expect((await admin.get(`/v1/asset-library/tags/${other.id}`)).body.modelCount).toBe(1);
    // The models read without it; the other tag stays.
    expect(
      (await admin.get(`/v1/asset-library/models/${both}?includeTags=true`)).body.tags.map((row: { id: string }) => row.id),
    ).toEqual([other.id]);
    expect((await admin.get(`/v1/asset-library/models/${one}?includeTags=true`)).body.tags).toEqual([]);
    expect((await admin.get(`/v1/asset-library/models?tagId=${other.id}`)).body.map((row: { id: string }) => row.id)).toEqual([
      both,
    ]);
    const events = await auditOf(t, org, tag.id);
    expect(events.map((event) => event.action)).toEqual(['library-tag.created', 'library-tag.updated', 'library-tag.deleted']);
    expect(events[2]?.details).toMatchObject({ unassignedFromModels: 2 });

    await refused(() => admin.get(`/v1/asset-library/tags/${tag.id}`), 404, 'Not Found');
    await refused(() => admin.patch(`/v1/asset-library/tags/${tag.id}`, { name: 'Again' }), 404, 'Not Found');
    await refused(() => admin.delete(`/v1/asset-library/tags/${tag.id}`), 404, 'Not Found');
    expect(((await admin.get('/v1/asset-library/tags?limit=500')).body as { id: string }[]).map((row) => row.id)).not.toContain(
      tag.id,
    );
    // The name is free again.
    await create(admin, { name: tag.name });
  });

  it('refuses what the schema bounds with 400 ValidationError naming the field; nothing stored', async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: '' }, /^body\.name: /],
      [{ name: 'x'.repeat(65) }, /^body\.name: /],
      [{ name: '🏷'.repeat(65) }, /^body\.name: /],
      [{ name: 7 }, /^body\.name: /],
      [{ name: null }, /^body\.name: /],
      [{}, /^body: .*name/],
      [{ color: '#ffffff' }, /^body: .*name/],
      [{ name: uniqueName(), color: 'red' }, /^body\.color: /],
      [{ name: uniqueName(), color: '#fffff' }, /^body\.color: /],
      [{ name: uniqueName(), color: '#fffffff' }, /^body\.color: /],
      [{ name: uniqueName(), color: '#gggggg' }, /^body\.color: /],
      [{ name: uniqueName(), color: 0xffffff }, /^body\.color: /],
      [{ name: uniqueName(), owner: 'me' }, /^body: unknown property "owner"/],
      [{ name: uniqueName(), modelCount: 3 }, /^body: unknown property "modelCount"/],
    ];
    for (const [body, message] of cases) {
      await refused(() => admin.post('/v1/asset-library/tags', body), 400, 'ValidationError', message);
    }
    const tag = await create();
    const patches: [unknown, RegExp][] = [
      [{}, /^body: /],
      [{ name: '' }, /^body\.name: /],
      [{ name: null }, /^body\.name: /],
      [{ name: 'x'.repeat(65) }, /^body\.name: /],
      [{ color: '#12345z' }, /^body\.color: /],
      [{ id: randomUUID() }, /^body: unknown property "id"/],
    ];
    for (const [body, message] of patches) {
      await refused(() => admin.patch(`/v1/asset-library/tags/${tag.id}`, body), 400, 'ValidationError', message);
    }
    await refused(() => admin.get(`/v1/asset-library/tags/${'x'.repeat(65)}`), 400, 'ValidationError', /^params\.tagId: /);
    expect((await admin.get(`/v1/asset-library/tags/${tag.id}`)).body).toEqual(tag);
  });

  it('refuses a taken name, compared without case, with 409 DuplicateTagName on create and PATCH; nothing stored', async () => {
    const first = await create(admin, { name: 'Hydrants' });
    for (const name of ['Hydrants', 'HYDRANTS', 'hydrants']) {
      await refused(() => admin.post('/v1/asset-library/tags', { name }), 409, 'DuplicateTagName', /Hydrants|HYDRANTS|hydrants/);
    }
    const second = await create(admin, { name: 'Sprinklers' });
    await refused(() => admin.patch(`/v1/asset-library/tags/${second.id}`, { name: 'hYDRANTS' }), 409, 'DuplicateTagName');
    expect((await admin.get(`/v1/asset-library/tags/${first.id}`)).body).toEqual(first);
    expect((await admin.get(`/v1/asset-library/tags/${second.id}`)).body).toEqual(second);
    // Another organization may use the name.
    const other = await createOrg(t);
    await create((await libraryClient(other, 'Organization Administrator')).client, { name: 'Hydrants' });
  });

  it('lets one of concurrent creations of a name through: one 201, the others 409, one row', async () => {
    const name = uniqueName('Racer');
    const names = [name, name.toUpperCase(), name.toLowerCase(), name];
    const results = await Promise.all(names.map((each) => admin.post('/v1/asset-library/tags', { name: each })));
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409, 409]);
    for (const result of results.filter((each) => each.status === 409)) {
      expect(result.body).toMatchObject({ statusCode: 409, error: 'DuplicateTagName' });
    }
    const rows = (await librarySnapshot(t, org)).tags.filter((row) => row.name_key === name.toLowerCase());
    expect(rows).toHaveLength(1);
    expect((await auditOf(t, org, rows[0]?.id as string)).map((event) => event.action)).toEqual(['library-tag.created']);
  });

  it('is 401 without a token, or with one whose signature is not ours', async () => {
    const tag = await create();
    const [header, payload] = (admin.token as string).split('.');
    const forged = `${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`;
    for (const [client, error] of [
      [admin.withToken(undefined), 'not_authenticated'],
      [admin.withToken(forged), 'invalid_token'],
    ] as const) {
      await refused(() => client.get('/v1/asset-library/tags'), 401, error);
      await refused(() => client.get(`/v1/asset-library/tags/${tag.id}`), 401, error);
      await refused(() => client.post('/v1/asset-library/tags', { name: uniqueName() }), 401, error);
      await refused(() => client.patch(`/v1/asset-library/tags/${tag.id}`, { name: 'X' }), 401, error);
      await refused(() => client.delete(`/v1/asset-library/tags/${tag.id}`), 401, error);
    }
  });

  it('needs read:assetlibrary to read and write:assetlibrary to change (403 Insufficient OAuth scopes otherwise)', async () => {
    const tag = await create();
    // The organization's own administrator token from the fixture holds only the hierarchy and user scopes.
    const hierarchyOnly = org.admin;
    const writeOnly = await libraryClient(org, 'Organization Administrator', undefined, 'read:basic write:assetlibrary');
    for (const client of [hierarchyOnly, writeOnly.client]) {
      for (const path of ['/v1/asset-library/tags', `/v1/asset-library/tags/${tag.id}`]) {
        await refused(() => client.get(path), 403, 'Forbidden', 'Insufficient OAuth scopes');
      }
    }
    const readOnly = await libraryClient(org, 'Organization Administrator', undefined, 'read:basic read:assetlibrary');
    for (const client of [hierarchyOnly, readOnly.client]) {
      await refused(
        () => client.post('/v1/asset-library/tags', { name: uniqueName() }),
        403,
        'Forbidden',
        'Insufficient OAuth scopes',
      );
      await refused(
        () => client.patch(`/v1/asset-library/tags/${tag.id}`, { name: 'X' }),
        403,
        'Forbidden',
        'Insufficient OAuth scopes',
      );
      await refused(() => client.delete(`/v1/asset-library/tags/${tag.id}`), 403, 'Forbidden', 'Insufficient OAuth scopes');
    }
    expect((await readOnly.client.get(`/v1/asset-library/tags/${tag.id}`)).body).toEqual(tag);
  });

  it('lets any member read; changes need edit on the organization node (403 Forbidden resource otherwise)', async () => {
    const tag = await create();
    const divisionId = await createNode(org, org.orgId, 'division', 'Division');
    const member = await libraryClient(org);
    const viewer = await libraryClient(org, 'Viewer');
    const reader = await libraryClient(org, 'Organization Reader');
    const divisionManager = await libraryClient(org, 'Manager', divisionId);
    for (const caller of [member, viewer, reader, divisionManager]) {
      expect((await caller.client.get(`/v1/asset-library/tags/${tag.id}`)).body).toEqual(tag);
      expect((await caller.client.get('/v1/asset-library/tags?limit=500')).body).toContainEqual(tag);
      await refused(
        () => caller.client.post('/v1/asset-library/tags', { name: uniqueName() }),
        403,
        'Forbidden',
        'Forbidden resource',
      );
      await refused(
        () => caller.client.patch(`/v1/asset-library/tags/${tag.id}`, { name: 'Mine' }),
        403,
        'Forbidden',
        'Forbidden resource',
      );
      await refused(() => caller.client.delete(`/v1/asset-library/tags/${tag.id}`), 403, 'Forbidden', 'Forbidden resource');
    }
    // An editor on the organization node (Contributor) and a Manager there change the library.
    for (const roleName of ['Contributor', 'Manager']) {
      const editor = await libraryClient(org, roleName);
      const made = await create(editor.client);
      expect(made.createdBy).toBe(editor.userId);
      expect((await editor.client.patch(`/v1/asset-library/tags/${made.id}`, { color: '#abcdef' })).status).toBe(200);
      expect((await editor.client.delete(`/v1/asset-library/tags/${made.id}`)).status).toBe(204);
    }
  });

  it("answers another organization's tag like a missing one: 404, and leaves it alone", async () => {
    const other = await createOrg(t);
    const otherAdmin = (await libraryClient(other, 'Organization Administrator')).client;
    const foreign = await create(otherAdmin);
    for (const id of [foreign.id, randomUUID(), 'no-such-tag']) {
      await refused(() => admin.get(`/v1/asset-library/tags/${id}`), 404, 'Not Found');
      await refused(() => admin.patch(`/v1/asset-library/tags/${id}`, { name: 'Taken over' }), 404, 'Not Found');
      await refused(() => admin.delete(`/v1/asset-library/tags/${id}`), 404, 'Not Found');
    }
    expect(((await admin.get('/v1/asset-library/tags?limit=500')).body as { id: string }[]).map((row) => row.id)).not.toContain(
      foreign.id,
    );
    expect((await otherAdmin.get(`/v1/asset-library/tags/${foreign.id}`)).body).toEqual(foreign);
  });

  describe('paging', () => {
    let pager: ApiClient;

    it('lists by name without regard to case, then id, by limit and offset', async () => {
      pager = (await libraryClient(await createOrg(t), 'Organization Administrator')).client;
      for (const name of ['charlie', 'Bravo', 'alpha', 'Delta']) await create(pager, { name });
      const names = async (query: string) =>
        ((await pager.get(`/v1/asset-library/tags${query}`)).body as { name: string }[]).map((row) => row.name);
      expect(await names('')).toEqual(['alpha', 'Bravo', 'charlie', 'Delta']);
      expect(await names('?limit=2')).toEqual(['alpha', 'Bravo']);
      expect(await names('?limit=2&offset=1')).toEqual(['Bravo', 'charlie']);
      expect(await names('?offset=3')).toEqual(['Delta']);
      expect(await names('?offset=4')).toEqual([]);
      expect(await names('?limit=100000')).toHaveLength(4);
    });

    it('refuses limits and offsets out of bounds with 400 naming the parameter', async () => {
      const cases: [string, RegExp][] = [
        ['limit=0', /^querystring\.limit: /],
        ['limit=-1', /^querystring\.limit: /],
        ['limit=1e20', /^querystring\.limit: /],
        ['limit=ten', /^querystring\.limit: /],
        ['offset=-1', /^querystring\.offset: /],
        ['offset=1000000001', /^querystring\.offset: /],
        ['cursor=abc', /^querystring: unknown property "cursor"/],
      ];
      for (const [query, message] of cases) {
        const response = await pager.get(`/v1/asset-library/tags?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body).toMatchObject({ statusCode: 400, error: 'ValidationError' });
        expect(response.body.message, query).toMatch(message);
      }
    });
  });
});
