import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { twinObjectAccessTests } from '../support/access-matrix.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const identity = { x: 0, y: 0, z: 0, w: 1 };
const box = (x = 0) => ({ center: { x, y: 2, z: -3 }, size: { x: 1, y: 2.5, z: 1e5 }, rotation: identity });
const volume = { boxes: [box()] };
const full = {
  name: '  Tank T-7  ',
  description: 'Fuel, 40 m³',
  metadataTypeId: null,
  volume: {
    boxes: [
      box(1),
      { center: { x: -1e7, y: 1e7, z: 0 }, size: { x: 1e-6, y: 1, z: 1 }, rotation: { x: 0, y: 0, z: 0.6, w: 0.8 } },
    ],
  },
};

describe('assets: /v1/twin/{ctx}/assets', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    siteId = await createSite(org);
  });

  const refused = refuser(() => twinSnapshot(t, org));

  async function create(ctx: string, body: object = { name: 'A', volume }, owner: OrgFixture = org) {
    const response = await owner.admin.post(`/v1/twin/${ctx}/assets`, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  async function metadataType(appliesTo: string[], owner: OrgFixture = org) {
    const response = await owner.admin.post('/v1/metadata-types', { name: `T ${randomUUID()}`, appliesTo, properties: [] });
    expect(response.status).toBe(201);
    return response.body.id as string;
  }

  function expectUnit(rotation: { x: number; y: number; z: number; w: number }, expected: typeof identity) {
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

      it('creates one whole (201), reads it back, lists it; description and metadataTypeId default; asset.created', async () => {
        const created = await org.admin.post(`/v1/twin/${ctx}/assets`, full);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toEqual({
          id: expect.stringMatching(UUID),
          ...full,
          createdBy: org.adminServiceUserId,
          updatedBy: org.adminServiceUserId,
          createdAt: expect.any(String),
          updatedAt: created.body.createdAt,
        });
        expect((await org.admin.get(`/v1/twin/${ctx}/assets/${created.body.id}`)).body).toEqual(created.body);
        const bare = await create(ctx, { name: 'Bare', volume });
        expect(bare).toMatchObject({ name: 'Bare', description: '', metadataTypeId: null, volume });
        expect((await org.admin.get(`/v1/twin/${ctx}/assets`)).body).toEqual([created.body, bare]);
        expect((await org.admin.get(`/v1/twin/${ctx}/assets?limit=1&offset=1`)).body).toEqual([bare]);
        expect((await org.admin.get(`/v1/twin/${ctx}/assets?limit=1`)).body).toEqual([created.body]);
        for (const query of ['includeMetadata=true', 'includeMetaData=true']) {
          expect((await org.admin.get(`/v1/twin/${ctx}/assets/${bare.id}?${query}`)).body).toEqual({ ...bare, metadata: {} });
          expect((await org.admin.get(`/v1/twin/${ctx}/assets?${query}`)).body[1]).toEqual({ ...bare, metadata: {} });
        }
        expect((await org.admin.get(`/v1/twin/${ctx}/assets/${bare.id}?includeMetadata=false`)).body).toEqual(bare);
        const [event] = await auditOf(t, org, created.body.id);
        expect(event).toMatchObject({
          action: 'asset.created',
          target_type: 'asset',
          details: { name: full.name, draftId: through === 'draft' ? ctx : null },
        });
      });

      it('takes 64 boxes and sizes up to 1e5; stores a nearly unit rotation normalised', async () => {
        const many = await create(ctx, { name: 'Many', volume: { boxes: Array.from({ length: 64 }, (_, i) => box(i)) } });
        expect(many.volume.boxes).toHaveLength(64);
        const s = Math.SQRT1_2;
        const rough = { x: 0, y: 0, z: 0.7075, w: 0.7075 }; // norm 1.00056: within 1 ± 1e-3
        const created = await create(ctx, { name: 'Rough', volume: { boxes: [{ ...box(), rotation: rough }] } });
        expectUnit(created.volume.boxes[0].rotation, { x: 0, y: 0, z: s, w: s });
        const read = (await org.admin.get(`/v1/twin/${ctx}/assets/${created.id}`)).body;
        expect(read).toEqual(created);
        const patched = await org.admin.patch(`/v1/twin/${ctx}/assets/${created.id}`, {
          volume: { boxes: [box(), { ...box(5), rotation: { x: 0, y: 0, z: 0, w: 0.9991 } }] },
        });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        expect(patched.body.volume.boxes[0]).toEqual(box());
        expectUnit(patched.body.volume.boxes[1].rotation, identity);
        expect((await org.admin.get(`/v1/twin/${ctx}/assets/${created.id}`)).body).toEqual(patched.body);
      });

      it('changes any subset with PATCH; null clears metadataTypeId; updatedBy and updatedAt move', async () => {
        const typeId = await metadataType(['asset']);
        const created = await create(ctx, { ...full, metadataTypeId: typeId });
        const editor = await org.serviceClient({ roleName: 'Contributor' });
        t.clock.advance(1000);
        const patched = await editor.client.patch(`/v1/twin/${ctx}/assets/${created.id}`, {
          name: 'Renamed',
          metadataTypeId: null,
          volume,
        });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        expect(patched.body).toEqual({
          ...created,
          name: 'Renamed',
          metadataTypeId: null,
          volume,
          updatedBy: editor.userId,
          updatedAt: expect.any(String),
        });
        expect(patched.body.updatedAt > created.updatedAt).toBe(true);
        expect((await org.admin.get(`/v1/twin/${ctx}/assets/${created.id}`)).body).toEqual(patched.body);
        const described = await org.admin.patch(`/v1/twin/${ctx}/assets/${created.id}`, { description: '' });
        expect(described.body).toEqual({
          ...patched.body,
          description: '',
          updatedBy: org.adminServiceUserId,
          updatedAt: expect.any(String),
        });
        const events = await auditOf(t, org, created.id);
        expect(events[1]).toMatchObject({
          action: 'asset.updated',
          actor_id: editor.userId,
          details: { changed: ['name', 'metadataTypeId', 'volume'] },
        });
      });

      it('deletes one (204, asset.deleted); then it is 404 to every route', async () => {
        const created = await create(ctx);
        expect((await org.admin.delete(`/v1/twin/${ctx}/assets/${created.id}`)).status).toBe(204);
        expect((await auditOf(t, org, created.id)).map((e) => e.action)).toEqual(['asset.created', 'asset.deleted']);
        const path = `/v1/twin/${ctx}/assets/${created.id}`;
        await refused(() => org.admin.get(path), 404, 'Not Found');
        await refused(() => org.admin.patch(path, { name: 'Back' }), 404, 'Not Found');
        await refused(() => org.admin.delete(path), 404, 'Not Found');
        const ids = (await org.admin.get(`/v1/twin/${ctx}/assets?limit=500`)).body.map((a: { id: string }) => a.id);
        expect(ids).not.toContain(created.id);
      });

      it('refuses malformed bodies with 400 naming the field, storing nothing', async () => {
        const created = await create(ctx, full);
        const post = (body: unknown) => () => org.admin.post(`/v1/twin/${ctx}/assets`, body);
        const patch = (body: unknown) => () => org.admin.patch(`/v1/twin/${ctx}/assets/${created.id}`, body);
        const withBox = (changes: object) => ({ name: 'A', volume: { boxes: [box(), box(), { ...box(), ...changes }] } });
        const bad: [unknown, RegExp][] = [
          [{ name: 'A' }, /body: must have required property 'volume'/],
          [{ name: 'A', volume: {} }, /body\.volume: must have required property 'boxes'/],
          [{ name: 'A', volume: { boxes: [] } }, /body\.volume\.boxes: must NOT have fewer than 1 items/],
          [
            { name: 'A', volume: { boxes: Array.from({ length: 65 }, () => box()) } },
            /body\.volume\.boxes: must NOT have more than 64/,
          ],
          [{ name: 'A', volume: { boxes: [box()], extra: 1 } }, /body\.volume: unknown property "extra"/],
          [{ name: 'A', volume: [box()] }, /body\.volume/],
          [withBox({ size: { x: 0, y: 1, z: 1 } }), /body\.volume\.boxes\.2\.size\.x/],
          [withBox({ size: { x: 1, y: -1, z: 1 } }), /body\.volume\.boxes\.2\.size\.y/],
          [withBox({ size: { x: 1, y: 1, z: 1e5 + 1 } }), /body\.volume\.boxes\.2\.size\.z/],
          [withBox({ size: { x: 1, y: 1 } }), /body\.volume\.boxes\.2\.size/],
          [withBox({ center: { x: '1', y: 0, z: 0 } }), /body\.volume\.boxes\.2\.center\.x/],
          [withBox({ center: { x: 'NaN', y: 0, z: 0 } }), /body\.volume\.boxes\.2\.center\.x/],
          [withBox({ center: { x: 0, y: 1e7 + 1, z: 0 } }), /body\.volume\.boxes\.2\.center\.y/],
          [withBox({ center: { x: 0, y: 0, z: 0 }, extra: true }), /body\.volume\.boxes\.2: unknown property "extra"/],
          [withBox({ rotation: { x: 0, y: 0, z: 0 } }), /body\.volume\.boxes\.2\.rotation/],
          [withBox({ rotation: { ...identity, v: 0 } }), /body\.volume\.boxes\.2\.rotation: unknown property "v"/],
          [withBox({ rotation: { x: 0, y: 0, z: 0, w: '1' } }), /body\.volume\.boxes\.2\.rotation\.w/],
          [withBox({ rotation: { x: 0, y: 0, z: 0, w: 2 } }), /body\.volume\.boxes\.2\.rotation\.w/],
          // The norm rule: just beyond 1 ± 1e-3, far off, none at all.
          [withBox({ rotation: { x: 0.05, y: 0, z: 0, w: 0.9999 } }), /body\.volume\.boxes\.2\.rotation: the norm/], // 1.00115
          [withBox({ rotation: { x: 0, y: 0, z: 0, w: 0.9989 } }), /body\.volume\.boxes\.2\.rotation: the norm/],
          [withBox({ rotation: { x: 1, y: 1, z: 0, w: 0 } }), /body\.volume\.boxes\.2\.rotation: the norm/],
          [withBox({ rotation: { x: 0, y: 0, z: 0, w: 0 } }), /body\.volume\.boxes\.2\.rotation: the norm/],
          [{ name: 'A', volume, extra: true }, /body: unknown property "extra"/],
          [{ name: 'A', volume, zoneId: null }, /body: unknown property "zoneId"/],
          [{ name: '', volume }, /body\.name/],
          [{ name: 'x'.repeat(256), volume }, /body\.name/],
          [{ volume }, /name/],
          [{ name: 'A', volume, description: 'd'.repeat(10_001) }, /body\.description/],
          [{ name: 'A', volume, description: null }, /body\.description/],
          [{ name: 'A', volume, metadataTypeId: randomUUID() }, /body\.metadataTypeId/],
        ];
        for (const [body, field] of bad) await refused(post(body), 400, 'ValidationError', field);
        for (const raw of [
          '{"name":"A","volume":{"boxes":[{"center":{"x":NaN,"y":0,"z":0},"size":{"x":1,"y":1,"z":1},"rotation":{"x":0,"y":0,"z":0,"w":1}}]}}',
        ]) {
          await refused(
            () => org.admin.request('POST', `/v1/twin/${ctx}/assets`, raw, { 'content-type': 'application/json' }),
            400,
            'BadRequest',
          );
        }
        // 1e400 is valid JSON that parses to Infinity: out of every bound.
        await refused(
          () =>
            org.admin.request(
              'POST',
              `/v1/twin/${ctx}/assets`,
              '{"name":"A","volume":{"boxes":[{"center":{"x":0,"y":0,"z":0},"size":{"x":1e400,"y":1,"z":1},"rotation":{"x":0,"y":0,"z":0,"w":1}}]}}',
              { 'content-type': 'application/json' },
            ),
          400,
          'ValidationError',
          /body\.volume\.boxes\.0\.size\.x/,
        );
        for (const [body, field] of [
          [{}, /body/],
          [{ name: null }, /body\.name/],
          [{ volume: null }, /body\.volume/],
          [{ description: null }, /body\.description/],
          [{ volume: { boxes: [] } }, /body\.volume\.boxes/],
          [
            { volume: { boxes: [{ ...box(), rotation: { x: 0, y: 0, z: 0, w: 3e-3 } }] } },
            /body\.volume\.boxes\.0\.rotation: the norm/,
          ],
          [{ oops: 1 }, /body: unknown property "oops"/],
        ] as [unknown, RegExp][]) {
          await refused(patch(body), 400, 'ValidationError', field);
        }
        // A metadata type of another organization, or one that does not apply to assets.
        const other = await createOrg(t);
        for (const typeId of [await metadataType(['asset'], other), await metadataType(['pointOfInterest', 'zone'])]) {
          await refused(post({ name: 'A', volume, metadataTypeId: typeId }), 400, 'ValidationError', /body\.metadataTypeId/);
          await refused(patch({ metadataTypeId: typeId }), 400, 'ValidationError', /body\.metadataTypeId/);
        }
        expect((await org.admin.get(`/v1/twin/${ctx}/assets/${created.id}`)).body).toEqual(created);
      });

      it('takes a metadata type of the organization for assets', async () => {
        const typeId = await metadataType(['pointOfInterest', 'asset']);
        const created = await create(ctx, { name: 'Typed', volume, metadataTypeId: typeId });
        expect(created.metadataTypeId).toBe(typeId);
        const other = await create(ctx);
        const typed = await org.admin.patch(`/v1/twin/${ctx}/assets/${other.id}`, { metadataTypeId: typeId });
        expect(typed.body.metadataTypeId).toBe(typeId);
      });
    });
  }

  it('keeps a draft apart from the live twin until it is published; then the draft takes no writes', async () => {
    const site = await createSite(org);
    const kept = await create(site, { name: 'Kept', volume });
    const changed = await create(site, { name: 'Changed', volume });
    const removed = await create(site, { name: 'Removed', volume });
    const draft = await openDraft(org, site);
    const added = await create(draft.id, { name: 'Added', volume: full.volume });
    const edited = await org.admin.patch(`/v1/twin/${draft.id}/assets/${changed.id}`, {
      name: 'Changed in draft',
      volume: full.volume,
    });
    expect(edited.status).toBe(200);
    expect((await org.admin.delete(`/v1/twin/${draft.id}/assets/${removed.id}`)).status).toBe(204);

    // The live twin sees none of it; the draft sees its view.
    expect((await org.admin.get(`/v1/twin/${site}/assets`)).body).toEqual([kept, changed, removed]);
    await refused(() => org.admin.get(`/v1/twin/${site}/assets/${added.id}`), 404, 'Not Found');
    expect((await org.admin.get(`/v1/twin/${draft.id}/assets`)).body).toEqual([kept, edited.body, added]);
    await refused(() => org.admin.get(`/v1/twin/${draft.id}/assets/${removed.id}`), 404, 'Not Found');
    const changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    expect(changes.map((c: { objectType: string; kind: string }) => `${c.objectType}:${c.kind}`)).toEqual([
      'asset:added',
      'asset:modified',
      'asset:removed',
    ]);

    // A live change to a field the draft did not touch still shows through the draft.
    const described = await org.admin.patch(`/v1/twin/${site}/assets/${changed.id}`, { description: 'live' });
    expect(described.status).toBe(200);
    expect((await org.admin.get(`/v1/twin/${draft.id}/assets/${changed.id}`)).body).toMatchObject({
      name: 'Changed in draft',
      description: 'live',
      volume: full.volume,
    });

    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const live = (await org.admin.get(`/v1/twin/${site}/assets`)).body;
    expect(live.map((a: { name: string }) => a.name)).toEqual(['Kept', 'Changed in draft', 'Added']);
    expect(live[1]).toMatchObject({ id: changed.id, description: 'live', volume: full.volume, createdAt: changed.createdAt });
    expect(live[2]).toMatchObject({ id: added.id, volume: full.volume, createdAt: added.createdAt, createdBy: added.createdBy });

    await refused(() => org.admin.post(`/v1/twin/${draft.id}/assets`, { name: 'Late', volume }), 409, 'DraftNotOpen');
    await refused(() => org.admin.patch(`/v1/twin/${draft.id}/assets/${kept.id}`, { name: 'Late' }), 409, 'DraftNotOpen');
    await refused(() => org.admin.delete(`/v1/twin/${draft.id}/assets/${kept.id}`), 409, 'DraftNotOpen');
  });

  it('keeps assets and points of interest apart: one kind is 404 through the other routes', async () => {
    const asset = await create(siteId);
    const poi = (await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, { name: 'P', position: { x: 0, y: 0, z: 0 } }))
      .body;
    await refused(() => org.admin.get(`/v1/twin/${siteId}/assets/${poi.id}`), 404, 'Not Found');
    await refused(() => org.admin.patch(`/v1/twin/${siteId}/assets/${poi.id}`, { name: 'X' }), 404, 'Not Found');
    await refused(() => org.admin.delete(`/v1/twin/${siteId}/assets/${poi.id}`), 404, 'Not Found');
    await refused(() => org.admin.get(`/v1/twin/${siteId}/points-of-interest/${asset.id}`), 404, 'Not Found');
    const ids = (await org.admin.get(`/v1/twin/${siteId}/assets?limit=500`)).body.map((a: { id: string }) => a.id);
    expect(ids).toContain(asset.id);
    expect(ids).not.toContain(poi.id);
  });

  twinObjectAccessTests(
    {
      one: 'an asset',
      segment: 'assets',
      body: () => ({ name: 'A', volume }),
      patch: { name: 'A' },
      create: (owner, ctx) => create(ctx, { name: owner === org ? 'A' : 'F', volume }, owner),
    },
    () => ({ t, org, siteId }),
  );
});
