import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { twinObjectAccessTests } from '../support/access-matrix.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const position = { x: 1.5, y: -2, z: 3 };
const full = {
  name: '  Pump P-101  ',
  description: 'Check monthly',
  position,
  normal: { x: 0, y: 0, z: 1 },
  viewpoint: { position: { x: 10, y: 10, z: 5 }, target: position, fov: 60 },
  color: '#A0b1C2',
  icon: 'pump-2',
  zoneId: null,
  metadataTypeId: null,
};

describe('points of interest: /v1/twin/{ctx}/points-of-interest', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    siteId = await createSite(org);
  });

  const refused = refuser(() => twinSnapshot(t, org));

  async function create(ctx: string, body: object = { name: 'P', position }, owner: OrgFixture = org) {
    const response = await owner.admin.post(`/v1/twin/${ctx}/points-of-interest`, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  async function metadataType(appliesTo: string[], owner: OrgFixture = org) {
    const response = await owner.admin.post('/v1/metadata-types', { name: `T ${randomUUID()}`, appliesTo, properties: [] });
    expect(response.status).toBe(201);
    return response.body.id as string;
  }

  for (const through of ['live', 'draft'] as const) {
    describe(`through the ${through} twin`, () => {
      let ctx: string;
      beforeAll(async () => {
        const site = await createSite(org);
        ctx = through === 'live' ? site : (await openDraft(org, site)).id;
      });

      it('creates one whole (201), reads it back, lists it; optional fields default to null; point-of-interest.created', async () => {
        const created = await org.admin.post(`/v1/twin/${ctx}/points-of-interest`, full);
        expect(created.status).toBe(201);
        expect(created.body).toEqual({
          id: expect.stringMatching(UUID),
          ...full,
          createdBy: org.adminServiceUserId,
          updatedBy: org.adminServiceUserId,
          createdAt: expect.any(String),
          updatedAt: created.body.createdAt,
        });
        expect((await org.admin.get(`/v1/twin/${ctx}/points-of-interest/${created.body.id}`)).body).toEqual(created.body);
        const bare = await create(ctx, { name: 'Bare', position });
        expect(bare).toMatchObject({
          description: '',
          normal: null,
          viewpoint: null,
          color: null,
          icon: null,
          zoneId: null,
          metadataTypeId: null,
        });
        expect((await org.admin.get(`/v1/twin/${ctx}/points-of-interest`)).body).toEqual([created.body, bare]);
        expect((await org.admin.get(`/v1/twin/${ctx}/points-of-interest?limit=1&offset=1`)).body).toEqual([bare]);
        for (const query of ['includeMetadata=true', 'includeMetaData=true']) {
          expect((await org.admin.get(`/v1/twin/${ctx}/points-of-interest/${bare.id}?${query}`)).body).toEqual({
            ...bare,
            metadata: {},
          });
          expect((await org.admin.get(`/v1/twin/${ctx}/points-of-interest?${query}`)).body[1]).toEqual({ ...bare, metadata: {} });
        }
        const [event] = await auditOf(t, org, created.body.id);
        expect(event).toMatchObject({
          action: 'point-of-interest.created',
          target_type: 'point-of-interest',
          details: { name: full.name, draftId: through === 'draft' ? ctx : null },
        });
      });

      it('changes any subset with PATCH; null clears an optional field; updatedBy and updatedAt move', async () => {
        const created = await create(ctx, full);
        const editor = await org.serviceClient({ roleName: 'Contributor' });
        t.clock.advance(1000);
        const patched = await editor.client.patch(`/v1/twin/${ctx}/points-of-interest/${created.id}`, {
          name: 'Renamed',
          color: null,
          viewpoint: null,
          position: { x: -1e7, y: 1e7, z: 0 },
        });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        expect(patched.body).toEqual({
          ...created,
          name: 'Renamed',
          color: null,
          viewpoint: null,
          position: { x: -1e7, y: 1e7, z: 0 },
          updatedBy: editor.userId,
          updatedAt: expect.any(String),
        });
        expect(patched.body.updatedAt > created.updatedAt).toBe(true);
        expect((await org.admin.get(`/v1/twin/${ctx}/points-of-interest/${created.id}`)).body).toEqual(patched.body);
        const events = await auditOf(t, org, created.id);
        expect(events[1]).toMatchObject({
          action: 'point-of-interest.updated',
          actor_id: editor.userId,
          details: { changed: ['name', 'color', 'viewpoint', 'position'] },
        });
      });

      it('deletes one (204, point-of-interest.deleted); then it is 404 to every route', async () => {
        const created = await create(ctx);
        expect((await org.admin.delete(`/v1/twin/${ctx}/points-of-interest/${created.id}`)).status).toBe(204);
        expect((await auditOf(t, org, created.id)).map((e) => e.action)).toEqual([
          'point-of-interest.created',
          'point-of-interest.deleted',
        ]);
        const path = `/v1/twin/${ctx}/points-of-interest/${created.id}`;
        await refused(() => org.admin.get(path), 404, 'Not Found');
        await refused(() => org.admin.patch(path, { name: 'Back' }), 404, 'Not Found');
        await refused(() => org.admin.delete(path), 404, 'Not Found');
        const ids = (await org.admin.get(`/v1/twin/${ctx}/points-of-interest?limit=500`)).body.map((p: { id: string }) => p.id);
        expect(ids).not.toContain(created.id);
      });

      it('refuses malformed bodies with 400 naming the field, storing nothing', async () => {
        const created = await create(ctx, full);
        const post = (body: unknown) => () => org.admin.post(`/v1/twin/${ctx}/points-of-interest`, body);
        const patch = (body: unknown) => () => org.admin.patch(`/v1/twin/${ctx}/points-of-interest/${created.id}`, body);
        const bad: [unknown, RegExp][] = [
          [{ name: 'P' }, /position/],
          [{ name: 'P', position: { x: '1', y: 0, z: 0 } }, /x/],
          [{ name: 'P', position: { x: 1, y: 0 } }, /z/],
          [{ name: 'P', position: { x: 1e7 + 1, y: 0, z: 0 } }, /x/],
          [{ name: 'P', position: { x: 0, y: -1e7 - 1, z: 0 } }, /y/],
          [{ name: 'P', position: { x: 0, y: 0, z: 0, w: 1 } }, /position/],
          [{ name: 'P', position, extra: true }, /extra|additional/],
          [{ name: '', position }, /name/],
          [{ name: 'x'.repeat(256), position }, /name/],
          [{ position }, /name/],
          [{ name: 'P', position, description: 'd'.repeat(10_001) }, /description/],
          [{ name: 'P', position, color: '#12345' }, /color/],
          [{ name: 'P', position, color: 'red' }, /color/],
          [{ name: 'P', position, icon: 'Pump' }, /icon/],
          [{ name: 'P', position, icon: 'a'.repeat(65) }, /icon/],
          [{ name: 'P', position, normal: { x: 0, y: 0 } }, /normal/],
          [{ name: 'P', position, viewpoint: { position } }, /viewpoint/],
          [{ name: 'P', position, viewpoint: { position, target: position, fov: 0 } }, /fov/],
          [{ name: 'P', position, viewpoint: { position, target: position, fov: 180 } }, /fov/],
          [{ name: 'P', position, zoneId: randomUUID() }, /zoneId/],
          [{ name: 'P', position, metadataTypeId: randomUUID() }, /metadataTypeId/],
        ];
        for (const [body, field] of bad) await refused(post(body), 400, 'ValidationError', field);
        await refused(
          () =>
            org.admin.request('POST', `/v1/twin/${ctx}/points-of-interest`, '{"name":"P","position":{"x":NaN,"y":0,"z":0}}', {
              'content-type': 'application/json',
            }),
          400,
          'BadRequest',
        );
        for (const body of [
          {},
          { name: null },
          { position: null },
          { description: null },
          { zoneId: randomUUID() },
          { oops: 1 },
        ]) {
          await refused(patch(body), 400, 'ValidationError');
        }
        // A metadata type of another organization, or one that does not apply to points of interest.
        const other = await createOrg(t);
        for (const typeId of [await metadataType(['pointOfInterest'], other), await metadataType(['asset', 'zone'])]) {
          await refused(post({ name: 'P', position, metadataTypeId: typeId }), 400, 'ValidationError', /metadataTypeId/);
          await refused(patch({ metadataTypeId: typeId }), 400, 'ValidationError', /metadataTypeId/);
        }
        expect((await org.admin.get(`/v1/twin/${ctx}/points-of-interest/${created.id}`)).body).toEqual(created);
      });

      it('takes a metadata type of the organization for points of interest, and clears it with null', async () => {
        const typeId = await metadataType(['asset', 'pointOfInterest']);
        const created = await create(ctx, { name: 'Typed', position, metadataTypeId: typeId });
        expect(created.metadataTypeId).toBe(typeId);
        const cleared = await org.admin.patch(`/v1/twin/${ctx}/points-of-interest/${created.id}`, { metadataTypeId: null });
        expect(cleared.body.metadataTypeId).toBeNull();
      });
    });
  }

  twinObjectAccessTests(
    {
      one: 'a point of interest',
      segment: 'points-of-interest',
      body: () => ({ name: 'P', position }),
      patch: { name: 'P' },
      create: (owner, ctx) => create(ctx, { name: owner === org ? 'P' : 'F', position }, owner),
    },
    () => ({ t, org, siteId }),
  );

  describe('against a model of the draft rules (property)', () => {
    type Fields = { name: string; color: string | null; position: { x: number; y: number; z: number } };
    type Change = { kind: 'added' | 'modified' | 'removed'; fields: Partial<Fields> };
    type Step =
      | { where: 'live' | 'draft'; op: 'create'; fields: Fields }
      | { where: 'live' | 'draft'; op: 'update'; pick: number; patch: Partial<Fields> }
      | { where: 'live' | 'draft'; op: 'delete'; pick: number };

    const vector = fc.record({ x: fc.integer({ min: -1000, max: 1000 }), y: fc.constant(0), z: fc.constant(0) });
    const fields = fc.record({
      name: fc.string({ minLength: 1, maxLength: 8 }),
      color: fc.constantFrom(null, '#112233', '#abcdef'),
      position: vector,
    });
    const patch = fc.record(
      { name: fc.string({ minLength: 1, maxLength: 8 }), color: fc.constantFrom(null, '#445566'), position: vector },
      { requiredKeys: [] },
    );
    const where = fc.constantFrom('live' as const, 'draft' as const);
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ where, op: fc.constant('create' as const), fields }),
      fc.record({ where, op: fc.constant('update' as const), pick: fc.nat(), patch }),
      fc.record({ where, op: fc.constant('delete' as const), pick: fc.nat() }),
    );

    /** The draft's view in the model: live overlaid by the changes (docs/twins.md). */
    function view(live: Map<string, Fields>, changes: Map<string, Change>): Map<string, Fields> {
      const shown = new Map<string, Fields>();
      for (const [id, object] of live) {
        const change = changes.get(id);
        if (!change) shown.set(id, object);
        else if (change.kind === 'modified') shown.set(id, { ...object, ...change.fields });
      }
      for (const [id, change] of changes) if (change.kind === 'added') shown.set(id, change.fields as Fields);
      return shown;
    }

    async function read(owner: OrgFixture, ctx: string): Promise<Map<string, Fields>> {
      const response = await owner.admin.get(`/v1/twin/${ctx}/points-of-interest?limit=500`);
      expect(response.status).toBe(200);
      return new Map(
        response.body.map((p: Fields & { id: string }) => [p.id, { name: p.name, color: p.color, position: p.position }]),
      );
    }

    it('random creates, updates and deletes through a draft and the live twin, then publish all: the live twin is the model', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
          // An organization per run: each has its own request budget (rate limit).
          const owner = await createOrg(t);
          const site = await createSite(owner);
          const draft = await openDraft(owner, site);
          const live = new Map<string, Fields>();
          const changes = new Map<string, Change>();
          for (const s of steps) {
            const ctx = s.where === 'live' ? site : draft.id;
            const visible = [...(s.where === 'live' ? live : view(live, changes)).keys()].sort();
            if (s.op === 'create') {
              const answer = await owner.admin.post(`/v1/twin/${ctx}/points-of-interest`, s.fields);
              expect(answer.status).toBe(201);
              const created = answer.body;
              if (s.where === 'live') live.set(created.id, s.fields);
              else changes.set(created.id, { kind: 'added', fields: s.fields });
            } else if (visible.length > 0) {
              const id = visible[s.pick % visible.length] as string;
              const path = `/v1/twin/${ctx}/points-of-interest/${id}`;
              const existing = changes.get(id);
              if (s.op === 'update') {
                const answer = await owner.admin.patch(path, Object.keys(s.patch).length > 0 ? s.patch : { name: 'same' });
                expect(answer.status).toBe(200);
                const applied = Object.keys(s.patch).length > 0 ? s.patch : { name: 'same' };
                if (s.where === 'live') live.set(id, { ...(live.get(id) as Fields), ...applied });
                else changes.set(id, { kind: existing?.kind ?? 'modified', fields: { ...existing?.fields, ...applied } });
              } else {
                expect((await owner.admin.delete(path)).status).toBe(204);
                if (s.where === 'live') live.delete(id);
                else if (existing?.kind === 'added') changes.delete(id);
                else changes.set(id, { kind: 'removed', fields: {} });
              }
            }
            // The live twin never shows a draft change; the draft shows live plus its changes.
            expect(await read(owner, site)).toEqual(live);
            expect(await read(owner, draft.id)).toEqual(view(live, changes));
          }
          const published = await owner.admin.post(`/v1/twin/${draft.id}/publish`, {});
          expect(published.status).toBe(200);
          const expected = new Map(live);
          for (const [id, change] of changes) {
            if (change.kind === 'added') expected.set(id, change.fields as Fields);
            else if (change.kind === 'removed') expected.delete(id);
            else if (expected.has(id)) expected.set(id, { ...(expected.get(id) as Fields), ...change.fields });
          }
          expect(await read(owner, site)).toEqual(expected);
        }),
        { numRuns: 25 },
      );
    });
  });
});
