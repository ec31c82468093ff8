import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twinObjectAccessTests } from '../support/access-matrix.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';

type Point = { x: number; y: number; z: number };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const p = (x: number, y: number, z: number): Point => ({ x, y, z });
const distance = { name: 'Clearance', kind: 'distance', points: [p(1, 2, 3), p(4, 6, 3)] };

/** The points of a 3-4-5 right triangle in a plane tilted about x by 30° and about z by 50°, shifted. */
function tiltedTriangle(): Point[] {
  const [a, b] = [Math.PI / 6, (5 * Math.PI) / 18];
  return [p(0, 0, 0), p(3, 0, 0), p(0, 4, 0)].map(({ x, y, z }) => {
    const [y1, z1] = [y * Math.cos(a) - z * Math.sin(a), y * Math.sin(a) + z * Math.cos(a)];
    const [x2, y2] = [x * Math.cos(b) - y1 * Math.sin(b), x * Math.sin(b) + y1 * Math.cos(b)];
    return p(x2 + 512.25, y2 - 77.5, z1 + 12);
  });
}

describe('measurements: /v1/twin/{ctx}/measurements', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  beforeAll(async () => {
    // Endpoints on 127.0.0.1 allowed: one subscribes to the measurements' events (nothing delivers them here).
    t = await startPlatform({ RDP_WEBHOOK_ALLOW_PRIVATE: '1' });
    org = await createOrg(t);
    siteId = await createSite(org);
  });
  afterAll(() => t?.close());

  const refused = refuser(() => twinSnapshot(t, org));

  async function create(ctx: string, body: object = distance, owner: OrgFixture = org) {
    const response = await owner.admin.post(`/v1/twin/${ctx}/measurements`, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  for (const through of ['live', 'draft'] as const) {
    describe(`through the ${through} twin`, () => {
      let ctx: string;
      beforeAll(async () => {
        const site = await createSite(org);
        ctx = through === 'live' ? site : (await openDraft(org, site)).id;
      });

      it('creates one (201) with the value the platform computed, reads it back, lists it; measurement.created', async () => {
        const created = await org.admin.post(`/v1/twin/${ctx}/measurements`, { ...distance, color: '#00ff00' });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toEqual({
          id: expect.stringMatching(UUID),
          ...distance,
          value: 5,
          unit: 'm',
          description: '',
          color: '#00ff00',
          metadataTypeId: null,
          createdBy: org.adminServiceUserId,
          updatedBy: org.adminServiceUserId,
          createdAt: expect.any(String),
          updatedAt: created.body.createdAt,
        });
        expect(created.headers.get('location')).toMatch(new RegExp(`/v1/twin/${ctx}/measurements/${created.body.id}$`));
        expect((await org.admin.get(`/v1/twin/${ctx}/measurements/${created.body.id}`)).body).toEqual(created.body);
        const height = await create(ctx, { name: 'Storey', kind: 'height', points: [p(0, 0, 0.25), p(7, 9, 3.75)] });
        expect(height).toMatchObject({ value: 3.5, unit: 'm' });
        expect((await org.admin.get(`/v1/twin/${ctx}/measurements`)).body).toEqual([created.body, height]);
        expect((await org.admin.get(`/v1/twin/${ctx}/measurements?limit=1&offset=1`)).body).toEqual([height]);
        expect((await org.admin.get(`/v1/twin/${ctx}/measurements/${height.id}?includeMetadata=true`)).body).toEqual({
          ...height,
          metadata: {},
        });
        const [event] = await auditOf(t, org, created.body.id);
        expect(event).toMatchObject({
          action: 'measurement.created',
          target_type: 'measurement',
          details: { name: 'Clearance', draftId: through === 'draft' ? ctx : null },
        });
      });

      it('measures again on a PATCH of the points or the kind, moving updatedAt; a rename keeps the value', async () => {
        const created = await create(ctx);
        t.clock.advance(1000);
        const moved = await org.admin.patch(`/v1/twin/${ctx}/measurements/${created.id}`, { points: [p(0, 0, 0), p(0, 0, 12)] });
        expect(moved.status, JSON.stringify(moved.body)).toBe(200);
        expect(moved.body).toMatchObject({ kind: 'distance', value: 12, unit: 'm' });
        expect(moved.body.updatedAt > created.updatedAt).toBe(true);
        const rekinded = await org.admin.patch(`/v1/twin/${ctx}/measurements/${created.id}`, { kind: 'polyline' });
        expect(rekinded.body).toMatchObject({ kind: 'polyline', value: 12, unit: 'm' });
        const angle = await org.admin.patch(`/v1/twin/${ctx}/measurements/${created.id}`, {
          kind: 'angle',
          points: [p(5, 0, 0), p(0, 0, 0), p(0, 0, 5)],
        });
        expect(angle.body).toMatchObject({ kind: 'angle', unit: 'deg' });
        expect(angle.body.value).toBeCloseTo(90, 12);
        const renamed = await org.admin.patch(`/v1/twin/${ctx}/measurements/${created.id}`, { name: 'Corner', description: 'x' });
        expect(renamed.body).toEqual({ ...angle.body, name: 'Corner', description: 'x', updatedAt: renamed.body.updatedAt });
        expect((await org.admin.get(`/v1/twin/${ctx}/measurements/${created.id}`)).body).toEqual(renamed.body);
        const [, ...updates] = await auditOf(t, org, created.id);
        expect(updates.map((event) => event.action)).toEqual(Array(4).fill('measurement.updated'));
        expect(updates[0]?.details).toMatchObject({ changed: ['points'] });
        expect((await org.admin.delete(`/v1/twin/${ctx}/measurements/${created.id}`)).status).toBe(204);
        expect((await org.admin.get(`/v1/twin/${ctx}/measurements/${created.id}`)).status).toBe(404);
      });

      it('refuses what cannot be measured, and a client that sends value or unit, naming the field; nothing stored', async () => {
        const list = `/v1/twin/${ctx}/measurements`;
        const post = (body: unknown) => () => org.admin.post(list, body);
        const bowTie = [p(0, 0, 0), p(2, 2, 0), p(2, 0, 0), p(0, 2, 0)];
        await refused(post({ ...distance, points: [p(0, 0, 0)] }), 400, 'ValidationError', /^body\.points: /);
        await refused(
          post({ ...distance, points: [p(0, 0, 0), p(1, 0, 0), p(2, 0, 0)] }),
          400,
          'ValidationError',
          /^body\.points: a distance measurement takes 2 points/,
        );
        await refused(
          post({ ...distance, kind: 'angle' }),
          400,
          'ValidationError',
          /^body\.points: an angle measurement takes 3 points/,
        );
        await refused(
          post({ ...distance, kind: 'area' }),
          400,
          'ValidationError',
          /^body\.points: an area measurement takes 3 to 1000/,
        );
        await refused(
          post({ ...distance, kind: 'area', points: bowTie }),
          400,
          'ValidationError',
          /^body\.points: the area's polygon intersects itself/,
        );
        await refused(
          post({ ...distance, kind: 'angle', points: [p(0, 0, 0), p(0, 0, 0), p(1, 1, 1)] }),
          400,
          'ValidationError',
          /^body\.points: /,
        );
        const polyline = Array.from({ length: 1001 }, (_, i) => p(i, 0, 0));
        await refused(
          post({ ...distance, kind: 'polyline', points: polyline }),
          400,
          'ValidationError',
          /^body\.points: must NOT have more than 1000 items/,
        );
        await refused(post({ ...distance, kind: 'volume' }), 400, 'ValidationError', /^body\.kind: /);
        await refused(
          post({ ...distance, value: 5 }),
          400,
          'ValidationError',
          'body.value: computed by the platform from the points; do not send it',
        );
        await refused(post({ ...distance, unit: 'm' }), 400, 'ValidationError', /^body\.unit: computed by the platform/);
        // JSON reads 1e400 as Infinity: no coordinate outside ±1e7 is taken.
        const infinite =
          '{"name": "Far", "kind": "distance", "points": [{"x": 1e400, "y": 0, "z": 0}, {"x": 0, "y": 0, "z": 0}]}';
        await refused(
          () => org.admin.request('POST', list, infinite, { 'content-type': 'application/json' }),
          400,
          'ValidationError',
          /^body\.points\.0\.x: /,
        );
        await refused(post({ ...distance, points: [p(0, 0, 0), { x: 0, y: 0 }] }), 400, 'ValidationError', /^body\.points\.1: /);
        await refused(post({ ...distance, name: '' }), 400, 'ValidationError', /^body\.name: /);
        await refused(post({ ...distance, name: 'n'.repeat(256) }), 400, 'ValidationError', /^body\.name: /);
        await refused(post({ ...distance, description: 'd'.repeat(2001) }), 400, 'ValidationError', /^body\.description: /);
        await refused(post({ ...distance, metadataTypeId: randomUUID() }), 400, 'ValidationError', /metadataTypeId/);

        const created = await create(ctx);
        const one = `${list}/${created.id}`;
        const patch = (body: unknown) => () => org.admin.patch(one, body);
        await refused(patch({ kind: 'area' }), 400, 'ValidationError', /^body\.points: an area measurement takes 3/);
        await refused(
          patch({ points: [p(0, 0, 0), p(1, 0, 0), p(2, 0, 0)] }),
          400,
          'ValidationError',
          /^body\.points: a distance/,
        );
        await refused(patch({ kind: 'area', points: bowTie }), 400, 'ValidationError', /^body\.points: the area's polygon/);
        await refused(patch({ value: 1 }), 400, 'ValidationError', /^body\.value: /);
        await refused(patch({ name: 'N', unit: 'm2' }), 400, 'ValidationError', /^body\.unit: /);
        await refused(patch({}), 400, 'ValidationError');
        expect((await org.admin.get(one)).body).toEqual(created);
      });
    });
  }

  it("measures a tilted 3-4-5 triangle's area, its right angle and a thousand-point polyline against our own computation", async () => {
    const triangle = tiltedTriangle();
    const area = await create(siteId, { name: 'Floor', kind: 'area', points: triangle });
    expect(area.unit).toBe('m2');
    expect(area.value).toBeCloseTo(6, 9);
    const [a, b, c] = triangle as [Point, Point, Point];
    const angle = await create(siteId, { name: 'Corner', kind: 'angle', points: [b, a, c] });
    expect(angle.unit).toBe('deg');
    expect(angle.value).toBeCloseTo(90, 9);
    // Full precision and far from the origin: a thousand points are more than the platform's 64 KiB JSON limit.
    const points = Array.from({ length: 1000 }, (_, i) =>
      p(123456.789012345 + Math.cos(i / 7) * 3.3, -654321.98765432 + i * 0.0123456789, 42.42424242 + Math.sin(i / 3)),
    );
    expect(JSON.stringify(points).length).toBeGreaterThan(64 * 1024);
    let expected = 0;
    for (let i = 1; i < points.length; i++) {
      const [from, to] = [points[i - 1] as Point, points[i] as Point];
      expected += Math.sqrt((to.x - from.x) ** 2 + (to.y - from.y) ** 2 + (to.z - from.z) ** 2);
    }
    const pipe = await create(siteId, { name: 'Pipe run', kind: 'polyline', points });
    expect(pipe.points).toEqual(points);
    expect(pipe.unit).toBe('m');
    expect(pipe.value).toBeCloseTo(expected, 6);
    // A body past 256 KiB is refused whole.
    const padded = { name: 'Pipe run', kind: 'polyline', points, description: 'x'.repeat(2000) };
    const huge = JSON.stringify(padded).replace('"points":', `${' '.repeat(256 * 1024)}"points":`);
    await refused(
      () => org.admin.request('POST', `/v1/twin/${siteId}/measurements`, huge, { 'content-type': 'application/json' }),
      413,
    );
  });

  it("keeps a draft's measurements out of the live twin until it is published; a PATCH through the draft measures again", async () => {
    const site = await createSite(org);
    const live = await create(site);
    const draft = await openDraft(org, site);
    const added = await create(draft.id, { name: 'Planned', kind: 'height', points: [p(0, 0, 1), p(0, 0, 4)] });
    const patched = await org.admin.patch(`/v1/twin/${draft.id}/measurements/${live.id}`, { points: [p(0, 0, 0), p(6, 8, 0)] });
    expect(patched.body).toMatchObject({ value: 10 });
    expect((await org.admin.get(`/v1/twin/${site}/measurements`)).body).toEqual([live]);
    expect((await org.admin.get(`/v1/twin/${draft.id}/measurements`)).body).toEqual([patched.body, added]);
    // A live change of the kind while the draft holds new points: the draft's view keeps its own
    // kind, points and value together (its patch carries all four), and so does the publish.
    expect((await org.admin.patch(`/v1/twin/${site}/measurements/${live.id}`, { kind: 'height' })).body).toMatchObject({
      kind: 'height',
      value: 0,
    });
    expect((await org.admin.get(`/v1/twin/${draft.id}/measurements/${live.id}`)).body).toMatchObject({
      kind: 'distance',
      points: [p(0, 0, 0), p(6, 8, 0)],
      value: 10,
    });
    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    // The publish stamps the objects it writes (updatedAt); the rest is the draft's view.
    const stamped = (body: any) => ({ ...body, updatedAt: expect.any(String) });
    expect((await org.admin.get(`/v1/twin/${site}/measurements`)).body).toEqual([stamped(patched.body), stamped(added)]);
  });

  it('is found by business-object search with types=measurement, and takes a metadata type that applies to measurements', async () => {
    const owner = await createOrg(t);
    const site = await createSite(owner);
    const measured = await create(site, { ...distance, name: 'Beam span' }, owner);
    await owner.admin.post(`/v1/twin/${site}/points-of-interest`, { name: 'Beam', position: p(0, 0, 0) });
    const search = async (query: string) => (await owner.admin.get(`/v1/business-objects?${query}`)).body;
    expect((await search('types=measurement')).items).toEqual([
      {
        id: measured.id,
        type: 'measurement',
        name: 'Beam span',
        contextId: site,
        metadataTypeId: null,
        createdBy: owner.adminServiceUserId,
        createdAt: measured.createdAt,
        updatedAt: measured.updatedAt,
      },
    ]);
    expect((await search('searchNameQuery=beam')).total).toBe(2);
    expect((await search('types=pointOfInterest&searchNameQuery=beam')).items.map((item: any) => item.type)).toEqual([
      'pointOfInterest',
    ]);

    const type = await owner.admin.post('/v1/metadata-types', { name: 'Survey', appliesTo: ['measurement'], properties: [] });
    expect(type.status, JSON.stringify(type.body)).toBe(201);
    const other = await owner.admin.post('/v1/metadata-types', { name: 'Equipment', appliesTo: ['asset'], properties: [] });
    const typed = await create(site, { ...distance, metadataTypeId: type.body.id }, owner);
    expect(typed.metadataTypeId).toBe(type.body.id);
    const wrong = await owner.admin.post(`/v1/twin/${site}/measurements`, { ...distance, metadataTypeId: other.body.id });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/^body\.metadataTypeId: .*measurements/);
    expect((await owner.admin.get(`/v1/twin/${site}/object/${typed.id}/metadata`)).status).toBe(200);
  });

  it("tells webhooks of live changes (measurement.created, .updated, .deleted), not of a draft's", async () => {
    const owner = await createOrg(t);
    const hooks = (
      await owner.serviceClient({ scopes: 'read:basic read:webhooks write:webhooks', roleName: 'Organization Administrator' })
    ).client;
    const eventTypes = ['measurement.created', 'measurement.updated', 'measurement.deleted'];
    const endpoint = await hooks.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', eventTypes });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const site = await createSite(owner);
    const made = await create(site, distance, owner);
    expect((await owner.admin.patch(`/v1/twin/${site}/measurements/${made.id}`, { kind: 'height' })).status).toBe(200);
    expect((await owner.admin.delete(`/v1/twin/${site}/measurements/${made.id}`)).status).toBe(204);
    await create((await openDraft(owner, site)).id, distance, owner);
    const rows = await t.platform.regions[owner.region].store.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('org_id', '=', owner.orgId)
      .orderBy('created_at')
      .execute();
    const events = rows.map((row) => JSON.parse(row.payload));
    expect(events.map((event) => event.type)).toEqual(eventTypes);
    for (const event of events) {
      expect(event.data).toEqual({
        siteId: site,
        objectType: 'measurement',
        objectId: made.id,
        organizationId: owner.orgId,
        region: owner.region,
      });
    }
  });

  twinObjectAccessTests(
    {
      one: 'a measurement',
      segment: 'measurements',
      body: () => distance,
      patch: { name: 'M' },
      create: (owner, ctx) => create(ctx, distance, owner),
    },
    () => ({ t, org, siteId }),
  );
});
