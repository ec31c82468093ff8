import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fillLibraryModelIds } from '../../src/adapters/db/migrations/regional-0020-model-assets.js';
import { LibraryModelRepository } from '../../src/adapters/db/repositories/library-model-repository.js';
import { twinObjectAccessTests } from '../support/access-matrix.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createLibraryModel, deleteLibraryModelRow, libraryWriter, setLibraryModelStatus } from '../support/library-models.js';
import { type TestPlatform, usingPostgres, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const identity = { x: 0, y: 0, z: 0, w: 1 };
const unitScale = { x: 1, y: 1, z: 1 };
const position = { x: 12, y: -4.5, z: 1 };
const NOT_READY = ['pendingUpload', 'processing', 'failed'] as const;

describe('model assets: /v1/twin/{ctx}/model-assets', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  let modelId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    siteId = await createSite(org);
    modelId = (await createLibraryModel(org)).id;
  });

  /** A model of the organization that is not ready: through the routes; `failed` as the worker leaves one it cannot convert. */
  async function modelIn(status: (typeof NOT_READY)[number]) {
    if (status !== 'failed') return createLibraryModel(org, { status });
    const model = await createLibraryModel(org, { status: 'processing' });
    await setLibraryModelStatus(t, org, model.id, 'failed');
    return model;
  }

  const refused = refuser(() => twinSnapshot(t, org));

  async function create(ctx: string, body: object = {}, owner: OrgFixture = org) {
    const response = await owner.admin.post(`/v1/twin/${ctx}/model-assets`, {
      libraryModelId: modelId,
      name: 'Pump',
      position,
      ...body,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  async function metadataType(appliesTo: string[], owner: OrgFixture = org, properties: object[] = []) {
    const response = await owner.admin.post('/v1/metadata-types', { name: `T ${randomUUID()}`, appliesTo, properties });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.id as string;
  }

  function expectUnit(rotation: typeof identity, expected: typeof identity) {
    expect(Math.hypot(rotation.x, rotation.y, rotation.z, rotation.w)).toBeCloseTo(1, 12);
    for (const axis of ['x', 'y', 'z', 'w'] as const) expect(rotation[axis]).toBeCloseTo(expected[axis], 12);
  }

  for (const through of ['live', 'draft'] as const) {
    describe(`through the ${through} twin`, () => {
      let ctx: string;
      beforeAll(async () => {
        const site = await createSite(org);
        ctx = through === 'live' ? site : (await openDraft(org, site)).id;
      });

      it('places a ready model (201) with rotation and scale defaulted; reads it back, lists it; model-asset.created', async () => {
        const whole = {
          libraryModelId: modelId,
          name: '  Pump P-101  ',
          position: { x: -1e7, y: 1e7, z: 0 },
          rotation: { x: 0, y: 0, z: 0.6, w: 0.8 },
          scale: { x: 1e-4, y: 1e4, z: 2.5 },
          metadataTypeId: null,
        };
        const created = await org.admin.post(`/v1/twin/${ctx}/model-assets`, whole);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toEqual({
          id: expect.stringMatching(UUID),
          ...whole,
          createdBy: org.adminServiceUserId,
          updatedBy: org.adminServiceUserId,
          createdAt: expect.any(String),
          updatedAt: created.body.createdAt,
        });
        expect((await org.admin.get(`/v1/twin/${ctx}/model-assets/${created.body.id}`)).body).toEqual(created.body);
        const bare = await create(ctx, { name: 'Bare' });
        expect(bare).toMatchObject({
          libraryModelId: modelId,
          position,
          rotation: identity,
          scale: unitScale,
          metadataTypeId: null,
        });
        expect((await org.admin.get(`/v1/twin/${ctx}/model-assets`)).body).toEqual([created.body, bare]);
        expect((await org.admin.get(`/v1/twin/${ctx}/model-assets?limit=1&offset=1`)).body).toEqual([bare]);
        for (const query of ['includeMetadata=true', 'includeMetaData=true']) {
          expect((await org.admin.get(`/v1/twin/${ctx}/model-assets/${bare.id}?${query}`)).body).toEqual({
            ...bare,
            metadata: {},
          });
          expect((await org.admin.get(`/v1/twin/${ctx}/model-assets?${query}`)).body[1]).toEqual({ ...bare, metadata: {} });
        }
        const [event] = await auditOf(t, org, created.body.id);
        expect(event).toMatchObject({
          action: 'model-asset.created',
          target_type: 'model-asset',
          details: { name: whole.name, siteId: expect.any(String), draftId: through === 'draft' ? ctx : null },
        });
      });

      it('stores a nearly unit rotation normalised, on create and on PATCH', async () => {
        const s = Math.SQRT1_2;
        const created = await create(ctx, { rotation: { x: 0, y: 0, z: 0.7075, w: 0.7075 } }); // norm 1.00056
        expectUnit(created.rotation, { x: 0, y: 0, z: s, w: s });
        expect((await org.admin.get(`/v1/twin/${ctx}/model-assets/${created.id}`)).body).toEqual(created);
        const patched = await org.admin.patch(`/v1/twin/${ctx}/model-assets/${created.id}`, {
          rotation: { x: 0, y: 0, z: 0, w: 0.9991 },
        });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        expectUnit(patched.body.rotation, identity);
      });

      it('changes any of position, rotation, scale, name, metadataTypeId and metadata with one PATCH', async () => {
        const typeId = await metadataType(['modelAsset'], org, [
          { section: 'Maintenance', name: 'Serial number', type: 'shortText', required: false },
          { section: 'Maintenance', name: 'Power', type: 'number', unit: 'kW', required: false },
        ]);
        const created = await create(ctx);
        const editor = await org.serviceClient({ roleName: 'Contributor' });
        t.clock.advance(1000);
        const changes = {
          name: 'Moved pump',
          position: { x: 1, y: 2, z: 3 },
          rotation: { x: 0, y: 1, z: 0, w: 0 },
          scale: { x: 2, y: 2, z: 0.5 },
          metadataTypeId: typeId,
          metadata: { Maintenance: { 'Serial number': 'SN-4711', Power: 7.5 } },
        };
        const patched = await editor.client.patch(`/v1/twin/${ctx}/model-assets/${created.id}`, changes);
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        const { metadata, ...fields } = changes;
        expect(patched.body).toEqual({ ...created, ...fields, updatedBy: editor.userId, updatedAt: expect.any(String) });
        expect(patched.body.updatedAt > created.updatedAt).toBe(true);
        const read = await org.admin.get(`/v1/twin/${ctx}/model-assets/${created.id}?includeMetadata=true`);
        expect(read.body).toEqual({ ...patched.body, metadata });
        // The object metadata routes see the same sections, of kind modelAsset.
        const objectPath = `/v1/twin/${ctx}/object/${created.id}/metadata`;
        expect((await org.admin.get(objectPath)).body).toMatchObject({
          objectType: 'modelAsset',
          metadataTypeId: typeId,
          sections: metadata,
        });
        const merged = await org.admin.patch(objectPath, { sections: { Maintenance: { Power: null } } });
        expect(merged.status, JSON.stringify(merged.body)).toBe(200);
        expect(merged.body.sections).toEqual({ Maintenance: { 'Serial number': 'SN-4711' } });
        // A metadata PATCH merges; null clears metadataTypeId and with it the sections.
        const again = await org.admin.patch(`/v1/twin/${ctx}/model-assets/${created.id}`, {
          metadata: { Maintenance: { Power: 3 } },
        });
        expect(again.status, JSON.stringify(again.body)).toBe(200);
        expect((await org.admin.get(objectPath)).body.sections).toEqual({
          Maintenance: { 'Serial number': 'SN-4711', Power: 3 },
        });
        const cleared = await org.admin.patch(`/v1/twin/${ctx}/model-assets/${created.id}`, { metadataTypeId: null });
        expect(cleared.body.metadataTypeId).toBeNull();
        expect((await org.admin.get(objectPath)).body.sections).toEqual({});
        const events = await auditOf(t, org, created.id);
        expect(events.map((event) => event.action)).toEqual([
          'model-asset.created',
          'model-asset.updated',
          'model-asset.metadata-updated',
          'model-asset.updated',
          'model-asset.updated',
        ]);
        expect(events[1]).toMatchObject({ actor_id: editor.userId, details: { changed: Object.keys(changes) } });
        expect(events[4]).toMatchObject({ details: { changed: ['metadataTypeId'], metadataCleared: true } });
      });

      it('takes free metadata without a type; a type given later keeps what fits, refuses or drops the rest', async () => {
        const created = await create(ctx);
        const path = `/v1/twin/${ctx}/model-assets/${created.id}`;
        const objectPath = `/v1/twin/${ctx}/object/${created.id}/metadata`;
        const free = { Maintenance: { Power: 5, Vendor: 'ACME' }, Notes: { Checked: true } };
        const freed = await org.admin.patch(path, { metadata: free });
        expect(freed.status, JSON.stringify(freed.body)).toBe(200);
        expect((await org.admin.get(objectPath)).body).toMatchObject({ metadataTypeId: null, sections: free });
        const typeId = await metadataType(['modelAsset'], org, [
          { section: 'Maintenance', name: 'Power', type: 'number', unit: 'kW', required: false },
          { section: 'Maintenance', name: 'Serial', type: 'shortText', required: false },
        ]);
        const answer = await refused(
          () => org.admin.patch(path, { metadataTypeId: typeId, metadata: { Maintenance: { Serial: 'SN-1' } } }),
          400,
          'ValidationError',
          /body\.metadataTypeId: 2 of the object's metadata properties do not fit/,
        );
        expect(answer.body.message).toMatch(/sections\.Maintenance\.Vendor: is not a property.*sections\.Notes\.Checked/);
        // Dropped, then the same PATCH's metadata merges into what the type kept.
        const typed = await org.admin.patch(path, {
          metadataTypeId: typeId,
          metadata: { Maintenance: { Serial: 'SN-1' } },
          dropUnfitting: true,
        });
        expect(typed.status, JSON.stringify(typed.body)).toBe(200);
        expect((await org.admin.get(objectPath)).body).toMatchObject({
          metadataTypeId: typeId,
          sections: { Maintenance: { Power: 5, Serial: 'SN-1' } },
        });
        expect((await auditOf(t, org, created.id)).at(-1)).toMatchObject({
          action: 'model-asset.updated',
          details: {
            changed: ['metadataTypeId', 'metadata'],
            metadataDropped: ['sections.Maintenance.Vendor', 'sections.Notes.Checked'],
          },
        });
      });

      it('deletes one (204, model-asset.deleted); then it is 404 to every route', async () => {
        const created = await create(ctx);
        const path = `/v1/twin/${ctx}/model-assets/${created.id}`;
        expect((await org.admin.delete(path)).status).toBe(204);
        expect((await auditOf(t, org, created.id)).map((e) => e.action)).toEqual(['model-asset.created', 'model-asset.deleted']);
        await refused(() => org.admin.get(path), 404, 'Not Found');
        await refused(() => org.admin.patch(path, { name: 'Back' }), 404, 'Not Found');
        await refused(() => org.admin.delete(path), 404, 'Not Found');
        await refused(() => org.admin.get(`/v1/twin/${ctx}/object/${created.id}/metadata`), 404, 'Not Found');
        const ids = (await org.admin.get(`/v1/twin/${ctx}/model-assets?limit=500`)).body.map((a: { id: string }) => a.id);
        expect(ids).not.toContain(created.id);
      });

      it('refuses malformed bodies with 400 naming the field, storing nothing', async () => {
        const created = await create(ctx);
        const base = { libraryModelId: modelId, name: 'A', position };
        const post = (body: unknown) => () => org.admin.post(`/v1/twin/${ctx}/model-assets`, body);
        const patch = (body: unknown) => () => org.admin.patch(`/v1/twin/${ctx}/model-assets/${created.id}`, body);
        const bad: [unknown, RegExp][] = [
          [{ libraryModelId: modelId, name: 'A' }, /body: must have required property 'position'/],
          [{ name: 'A', position }, /body: must have required property 'libraryModelId'/],
          [{ libraryModelId: modelId, position }, /body: must have required property 'name'/],
          [{ ...base, position: { x: 'NaN', y: 0, z: 0 } }, /body\.position\.x/],
          [{ ...base, position: { x: 0, y: '1', z: 0 } }, /body\.position\.y/],
          [{ ...base, position: { x: 0, y: 0 } }, /body\.position: must have required property 'z'/],
          [{ ...base, position: { x: 0, y: 0, z: 1e7 + 1 } }, /body\.position\.z/],
          [{ ...base, position: { ...position, w: 1 } }, /body\.position: unknown property "w"/],
          [{ ...base, extra: true }, /body: unknown property "extra"/],
          [{ ...base, description: 'd' }, /body: unknown property "description"/],
          [{ ...base, scale: { x: 0, y: 1, z: 1 } }, /body\.scale\.x/],
          [{ ...base, scale: { x: 1, y: 9.9e-5, z: 1 } }, /body\.scale\.y/],
          [{ ...base, scale: { x: 1, y: 1, z: 1e4 + 1 } }, /body\.scale\.z/],
          [{ ...base, scale: { x: -1, y: 1, z: 1 } }, /body\.scale\.x/],
          [{ ...base, scale: { x: 1, y: 1 } }, /body\.scale/],
          [{ ...base, scale: 2 }, /body\.scale/],
          [{ ...base, rotation: { x: 0, y: 0, z: 0 } }, /body\.rotation/],
          [{ ...base, rotation: { x: 0, y: 0, z: 0, w: '1' } }, /body\.rotation\.w/],
          [{ ...base, rotation: { x: 0.05, y: 0, z: 0, w: 0.9999 } }, /body\.rotation: the norm/], // 1.00115
          [{ ...base, rotation: { x: 0, y: 0, z: 0, w: 0.9989 } }, /body\.rotation: the norm/],
          [{ ...base, rotation: { x: 0, y: 0, z: 0, w: 0 } }, /body\.rotation: the norm/],
          [{ ...base, rotation: { x: 1, y: 1, z: 0, w: 0 } }, /body\.rotation: the norm/],
          [{ ...base, name: '' }, /body\.name/],
          [{ ...base, name: 'x'.repeat(256) }, /body\.name/],
          [{ ...base, libraryModelId: '' }, /body\.libraryModelId/],
          [{ ...base, metadataTypeId: randomUUID() }, /body\.metadataTypeId/],
          [{ ...base, metadata: {} }, /body: unknown property "metadata"/],
        ];
        for (const [body, field] of bad) await refused(post(body), 400, 'ValidationError', field);
        // NaN is no JSON: the body is refused before any field is read.
        await refused(
          () =>
            org.admin.request(
              'POST',
              `/v1/twin/${ctx}/model-assets`,
              `{"libraryModelId":"${modelId}","name":"A","position":{"x":NaN,"y":0,"z":0}}`,
              {
                'content-type': 'application/json',
              },
            ),
          400,
          'BadRequest',
        );
        // 1e400 is valid JSON that parses to Infinity: out of every bound.
        await refused(
          () =>
            org.admin.request(
              'POST',
              `/v1/twin/${ctx}/model-assets`,
              `{"libraryModelId":"${modelId}","name":"A","position":{"x":1e400,"y":0,"z":0}}`,
              {
                'content-type': 'application/json',
              },
            ),
          400,
          'ValidationError',
          /body\.position\.x/,
        );
        const typeId = await metadataType(['modelAsset'], org, [{ section: 'S', name: 'N', type: 'number', required: false }]);
        for (const [body, field] of [
          [{}, /body/],
          [{ name: null }, /body\.name/],
          [{ position: null }, /body\.position/],
          [{ rotation: null }, /body\.rotation/],
          [{ scale: null }, /body\.scale/],
          [{ scale: { x: 1, y: 1, z: 0 } }, /body\.scale\.z/],
          [{ position: { x: 'a', y: 0, z: 0 } }, /body\.position\.x/],
          [{ rotation: { x: 0, y: 0, z: 0, w: 3e-3 } }, /body\.rotation: the norm/],
          [{ libraryModelId: modelId }, /body: unknown property "libraryModelId"/],
          [{ description: '' }, /body: unknown property "description"/],
          // Without a type, metadata is free: only its shapes are refused.
          [{ metadata: { S: { N: [1] } } }, /body\.metadata\.S\.N: must be a string, a number/],
          [{ dropUnfitting: 'yes' }, /body\.dropUnfitting/],
          [{ metadataTypeId: typeId, metadata: { S: { N: 'one' } } }, /body\.metadata\.S\.N/],
          [{ metadataTypeId: typeId, metadata: { S: { Unknown: 1 } } }, /body\.metadata\.S\.Unknown/],
        ] as [unknown, RegExp][]) {
          await refused(patch(body), 400, 'ValidationError', field);
        }
        // A metadata type of another organization, or one that does not apply to model assets.
        const other = await createOrg(t);
        for (const typeId of [
          await metadataType(['modelAsset'], other),
          await metadataType(['asset', 'pointOfInterest', 'zone']),
        ]) {
          await refused(post({ ...base, metadataTypeId: typeId }), 400, 'ValidationError', /body\.metadataTypeId/);
          await refused(patch({ metadataTypeId: typeId }), 400, 'ValidationError', /body\.metadataTypeId/);
        }
        expect((await org.admin.get(`/v1/twin/${ctx}/model-assets/${created.id}`)).body).toEqual(created);
      });

      it("refuses another organization's model or none (404) and a model that is not ready (409), storing nothing", async () => {
        const other = await createOrg(t);
        const foreign = await createLibraryModel(other);
        const post = (libraryModelId: string) => () =>
          org.admin.post(`/v1/twin/${ctx}/model-assets`, { libraryModelId, name: 'A', position });
        await refused(post(foreign.id), 404, 'Not Found', /Library model not found/);
        await refused(post(randomUUID()), 404, 'Not Found', /Library model not found/);
        for (const status of NOT_READY) {
          const model = await modelIn(status);
          await refused(post(model.id), 409, 'LibraryModelNotReady', new RegExp(`status is ${status}`));
          // Once ready, the same model is placed.
          await setLibraryModelStatus(t, org, model.id, 'ready');
          expect((await create(ctx, { libraryModelId: model.id })).libraryModelId).toBe(model.id);
        }
      });
    });
  }

  it('keeps a draft apart from the live twin until it is published; then the draft takes no writes', async () => {
    const site = await createSite(org);
    const kept = await create(site, { name: 'Kept' });
    const moved = await create(site, { name: 'Moved' });
    const removed = await create(site, { name: 'Removed' });
    const draft = await openDraft(org, site);
    const added = await create(draft.id, { name: 'Added', scale: { x: 3, y: 3, z: 3 } });
    const edited = await org.admin.patch(`/v1/twin/${draft.id}/model-assets/${moved.id}`, { position: { x: 100, y: 0, z: 0 } });
    expect(edited.status).toBe(200);
    expect((await org.admin.delete(`/v1/twin/${draft.id}/model-assets/${removed.id}`)).status).toBe(204);

    expect((await org.admin.get(`/v1/twin/${site}/model-assets`)).body).toEqual([kept, moved, removed]);
    await refused(() => org.admin.get(`/v1/twin/${site}/model-assets/${added.id}`), 404, 'Not Found');
    expect((await org.admin.get(`/v1/twin/${draft.id}/model-assets`)).body).toEqual([kept, edited.body, added]);
    await refused(() => org.admin.get(`/v1/twin/${draft.id}/model-assets/${removed.id}`), 404, 'Not Found');
    const changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    expect(changes.map((c: { objectType: string; kind: string }) => `${c.objectType}:${c.kind}`)).toEqual([
      'modelAsset:added',
      'modelAsset:modified',
      'modelAsset:removed',
    ]);
    // A live change to a field the draft did not touch still shows through the draft.
    expect((await org.admin.patch(`/v1/twin/${site}/model-assets/${moved.id}`, { name: 'Renamed live' })).status).toBe(200);
    expect((await org.admin.get(`/v1/twin/${draft.id}/model-assets/${moved.id}`)).body).toMatchObject({
      name: 'Renamed live',
      position: { x: 100, y: 0, z: 0 },
    });

    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const live = (await org.admin.get(`/v1/twin/${site}/model-assets`)).body;
    expect(live.map((a: { name: string }) => a.name)).toEqual(['Kept', 'Renamed live', 'Added']);
    expect(live[1]).toMatchObject({ id: moved.id, position: { x: 100, y: 0, z: 0 }, createdAt: moved.createdAt });
    expect(live[2]).toMatchObject({
      id: added.id,
      libraryModelId: modelId,
      scale: { x: 3, y: 3, z: 3 },
      createdAt: added.createdAt,
    });
    const row = await t.platform.regions[org.region].store.db
      .selectFrom('twin_objects')
      .select(['library_model_id', 'body'])
      .where('id', '=', added.id)
      .executeTakeFirstOrThrow();
    expect(row.library_model_id).toBe(modelId);
    expect(JSON.parse(row.body)).not.toHaveProperty('libraryModelId');

    await refused(
      () => org.admin.post(`/v1/twin/${draft.id}/model-assets`, { libraryModelId: modelId, name: 'Late', position }),
      409,
      'DraftNotOpen',
    );
    await refused(() => org.admin.patch(`/v1/twin/${draft.id}/model-assets/${kept.id}`, { name: 'Late' }), 409, 'DraftNotOpen');
    await refused(() => org.admin.delete(`/v1/twin/${draft.id}/model-assets/${kept.id}`), 409, 'DraftNotOpen');
  });

  it('refuses a publish whose added model asset names a model deleted or not ready meanwhile (409), publishing nothing', async () => {
    for (const [what, change, error] of [
      ...NOT_READY.map(
        (status) => [status, (id: string) => setLibraryModelStatus(t, org, id, status), 'LibraryModelNotReady'] as const,
      ),
      ['deleted', (id: string) => deleteLibraryModelRow(t, org, id), 'LibraryModelDeleted'] as const,
    ]) {
      const site = await createSite(org);
      const live = await create(site, { name: 'Live' });
      const model = await createLibraryModel(org);
      const draft = await openDraft(org, site);
      const added = await create(draft.id, { libraryModelId: model.id, name: `Added, then ${what}` });
      await org.admin.patch(`/v1/twin/${draft.id}/model-assets/${live.id}`, { name: 'Changed in draft' });
      await change(model.id);
      const response = await refused(() => org.admin.post(`/v1/twin/${draft.id}/publish`, {}), 409, error, new RegExp(model.id));
      expect(response.body.message).toMatch(/Change [0-9a-f-]{36} places library model/);
      expect((await org.admin.get(`/v1/twin/${site}/model-assets`)).body.map((a: { name: string }) => a.name)).toEqual(['Live']);
      expect((await org.admin.get(`/v1/twin/${site}/drafts`)).body[0].status).toBe('open');
      // Without that placement (deleted from the draft), the rest publishes.
      expect((await org.admin.delete(`/v1/twin/${draft.id}/model-assets/${added.id}`)).status).toBe(204);
      expect((await org.admin.post(`/v1/twin/${draft.id}/publish`, {})).status).toBe(200);
      expect((await org.admin.get(`/v1/twin/${site}/model-assets`)).body.map((a: { name: string }) => a.name)).toEqual([
        'Changed in draft',
      ]);
    }
  });

  it("counts a model's placements: live ones and open drafts' added ones, each object once", async () => {
    const repository = new LibraryModelRepository(
      t.platform.regions[org.region].store.db,
      t.platform.regions[org.region].store.dialect,
    );
    const model = await createLibraryModel(org, { name: 'Counted' });
    const unplaced = await createLibraryModel(org, { name: 'Unplaced' });
    expect(await repository.countPlacements(org.orgId, model.id)).toBe(0);
    const site = await createSite(org);
    const one = await create(site, { libraryModelId: model.id });
    await create(site, { libraryModelId: model.id });
    expect(await repository.countPlacements(org.orgId, model.id)).toBe(2);
    const draft = await openDraft(org, site);
    await create(draft.id, { libraryModelId: model.id });
    await org.admin.patch(`/v1/twin/${draft.id}/model-assets/${one.id}`, { name: 'Modified in draft' });
    expect(await repository.countPlacements(org.orgId, model.id)).toBe(3);
    // A discarded draft's placements will never be published.
    const discarded = await openDraft(org, site);
    await create(discarded.id, { libraryModelId: model.id });
    expect(await repository.countPlacements(org.orgId, model.id)).toBe(4);
    expect((await org.admin.post(`/v1/twin/${discarded.id}/discard`, {})).status).toBe(200);
    expect(await repository.countPlacements(org.orgId, model.id)).toBe(3);
    // A placement only a draft removes is still live.
    const removing = await openDraft(org, site);
    expect((await org.admin.delete(`/v1/twin/${removing.id}/model-assets/${one.id}`)).status).toBe(204);
    expect(await repository.countPlacements(org.orgId, model.id)).toBe(3);
    expect(await repository.countPlacements(org.orgId, unplaced.id)).toBe(0);
    const other = await createOrg(t);
    expect(await repository.countPlacements(other.orgId, model.id)).toBe(0);
    // Deleted live: one fewer, though a draft still modifies it (its publish would skip that change).
    expect((await org.admin.delete(`/v1/twin/${site}/model-assets/${one.id}`)).status).toBe(204);
    expect(await repository.countPlacements(org.orgId, model.id)).toBe(2);
  });

  it('refuses to delete a placed library model (409 LibraryModelInUse, nothing changed) until its model assets are gone', async () => {
    const writer = await libraryWriter(org);
    const db = t.platform.regions[org.region].store.db;
    const modelRow = (id: string) => db.selectFrom('library_models').selectAll().where('id', '=', id).executeTakeFirst();
    const model = await createLibraryModel(org, { name: 'Placed' });
    const site = await createSite(org);
    const live = await create(site, { libraryModelId: model.id });
    const draft = await openDraft(org, site);
    const drafted = await create(draft.id, { libraryModelId: model.id });
    const before = await modelRow(model.id);
    const refusal = async (count: number) => {
      const response = await writer.delete(`/v1/asset-library/models/${model.id}`);
      expect(response.status, JSON.stringify(response.body)).toBe(409);
      expect(response.body).toMatchObject({ error: 'LibraryModelInUse' });
      expect(response.body.message).toContain(`placed ${count} time`);
      expect(await modelRow(model.id)).toEqual(before);
    };
    await refusal(2);
    // The live placement gone, the open draft's still holds it; a discarded draft does not.
    expect((await org.admin.delete(`/v1/twin/${site}/model-assets/${live.id}`)).status).toBe(204);
    await refusal(1);
    expect((await org.admin.post(`/v1/twin/${draft.id}/discard`, {})).status).toBe(200);
    expect(drafted.libraryModelId).toBe(model.id);
    expect((await writer.delete(`/v1/asset-library/models/${model.id}`)).status).toBe(204);
    expect(await modelRow(model.id)).toBeUndefined();
    // Gone: placing it again is 404.
    await refused(
      () => org.admin.post(`/v1/twin/${site}/model-assets`, { libraryModelId: model.id, name: 'Again', position }),
      404,
      'Not Found',
    );
  });

  it('migration 0020 fills library_model_id from the JSON of rows and changes written before it', async () => {
    const { db, dialect } = t.platform.regions[org.region].store;
    const site = await createSite(org);
    const live = await create(site);
    const draft = await openDraft(org, site);
    const added = await create(draft.id, { name: 'Added' });
    expect((await org.admin.patch(`/v1/twin/${draft.id}/model-assets/${live.id}`, { name: 'Modified' })).status).toBe(200);
    const poi = (await org.admin.post(`/v1/twin/${site}/points-of-interest`, { name: 'P', position })).body;
    // As written before the column: the id in the JSON only (the body gets it back for the old rows).
    const body = JSON.parse(
      (await db.selectFrom('twin_objects').select('body').where('id', '=', live.id).executeTakeFirstOrThrow()).body,
    );
    await db
      .updateTable('twin_objects')
      .set({ library_model_id: null, body: JSON.stringify({ ...body, libraryModelId: modelId }) })
      .where('id', '=', live.id)
      .execute();
    await db.updateTable('twin_draft_changes').set({ library_model_id: null }).where('draft_id', '=', draft.id).execute();
    await fillLibraryModelIds(db, dialect);
    const objects = await db.selectFrom('twin_objects').select(['id', 'library_model_id']).where('site_id', '=', site).execute();
    expect(Object.fromEntries(objects.map((row) => [row.id, row.library_model_id]))).toEqual({
      [live.id]: modelId,
      [poi.id]: null,
    });
    const changes = await db
      .selectFrom('twin_draft_changes')
      .select(['object_id', 'library_model_id'])
      .where('draft_id', '=', draft.id)
      .execute();
    expect(Object.fromEntries(changes.map((row) => [row.object_id, row.library_model_id]))).toEqual({
      [added.id]: modelId,
      [live.id]: modelId,
    });
  });

  // SQLite runs one write at a time; on PostgreSQL the model's row orders them.
  it.runIf(usingPostgres)("a placement waits for a deletion holding the model's row, then finds no model (404)", async () => {
    const site = await createSite(org);
    const model = await createLibraryModel(org, { name: 'Being deleted' });
    const { db, dialect } = t.platform.regions[org.region].store;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // What the library's delete is to do: the model's row FOR UPDATE, then count, then delete.
    const deletion = db.transaction().execute(async (tx) => {
      await tx.selectFrom('library_models').select('id').where('id', '=', model.id).forUpdate().execute();
      holding();
      await released;
      const placements = await new LibraryModelRepository(db, dialect).countPlacements(org.orgId, model.id, tx);
      if (placements === 0) await tx.deleteFrom('library_models').where('id', '=', model.id).execute();
      return placements;
    });
    await held;
    const placing = org.admin.post(`/v1/twin/${site}/model-assets`, { libraryModelId: model.id, name: 'Late', position });
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    expect(await deletion).toBe(0);
    const response = await placing;
    expect(response.status, JSON.stringify(response.body)).toBe(404);
    expect((await org.admin.get(`/v1/twin/${site}/model-assets`)).body).toEqual([]);
  });

  it('keeps model assets and the other kinds apart: one kind is 404 through the other routes', async () => {
    const placed = await create(siteId);
    const poi = (await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, { name: 'P', position })).body;
    await refused(() => org.admin.get(`/v1/twin/${siteId}/model-assets/${poi.id}`), 404, 'Not Found');
    await refused(() => org.admin.patch(`/v1/twin/${siteId}/model-assets/${poi.id}`, { name: 'X' }), 404, 'Not Found');
    await refused(() => org.admin.delete(`/v1/twin/${siteId}/model-assets/${poi.id}`), 404, 'Not Found');
    for (const route of ['points-of-interest', 'assets', 'zones']) {
      await refused(() => org.admin.get(`/v1/twin/${siteId}/${route}/${placed.id}`), 404, 'Not Found');
    }
    const ids = (await org.admin.get(`/v1/twin/${siteId}/model-assets?limit=500`)).body.map((a: { id: string }) => a.id);
    expect(ids).toContain(placed.id);
    expect(ids).not.toContain(poi.id);
    const pois = (await org.admin.get(`/v1/twin/${siteId}/points-of-interest?limit=500`)).body.map((a: { id: string }) => a.id);
    expect(pois).not.toContain(placed.id);
    // Points of interest and assets answer no libraryModelId.
    expect(poi).not.toHaveProperty('libraryModelId');
  });

  twinObjectAccessTests(
    {
      one: 'a model asset',
      segment: 'model-assets',
      body: () => ({ libraryModelId: modelId, name: 'A', position }),
      patch: { name: 'A' },
      // Another organization's placement places a model of its own library.
      create: async (owner, ctx) =>
        owner === org ? create(ctx) : create(ctx, { libraryModelId: (await createLibraryModel(owner)).id }, owner),
    },
    () => ({ t, org, siteId }),
  );
});
