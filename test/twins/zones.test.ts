import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { twinObjectAccessTests } from '../support/access-matrix.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const identity = { x: 0, y: 0, z: 0, w: 1 };
const box = { center: { x: 1, y: 2, z: 3 }, size: { x: 4, y: 5, z: 6 }, rotation: identity };
const volume = { boxes: [box] };
const position = { x: 0, y: 0, z: 0 };

describe('zones: /v1/twin/{ctx}/zones', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    siteId = await createSite(org);
  });

  const refused = refuser(() => twinSnapshot(t, org));

  async function create(ctx: string, body: object = {}, owner: OrgFixture = org) {
    const response = await owner.admin.post(`/v1/twin/${ctx}/zones`, { name: 'Z', volume, ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  const get = async (ctx: string, id: string) => (await org.admin.get(`/v1/twin/${ctx}/zones/${id}`)).body;

  async function metadataType(appliesTo: string[], owner: OrgFixture = org) {
    const response = await owner.admin.post('/v1/metadata-types', { name: `T ${randomUUID()}`, appliesTo, properties: [] });
    expect(response.status).toBe(201);
    return response.body.id as string;
  }

  /** A chain of zones, each under the one before; the first at top level (level 1). */
  async function chain(ctx: string, length: number, under: string | null = null): Promise<string[]> {
    const ids: string[] = [];
    let parent = under;
    for (let i = 0; i < length; i += 1) {
      parent = (await create(ctx, { name: `L${i}`, parentZoneId: parent })).id as string;
      ids.push(parent);
    }
    return ids;
  }

  for (const through of ['live', 'draft'] as const) {
    describe(`through the ${through} twin`, () => {
      let ctx: string;
      beforeAll(async () => {
        const site = await createSite(org);
        ctx = through === 'live' ? site : (await openDraft(org, site)).id;
      });

      it('creates one whole (201, rotation normalised), reads it back, lists it; zone.created', async () => {
        const typeId = await metadataType(['zone']);
        const parent = await create(ctx, { name: 'Hall' });
        const tilted = { ...box, rotation: { x: 0, y: 0, z: 0, w: 1.0005 } };
        const body = {
          name: '  Area 1  ',
          description: 'North side',
          volume: { boxes: [tilted, box] },
          parentZoneId: parent.id,
          color: '#A0b1C2',
          metadataTypeId: typeId,
        };
        const created = await org.admin.post(`/v1/twin/${ctx}/zones`, body);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toEqual({
          id: expect.stringMatching(UUID),
          ...body,
          volume: { boxes: [{ ...tilted, rotation: identity }, box] },
          childZoneIds: [],
          createdBy: org.adminServiceUserId,
          updatedBy: org.adminServiceUserId,
          createdAt: expect.any(String),
          updatedAt: created.body.createdAt,
        });
        expect(await get(ctx, created.body.id)).toEqual(created.body);
        expect(await get(ctx, parent.id)).toEqual({ ...parent, childZoneIds: [created.body.id] });
        expect(parent).toMatchObject({ description: '', parentZoneId: null, color: null, metadataTypeId: null });
        const list = (await org.admin.get(`/v1/twin/${ctx}/zones`)).body;
        expect(list).toEqual([{ ...parent, childZoneIds: [created.body.id] }, created.body]);
        expect((await org.admin.get(`/v1/twin/${ctx}/zones?limit=1&offset=1`)).body).toEqual([created.body]);
        expect((await org.admin.get(`/v1/twin/${ctx}/zones/${parent.id}?includeMetadata=true`)).body.metadata).toEqual({});
        const [event] = await auditOf(t, org, created.body.id);
        expect(event).toMatchObject({
          action: 'zone.created',
          target_type: 'zone',
          details: { name: body.name, draftId: through === 'draft' ? ctx : null },
        });
      });

      it('changes any subset with PATCH; null clears an optional field; zone.updated', async () => {
        const parent = await create(ctx, { name: 'P' });
        const zone = await create(ctx, { parentZoneId: parent.id, color: '#000000' });
        t.clock.advance(1000);
        const half = Math.SQRT1_2;
        const patched = await org.admin.patch(`/v1/twin/${ctx}/zones/${zone.id}`, {
          name: 'Moved',
          parentZoneId: null,
          color: null,
          volume: { boxes: [{ ...box, rotation: { x: 0, y: 0, z: half, w: half } }] },
        });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        expect(patched.body).toEqual({
          ...zone,
          name: 'Moved',
          parentZoneId: null,
          color: null,
          volume: { boxes: [{ ...box, rotation: { x: 0, y: 0, z: half, w: half } }] },
          updatedAt: expect.any(String),
        });
        expect(patched.body.updatedAt > zone.updatedAt).toBe(true);
        expect(await get(ctx, zone.id)).toEqual(patched.body);
        expect((await get(ctx, parent.id)).childZoneIds).toEqual([]);
        expect((await auditOf(t, org, zone.id))[1]).toMatchObject({
          action: 'zone.updated',
          details: { changed: ['name', 'parentZoneId', 'color', 'volume'] },
        });
      });

      it('deletes one (204, zone.deleted); then it is 404 to every route', async () => {
        const zone = await create(ctx);
        expect((await org.admin.delete(`/v1/twin/${ctx}/zones/${zone.id}`)).status).toBe(204);
        expect((await auditOf(t, org, zone.id)).map((e) => e.action)).toEqual(['zone.created', 'zone.deleted']);
        const path = `/v1/twin/${ctx}/zones/${zone.id}`;
        await refused(() => org.admin.get(path), 404, 'Not Found');
        await refused(() => org.admin.patch(path, { name: 'Back' }), 404, 'Not Found');
        await refused(() => org.admin.delete(path), 404, 'Not Found');
      });

      it('refuses malformed bodies with 400 naming the field, storing nothing', async () => {
        const zone = await create(ctx, { color: '#123456' });
        const post = (body: unknown) => () => org.admin.post(`/v1/twin/${ctx}/zones`, body);
        const patch = (body: unknown) => () => org.admin.patch(`/v1/twin/${ctx}/zones/${zone.id}`, body);
        const withBox = (changes: object) => ({ name: 'Z', volume: { boxes: [{ ...box, ...changes }] } });
        const bad: [unknown, RegExp][] = [
          [{ name: 'Z' }, /volume/],
          [{ name: 'Z', volume: { boxes: [] } }, /boxes/],
          [{ name: 'Z', volume: { boxes: Array(65).fill(box) } }, /boxes/],
          [{ name: 'Z', volume: { boxes: [box], extra: 1 } }, /volume|additional/],
          [withBox({ size: { x: 0, y: 1, z: 1 } }), /size/],
          [withBox({ size: { x: 1, y: -1, z: 1 } }), /size/],
          [withBox({ size: { x: 1, y: 1, z: 1e5 + 1 } }), /size/],
          [withBox({ center: { x: 1e7 + 1, y: 0, z: 0 } }), /center/],
          [withBox({ rotation: { x: 0, y: 0, z: 0 } }), /rotation/],
          [withBox({ rotation: { x: 0, y: 0, z: 0, w: 1.002 } }), /body\.volume\.boxes\.0\.rotation/],
          [withBox({ rotation: { x: 0, y: 0, z: 0, w: 0 } }), /body\.volume\.boxes\.0\.rotation/],
          [withBox({ rotation: { x: 0.5, y: 0.5, z: 0.5, w: 0.4 } }), /body\.volume\.boxes\.0\.rotation/],
          [withBox({ rotation: { x: '0', y: 0, z: 0, w: 1 } }), /rotation/],
          [{ name: 'Z', volume, extra: true }, /extra|additional/],
          [{ name: '', volume }, /name/],
          [{ name: 'x'.repeat(256), volume }, /name/],
          [{ volume }, /name/],
          [{ name: 'Z', volume, description: 'd'.repeat(10_001) }, /description/],
          [{ name: 'Z', volume, color: 'red' }, /color/],
          [{ name: 'Z', volume, parentZoneId: randomUUID() }, /parentZoneId/],
          [{ name: 'Z', volume, metadataTypeId: randomUUID() }, /metadataTypeId/],
        ];
        for (const [body, field] of bad) await refused(post(body), 400, 'ValidationError', field);
        const twoBoxes = { boxes: [box, { ...box, rotation: { x: 1, y: 1, z: 0, w: 0 } }] };
        await refused(post({ name: 'Z', volume: twoBoxes }), 400, 'ValidationError', /body\.volume\.boxes\.1\.rotation/);
        await refused(patch({ volume: twoBoxes }), 400, 'ValidationError', /body\.volume\.boxes\.1\.rotation/);
        for (const body of [
          {},
          { name: null },
          { volume: null },
          { description: null },
          { parentZoneId: randomUUID() },
          { oops: 1 },
        ]) {
          await refused(patch(body), 400, 'ValidationError');
        }
        // A zone of another context, a metadata type of another organization or not for zones.
        const elsewhere = await create(await createSite(org));
        await refused(post({ name: 'Z', volume, parentZoneId: elsewhere.id }), 400, 'ValidationError', /parentZoneId/);
        await refused(patch({ parentZoneId: elsewhere.id }), 400, 'ValidationError', /parentZoneId/);
        const other = await createOrg(t);
        for (const typeId of [await metadataType(['zone'], other), await metadataType(['asset', 'pointOfInterest'])]) {
          await refused(post({ name: 'Z', volume, metadataTypeId: typeId }), 400, 'ValidationError', /metadataTypeId/);
          await refused(patch({ metadataTypeId: typeId }), 400, 'ValidationError', /metadataTypeId/);
        }
        expect(await get(ctx, zone.id)).toEqual(zone);
      });

      it('refuses cycles (409 CircularityFound) and a ninth level (409 MaxDepthExceeded), storing nothing', async () => {
        const [a, b, c] = await chain(ctx, 3);
        const move = (id: string, parentZoneId: string | null) => () =>
          org.admin.patch(`/v1/twin/${ctx}/zones/${id}`, { parentZoneId });
        await refused(move(a as string, c as string), 409, 'CircularityFound');
        await refused(move(a as string, b as string), 409, 'CircularityFound');
        await refused(move(a as string, a as string), 409, 'CircularityFound');
        const eight = await chain(ctx, 8);
        const deepest = eight[7] as string;
        await refused(
          () => org.admin.post(`/v1/twin/${ctx}/zones`, { name: 'Z', volume, parentZoneId: deepest }),
          409,
          'MaxDepthExceeded',
        );
        // Moving a subtree of three levels (a, b, c) under level 6 would reach level 9; under level 5, level 8.
        await refused(move(a as string, eight[5] as string), 409, 'MaxDepthExceeded');
        const moved = await org.admin.patch(`/v1/twin/${ctx}/zones/${a}`, { parentZoneId: eight[4] });
        expect(moved.status, JSON.stringify(moved.body)).toBe(200);
        await refused(
          () => org.admin.post(`/v1/twin/${ctx}/zones`, { name: 'Z', volume, parentZoneId: c }),
          409,
          'MaxDepthExceeded',
        );
        expect((await get(ctx, c as string)).parentZoneId).toBe(b);
        // Moving back to the top level is always fine.
        expect((await org.admin.patch(`/v1/twin/${ctx}/zones/${a}`, { parentZoneId: null })).status).toBe(200);
        expect((await get(ctx, eight[4] as string)).childZoneIds).toEqual([eight[5]]);
      });

      it('takes points of interest into its zones; a delete re-attaches children and clears their zoneId', async () => {
        const [top, middle, leaf] = await chain(ctx, 3);
        const sibling = await create(ctx, { name: 'Sibling', parentZoneId: middle });
        const inside = await org.admin.post(`/v1/twin/${ctx}/points-of-interest`, { name: 'P', position, zoneId: middle });
        expect(inside.status, JSON.stringify(inside.body)).toBe(201);
        const elsewhere = await create(await createSite(org));
        await refused(
          () => org.admin.post(`/v1/twin/${ctx}/points-of-interest`, { name: 'P', position, zoneId: elsewhere.id }),
          400,
          'ValidationError',
          /zoneId/,
        );
        t.clock.advance(1000);
        expect((await org.admin.delete(`/v1/twin/${ctx}/zones/${middle}`)).status).toBe(204);
        expect((await get(ctx, top as string)).childZoneIds).toEqual([leaf, sibling.id]);
        const leafNow = await get(ctx, leaf as string);
        expect(leafNow).toMatchObject({ parentZoneId: top, updatedBy: org.adminServiceUserId });
        expect(leafNow.updatedAt > leafNow.createdAt).toBe(true);
        const point = (await org.admin.get(`/v1/twin/${ctx}/points-of-interest/${inside.body.id}`)).body;
        expect(point.zoneId).toBeNull();
        expect((await auditOf(t, org, middle as string))[1]).toMatchObject({
          action: 'zone.deleted',
          details: { reattachedZoneIds: [leaf, sibling.id], clearedPointOfInterestIds: [inside.body.id] },
        });
      });

      it('answers the tree with tree=true: top-level zones, children nested in list order', async () => {
        const site = await createSite(org);
        const treeCtx = through === 'live' ? site : (await openDraft(org, site)).id;
        const [a, b] = await chain(treeCtx, 2);
        const top2 = await create(treeCtx, { name: 'Top 2' });
        const c = await create(treeCtx, { name: 'C', parentZoneId: a });
        const answer = await org.admin.get(`/v1/twin/${treeCtx}/zones?tree=true`);
        expect(answer.status).toBe(200);
        const shape = (node: any): unknown => ({ id: node.id, children: node.children.map(shape) });
        expect(answer.body.items.map(shape)).toEqual([
          {
            id: a,
            children: [
              { id: b, children: [] },
              { id: c.id, children: [] },
            ],
          },
          { id: top2.id, children: [] },
        ]);
        expect(answer.body.items[0]).toMatchObject({ name: 'L0', childZoneIds: [b, c.id], parentZoneId: null });
        expect(answer.body.items[0].children[0]).toEqual({ ...(await get(treeCtx, b as string)), children: [] });
        const paged = await org.admin.get(`/v1/twin/${treeCtx}/zones?tree=true&offset=1&limit=1`);
        expect(paged.body.items.map(shape)).toEqual([{ id: top2.id, children: [] }]);
      });
    });
  }

  it('through a draft, a delete changes only the draft until it is published; then the live twin shows it', async () => {
    const site = await createSite(org);
    const [top, middle, leaf] = await chain(site, 3);
    const point = (await org.admin.post(`/v1/twin/${site}/points-of-interest`, { name: 'P', position, zoneId: middle })).body;
    const draft = await openDraft(org, site);
    expect((await org.admin.delete(`/v1/twin/${draft.id}/zones/${middle}`)).status).toBe(204);
    expect((await get(draft.id, leaf as string)).parentZoneId).toBe(top);
    expect((await org.admin.get(`/v1/twin/${draft.id}/points-of-interest/${point.id}`)).body.zoneId).toBeNull();
    // The live twin sees nothing yet; meanwhile it gives the zone another child.
    expect((await get(site, leaf as string)).parentZoneId).toBe(middle);
    expect((await org.admin.get(`/v1/twin/${site}/points-of-interest/${point.id}`)).body.zoneId).toBe(middle);
    const late = await create(site, { name: 'Late', parentZoneId: middle });
    const changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    expect(changes.map((c: any) => [c.objectId, c.kind]).sort()).toEqual(
      [
        [middle, 'removed'],
        [leaf, 'modified'],
        [point.id, 'modified'],
      ].sort(),
    );
    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.skipped).toEqual([]);
    await refused(() => org.admin.get(`/v1/twin/${site}/zones/${middle}`), 404, 'Not Found');
    expect((await get(site, top as string)).childZoneIds).toEqual([leaf, late.id]);
    expect((await get(site, late.id)).parentZoneId).toBe(top);
    expect((await org.admin.get(`/v1/twin/${site}/points-of-interest/${point.id}`)).body.zoneId).toBeNull();
  });

  it('refuses a partial publish that leaves out a zone another chosen change names (409 DraftChangeDependsOn)', async () => {
    const site = await createSite(org);
    const livePoint = (await org.admin.post(`/v1/twin/${site}/points-of-interest`, { name: 'Live', position })).body;
    const draft = await openDraft(org, site);
    const zone = await create(draft.id, { name: 'New' });
    const child = await create(draft.id, { name: 'Child', parentZoneId: zone.id });
    const moved = await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${livePoint.id}`, { zoneId: zone.id });
    expect(moved.status).toBe(200);
    const changes: { id: string; objectId: string }[] = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    const changeOf = (id: string) => changes.find((change) => change.objectId === id)?.id as string;
    const publish = (ids: string[]) => () => org.admin.post(`/v1/twin/${draft.id}/publish`, { changeIds: ids });
    await refused(publish([changeOf(livePoint.id)]), 409, 'DraftChangeDependsOn', new RegExp(changeOf(zone.id)));
    await refused(publish([changeOf(child.id)]), 409, 'DraftChangeDependsOn', new RegExp(changeOf(zone.id)));
    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {
      changeIds: [changeOf(zone.id), changeOf(livePoint.id)],
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect((await get(site, zone.id)).childZoneIds).toEqual([]);
    expect((await org.admin.get(`/v1/twin/${site}/points-of-interest/${livePoint.id}`)).body.zoneId).toBe(zone.id);
  });

  it('refuses a publish that would nest zones too deep on the live twin as it is now (409, nothing published)', async () => {
    const site = await createSite(org);
    const seven = await chain(site, 7);
    const loose = await create(site, { name: 'Loose' });
    const draft = await openDraft(org, site);
    // Through the draft, a child under the loose zone; live, the loose zone moves under level 7.
    await create(draft.id, { name: 'Child', parentZoneId: loose.id });
    expect((await org.admin.patch(`/v1/twin/${site}/zones/${loose.id}`, { parentZoneId: seven[6] })).status).toBe(200);
    await refused(() => org.admin.post(`/v1/twin/${draft.id}/publish`, {}), 409, 'MaxDepthExceeded');
    const drafts = (await org.admin.get(`/v1/twin/${site}/drafts`)).body;
    expect(drafts.items ?? drafts).toEqual([expect.objectContaining({ id: draft.id, status: 'open' })]);
  });

  it('two moves at once that would make a cycle: one is 200, the other 409 CircularityFound', async () => {
    const site = await createSite(org);
    for (let round = 0; round < 3; round += 1) {
      const a = await create(site, { name: `A${round}` });
      const b = await create(site, { name: `B${round}` });
      const answers = await Promise.all([
        org.admin.patch(`/v1/twin/${site}/zones/${a.id}`, { parentZoneId: b.id }),
        org.admin.patch(`/v1/twin/${site}/zones/${b.id}`, { parentZoneId: a.id }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const parents = [(await get(site, a.id)).parentZoneId, (await get(site, b.id)).parentZoneId];
      expect(parents.filter((parent) => parent === null)).toHaveLength(1);
    }
  });

  twinObjectAccessTests(
    {
      one: 'a zone',
      segment: 'zones',
      body: () => ({ name: 'Z', volume }),
      patch: { name: 'Z' },
      listQueries: ['?tree=true'],
      create: (owner, ctx) => create(ctx, { name: owner === org ? 'Z' : 'F' }, owner),
      // Another organization's zone is no parent either.
      foreignAlso: (foreign) =>
        refused(
          () => org.admin.post(`/v1/twin/${siteId}/zones`, { name: 'Z', volume, parentZoneId: foreign.id }),
          400,
          'ValidationError',
          /parentZoneId/,
        ),
    },
    () => ({ t, org, siteId }),
  );
});
