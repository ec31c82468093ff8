import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ApiClient, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { createSite, openDraft, twinSnapshot } from '../support/twins.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const height = { section: 'Dimensions', name: 'Height', type: 'number', unit: 'm', required: true };
const condition = { section: 'State', name: 'Condition', type: 'choice', choices: ['good', 'poor'], required: false };
const notes = { section: 'State', name: 'Notes', type: 'longText', required: false };

/** A body with a name no other test uses. */
function pumpBody(name = `Pump ${randomUUID().slice(0, 8)}`) {
  return { name, appliesTo: ['asset', 'zone'], properties: [height, condition, notes] };
}

/** The rows a metadata type write touches: the organization's types and its audit trail. */
async function typeSnapshot(t: TestPlatform, org: OrgFixture) {
  const db = t.platform.regions[org.region].store.db;
  return {
    types: await db.selectFrom('metadata_types').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    audit: await db.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
  };
}

/** The type's audit events, oldest first, details parsed. */
async function auditOf(t: TestPlatform, org: OrgFixture, typeId: string) {
  const rows = await t.platform.regions[org.region].store.db
    .selectFrom('audit_events')
    .selectAll()
    .where('org_id', '=', org.orgId)
    .where('target_id', '=', typeId)
    .orderBy('occurred_at')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

describe('metadata types: /v1/metadata-types', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));

  /** Sends a request that must be refused, checks its answer and that nothing was stored. */
  const refused = refuser(() => typeSnapshot(t, org));

  async function create(client: ApiClient = org.admin, body: object = pumpBody()) {
    const response = await client.post('/v1/metadata-types', body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  it('creates a type, answers it whole, reads it back and records metadata-type.created', async () => {
    const body = pumpBody('  Pump, spaced  ');
    const created = await org.admin.post('/v1/metadata-types', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      name: '  Pump, spaced  ',
      appliesTo: ['asset', 'zone'],
      properties: [height, condition, notes],
      createdBy: org.adminServiceUserId,
      updatedBy: org.adminServiceUserId,
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
    });
    expect((await org.admin.get(`/v1/metadata-types/${created.body.id}`)).body).toEqual(created.body);
    const listed = await org.admin.get('/v1/metadata-types');
    expect(listed.body).toContainEqual(created.body);
    const [event] = await auditOf(t, org, created.body.id);
    expect(event).toMatchObject({
      action: 'metadata-type.created',
      actor_type: 'principal',
      actor_id: org.adminServiceUserId,
      target_type: 'metadata-type',
      details: { name: '  Pump, spaced  ', appliesTo: ['asset', 'zone'], properties: 3 },
    });
  });

  it('accepts a type without properties, and the largest one: 50 sections of 200 properties', async () => {
    expect(
      (await create(org.admin, { name: `Empty ${randomUUID()}`, appliesTo: ['modelAsset'], properties: [] })).properties,
    ).toEqual([]);
    const properties = Array.from({ length: 50 }, (_, section) =>
      Array.from({ length: 200 }, (_, index) => ({
        section: `S${section}`,
        name: `P${index}`,
        type: 'boolean',
        required: false,
      })),
    ).flat();
    const largest = await create(org.admin, { name: `Largest ${randomUUID()}`, appliesTo: ['asset'], properties });
    expect(largest.properties).toHaveLength(10_000);
    expect((await org.admin.get(`/v1/metadata-types/${largest.id}`)).body.properties).toEqual(properties);
  });

  it('changes a type with PATCH: each given field replaced whole, updatedBy and updatedAt moved, metadata-type.updated', async () => {
    const type = await create();
    const editor = await org.serviceClient({ roleName: 'Organization Administrator' });
    t.clock.advance(1000);
    const renamed = await editor.client.patch(`/v1/metadata-types/${type.id}`, {
      name: 'Valve',
      properties: [{ ...height, unit: 'mm' }],
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toEqual({
      ...type,
      name: 'Valve',
      properties: [{ ...height, unit: 'mm' }],
      updatedBy: editor.userId,
      updatedAt: expect.any(String),
    });
    expect(renamed.body.updatedAt > type.updatedAt).toBe(true);
    expect((await org.admin.get(`/v1/metadata-types/${type.id}`)).body).toEqual(renamed.body);

    const kinds = await org.admin.patch(`/v1/metadata-types/${type.id}`, { appliesTo: ['pointOfInterest'] });
    expect(kinds.body).toMatchObject({ name: 'Valve', appliesTo: ['pointOfInterest'], properties: renamed.body.properties });
    // Its own name in another case is a rename, not a duplicate.
    expect((await org.admin.patch(`/v1/metadata-types/${type.id}`, { name: 'VALVE' })).body.name).toBe('VALVE');

    const events = (await auditOf(t, org, type.id)).filter((event) => event.action === 'metadata-type.updated');
    expect(events[0]).toMatchObject({
      actor_id: editor.userId,
      details: {
        before: { name: type.name, appliesTo: ['asset', 'zone'], properties: 3 },
        after: { name: 'Valve', appliesTo: ['asset', 'zone'], properties: 1 },
        changed: ['name', 'properties'],
      },
    });
    expect(events).toHaveLength(3);
  });

  it('deletes a type (204, metadata-type.deleted); then it is 404 everywhere', async () => {
    const type = await create();
    const deleted = await org.admin.delete(`/v1/metadata-types/${type.id}`);
    expect(deleted.status).toBe(204);
    const events = await auditOf(t, org, type.id);
    expect(events.map((event) => event.action)).toEqual(['metadata-type.created', 'metadata-type.deleted']);
    expect(events[1]?.details).toEqual({ name: type.name, appliesTo: ['asset', 'zone'], properties: 3 });
    await refused(() => org.admin.get(`/v1/metadata-types/${type.id}`), 404, 'Not Found');
    await refused(() => org.admin.patch(`/v1/metadata-types/${type.id}`, { name: 'Again' }), 404, 'Not Found');
    await refused(() => org.admin.delete(`/v1/metadata-types/${type.id}`), 404, 'Not Found');
    expect((await org.admin.get('/v1/metadata-types?limit=500')).body.map((row: { id: string }) => row.id)).not.toContain(
      type.id,
    );
    // The name is free again.
    await create(org.admin, { ...pumpBody(), name: type.name });
  });

  it('refuses what the schema bounds with 400 ValidationError naming the field; nothing stored', async () => {
    const base = pumpBody();
    const cases: [unknown, RegExp][] = [
      [{ ...base, name: '' }, /^body\.name: /],
      [{ ...base, name: '🏗'.repeat(256) }, /^body\.name: /],
      [{ ...base, name: 7 }, /^body\.name: /],
      [{ appliesTo: base.appliesTo, properties: [] }, /^body: .*name/],
      [{ ...base, appliesTo: [] }, /^body\.appliesTo: /],
      [{ ...base, appliesTo: ['asset', 'asset'] }, /^body\.appliesTo: /],
      [{ ...base, appliesTo: ['asset', 'building'] }, /^body\.appliesTo\.1: /],
      [{ ...base, owner: 'me' }, /^body: unknown property "owner"/],
      [{ ...base, properties: [{ ...notes, hint: 'x' }] }, /^body\.properties\.0: unknown property "hint"/],
      [{ ...base, properties: [{ ...notes, type: 'date' }] }, /^body\.properties\.0\.type: /],
      [{ ...base, properties: [{ ...notes, section: '' }] }, /^body\.properties\.0\.section: /],
      [{ ...base, properties: [{ ...notes, name: 'x'.repeat(256) }] }, /^body\.properties\.0\.name: /],
      [{ ...base, properties: [{ ...height, unit: 'u'.repeat(33) }] }, /^body\.properties\.0\.unit: /],
      [{ ...base, properties: [{ ...condition, choices: [] }] }, /^body\.properties\.0\.choices: /],
      [{ ...base, properties: [{ ...condition, choices: ['a', 'a'] }] }, /^body\.properties\.0\.choices: /],
      [{ ...base, properties: [{ ...condition, choices: ['a', ''] }] }, /^body\.properties\.0\.choices\.1: /],
      [
        { ...base, properties: [{ ...condition, choices: Array.from({ length: 101 }, (_, i) => `c${i}`) }] },
        /^body\.properties\.0\.choices: /,
      ],
      [{ ...base, properties: [{ section: 'S', name: 'N', type: 'boolean' }] }, /^body\.properties\.0: .*required/],
    ];
    for (const [body, message] of cases) {
      await refused(() => org.admin.post('/v1/metadata-types', body), 400, 'ValidationError', message);
    }
    const type = await create();
    await refused(() => org.admin.patch(`/v1/metadata-types/${type.id}`, {}), 400, 'ValidationError', /^body: /);
    await refused(
      () => org.admin.patch(`/v1/metadata-types/${type.id}`, { appliesTo: ['asset', 'asset'] }),
      400,
      'ValidationError',
      /^body\.appliesTo: /,
    );
  });

  it('refuses the rules beyond the schema with 400 ValidationError naming the field, on create and PATCH; nothing stored', async () => {
    const base = pumpBody();
    const inOneSection = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ section: 'S', name: `P${index}`, type: 'boolean', required: false }));
    const sections = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ section: `S${index}`, name: 'P', type: 'boolean', required: false }));
    const cases: [unknown[], RegExp][] = [
      [[height, condition, { ...notes, section: 'Dimensions', name: 'Height' }], /^body\.properties\.2\.name: .*Height/],
      [[{ ...notes, unit: 'm' }], /^body\.properties\.0\.unit: only a number property has a unit/],
      [[{ ...height, choices: ['1', '2'] }], /^body\.properties\.0\.choices: only a choice property has choices/],
      [[{ ...condition, choices: undefined }], /^body\.properties\.0\.choices: a choice property needs its choices/],
      [sections(51), /^body\.properties\.50\.section: a type has at most 50 sections/],
      [inOneSection(201), /^body\.properties\.200: section "S" has more than 200 properties/],
    ];
    const type = await create();
    for (const [properties, message] of cases) {
      await refused(() => org.admin.post('/v1/metadata-types', { ...base, properties }), 400, 'ValidationError', message);
      await refused(() => org.admin.patch(`/v1/metadata-types/${type.id}`, { properties }), 400, 'ValidationError', message);
    }
    expect((await org.admin.get(`/v1/metadata-types/${type.id}`)).body).toEqual(type);
  });

  it('refuses a body above 1 MiB with 413; nothing stored', async () => {
    const properties = Array.from({ length: 10_000 }, (_, index) => ({
      section: `S${index % 50}`,
      name: `${'n'.repeat(100)}${index}`,
      type: 'boolean',
      required: false,
    }));
    await refused(() => org.admin.post('/v1/metadata-types', { ...pumpBody(), properties }), 413, 'Payload Too Large');
  });

  it('refuses a taken name, compared without case, with 409 DuplicateMetadataTypeName; nothing stored', async () => {
    const first = await create(org.admin, pumpBody('Hydrant'));
    for (const name of ['Hydrant', 'HYDRANT', 'hydrant']) {
      await refused(() => org.admin.post('/v1/metadata-types', pumpBody(name)), 409, 'DuplicateMetadataTypeName');
    }
    const second = await create(org.admin, pumpBody('Sprinkler'));
    await refused(
      () => org.admin.patch(`/v1/metadata-types/${second.id}`, { name: 'hYDRANT' }),
      409,
      'DuplicateMetadataTypeName',
    );
    expect((await org.admin.get(`/v1/metadata-types/${first.id}`)).body).toEqual(first);
    // Another organization may use the name.
    const other = await createOrg(t);
    await create(other.admin, pumpBody('Hydrant'));
  });

  it('lets one of concurrent creations of a name through: one 201, the others 409, one row', async () => {
    const name = `Racer ${randomUUID().slice(0, 8)}`;
    const names = [name, name.toUpperCase(), name.toLowerCase(), name];
    const results = await Promise.all(names.map((each) => org.admin.post('/v1/metadata-types', pumpBody(each))));
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409, 409]);
    for (const result of results.filter((each) => each.status === 409)) {
      expect(result.body).toMatchObject({ statusCode: 409, error: 'DuplicateMetadataTypeName' });
    }
    const rows = (await typeSnapshot(t, org)).types.filter((row) => row.name_key === name.toLowerCase());
    expect(rows).toHaveLength(1);
    expect((await auditOf(t, org, rows[0]?.id as string)).map((event) => event.action)).toEqual(['metadata-type.created']);
  });

  it('is 401 without a token, or with one whose signature is not ours', async () => {
    const type = await create();
    // The administrator's own token with its signature replaced.
    const [header, payload] = (org.admin.token as string).split('.');
    const forged = `${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`;
    for (const [client, error] of [
      [org.admin.withToken(undefined), 'not_authenticated'],
      [org.admin.withToken(forged), 'invalid_token'],
    ] as const) {
      await refused(() => client.get('/v1/metadata-types'), 401, error);
      await refused(() => client.get(`/v1/metadata-types/${type.id}`), 401, error);
      await refused(() => client.post('/v1/metadata-types', pumpBody()), 401, error);
      await refused(() => client.patch(`/v1/metadata-types/${type.id}`, { name: 'X' }), 401, error);
      await refused(() => client.delete(`/v1/metadata-types/${type.id}`), 401, error);
    }
  });

  it('reads with read:hierarchy for any member; writes need write:hierarchy and an administrator (403 otherwise)', async () => {
    const type = await create();
    // A member with no role at all reads (and may not write, whatever its scopes).
    const member = await org.serviceClient({ scopes: 'read:hierarchy write:hierarchy' });
    expect((await member.client.get('/v1/metadata-types')).status).toBe(200);
    expect((await member.client.get(`/v1/metadata-types/${type.id}`)).body).toEqual(type);

    const noRead = await org.serviceClient({ scopes: 'read:basic write:hierarchy', roleName: 'Organization Administrator' });
    for (const path of ['/v1/metadata-types', `/v1/metadata-types/${type.id}`]) {
      await refused(() => noRead.client.get(path), 403, 'Forbidden', 'Insufficient OAuth scopes');
    }
    const noWrite = await org.serviceClient({ scopes: 'read:hierarchy write:user', roleName: 'Organization Administrator' });
    await refused(() => noWrite.client.post('/v1/metadata-types', pumpBody()), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(
      () => noWrite.client.patch(`/v1/metadata-types/${type.id}`, { name: 'X' }),
      403,
      'Forbidden',
      'Insufficient OAuth scopes',
    );
    await refused(() => noWrite.client.delete(`/v1/metadata-types/${type.id}`), 403, 'Forbidden', 'Insufficient OAuth scopes');

    // Members that are not administrators: a contributor on the organization, a manager of a division.
    const divisionId = await createNode(org, org.orgId, 'division', 'Division');
    const contributor = await org.serviceClient({ roleName: 'Contributor' });
    const divisionManager = await org.serviceClient({ roleName: 'Manager', nodeId: divisionId });
    for (const caller of [member.client, contributor.client, divisionManager.client]) {
      await refused(() => caller.post('/v1/metadata-types', pumpBody()), 403, 'Forbidden', 'Forbidden resource');
      await refused(
        () => caller.patch(`/v1/metadata-types/${type.id}`, { name: 'Mine' }),
        403,
        'Forbidden',
        'Forbidden resource',
      );
      await refused(() => caller.delete(`/v1/metadata-types/${type.id}`), 403, 'Forbidden', 'Forbidden resource');
    }
  });

  describe('a type that objects use', () => {
    const volume = {
      boxes: [{ center: { x: 0, y: 0, z: 0 }, size: { x: 1, y: 1, z: 1 }, rotation: { x: 0, y: 0, z: 0, w: 1 } }],
    };
    /** The type's rows and the twins': a refused deletion changes neither. */
    const inUse = refuser(async () => ({ types: await typeSnapshot(t, org), twins: await twinSnapshot(t, org) }));

    async function asset(ctx: string, metadataTypeId: string | null) {
      const response = await org.admin.post(`/v1/twin/${ctx}/assets`, { name: 'Tank', volume, metadataTypeId });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.id as string;
    }

    it('cannot be deleted while live objects or open drafts use it: 409 MetadataTypeInUse naming how many, nothing deleted', async () => {
      const type = await create();
      const site = await createSite(org);
      const live = await asset(site, type.id);
      const path = `/v1/metadata-types/${type.id}`;
      await inUse(
        () => org.admin.delete(path),
        409,
        'MetadataTypeInUse',
        /used by 1 object in twins, open drafts or planning layouts/,
      );

      // A draft that adds an object with the type, and one that gives it to a live object without one.
      const draft = await openDraft(org, site);
      await asset(draft.id, type.id);
      const untyped = await asset(site, null);
      const given = await org.admin.patch(`/v1/twin/${draft.id}/assets/${untyped}`, { metadataTypeId: type.id });
      expect(given.status, JSON.stringify(given.body)).toBe(200);
      // The live typed object's metadata changed through the draft is still one object.
      const metadata = await org.admin.patch(`/v1/twin/${draft.id}/object/${live}/metadata`, {
        sections: { Dimensions: { Height: 1 } },
      });
      expect(metadata.status, JSON.stringify(metadata.body)).toBe(200);
      await inUse(() => org.admin.delete(path), 409, 'MetadataTypeInUse', /used by 3 objects/);

      // A discarded draft's changes are never written: they use nothing.
      expect((await org.admin.post(`/v1/twin/${draft.id}/discard`, {})).status).toBe(200);
      await inUse(() => org.admin.delete(path), 409, 'MetadataTypeInUse', /used by 1 object /);
      const cleared = await org.admin.patch(`/v1/twin/${site}/assets/${live}`, { metadataTypeId: null });
      expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
      expect((await org.admin.delete(path)).status).toBe(204);
    });

    it('takes turns with assignments: a deletion and an assignment at once never leave an object with a deleted type', async () => {
      const site = await createSite(org);
      const objects = await Promise.all(Array.from({ length: 4 }, () => asset(site, null)));
      for (let round = 0; round < 4; round += 1) {
        const type = await create();
        const [deleted, ...assigned] = await Promise.all([
          org.admin.delete(`/v1/metadata-types/${type.id}`),
          ...objects.map((id) => org.admin.patch(`/v1/twin/${site}/assets/${id}`, { metadataTypeId: type.id })),
        ]);
        const given = assigned.filter((answer) => answer.status === 200).length;
        if (deleted.status === 204) {
          // Every assignment that landed before the deletion would have made it 409.
          expect(given).toBe(0);
          for (const answer of assigned) expect(answer.body.message).toMatch(/body\.metadataTypeId: no metadata type/);
        } else {
          expect(deleted.status, JSON.stringify(deleted.body)).toBe(409);
          // It counted those that landed before it; others may land after the refusal.
          const used = Number(/used by (\d+) object/.exec(deleted.body.message)?.[1]);
          expect(used).toBeGreaterThan(0);
          expect(used).toBeLessThanOrEqual(given);
        }
        for (const id of objects) {
          const row = (await org.admin.get(`/v1/twin/${site}/assets/${id}`)).body;
          if (row.metadataTypeId !== null)
            expect((await org.admin.get(`/v1/metadata-types/${row.metadataTypeId}`)).status).toBe(200);
          await org.admin.patch(`/v1/twin/${site}/assets/${id}`, { metadataTypeId: null });
        }
      }
    });
  });

  it("answers another organization's type like a missing one: 404, and leaves it alone", async () => {
    const other = await createOrg(t);
    const foreign = await create(other.admin);
    for (const id of [foreign.id, randomUUID(), 'no-such-type']) {
      await refused(() => org.admin.get(`/v1/metadata-types/${id}`), 404, 'Not Found');
      await refused(() => org.admin.patch(`/v1/metadata-types/${id}`, { name: 'Taken over' }), 404, 'Not Found');
      await refused(() => org.admin.delete(`/v1/metadata-types/${id}`), 404, 'Not Found');
    }
    expect((await org.admin.get('/v1/metadata-types?limit=500')).body.map((row: { id: string }) => row.id)).not.toContain(
      foreign.id,
    );
    expect((await other.admin.get(`/v1/metadata-types/${foreign.id}`)).body).toEqual(foreign);
  });

  describe('paging', () => {
    let pager: OrgFixture;

    it('lists by name without regard to case, then id, by limit and offset', async () => {
      pager = await createOrg(t);
      for (const name of ['charlie', 'Bravo', 'alpha', 'Delta']) await create(pager.admin, pumpBody(name));
      const names = async (query: string) =>
        ((await pager.admin.get(`/v1/metadata-types${query}`)).body as { name: string }[]).map((row) => row.name);
      expect(await names('')).toEqual(['alpha', 'Bravo', 'charlie', 'Delta']);
      expect(await names('?limit=2')).toEqual(['alpha', 'Bravo']);
      expect(await names('?limit=2&offset=1')).toEqual(['Bravo', 'charlie']);
      expect(await names('?offset=3')).toEqual(['Delta']);
      expect(await names('?offset=4')).toEqual([]);
      // Above the largest page, a limit is clamped; it is no error.
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
        const response = await pager.admin.get(`/v1/metadata-types?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body).toMatchObject({ statusCode: 400, error: 'ValidationError' });
        expect(response.body.message, query).toMatch(message);
      }
    });
  });
});
