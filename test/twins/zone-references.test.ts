import { describe, expect, it } from 'vitest';
import type { OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';

// docs/twins.md, "Zones" (Locks): no point of interest or zone is left naming a zone that is gone.

const volume = { boxes: [{ center: { x: 0, y: 0, z: 0 }, size: { x: 1, y: 1, z: 1 }, rotation: { x: 0, y: 0, z: 0, w: 1 } }] };
const position = { x: 0, y: 0, z: 0 };
const ROUNDS = 20;

describe('zone references: points of interest and zones keep no id of a deleted zone', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  withPlatformAndOrg((started) => ({ t, org } = started));
  const refused = refuser(() => twinSnapshot(t, org));

  async function post(ctx: string, kind: 'zones' | 'points-of-interest', body: object) {
    const response = await org.admin.post(`/v1/twin/${ctx}/${kind}`, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string; [field: string]: unknown };
  }

  const all = async (ctx: string, kind: 'zones' | 'points-of-interest') =>
    (await org.admin.get(`/v1/twin/${ctx}/${kind}?limit=500`)).body as { id: string; [field: string]: unknown }[];

  /** The points of interest (through ctx) that name a zone ctx does not show. */
  async function strays(ctx: string) {
    const zones = new Set((await all(ctx, 'zones')).map((zone) => zone.id));
    return (await all(ctx, 'points-of-interest')).filter((point) => point.zoneId !== null && !zones.has(point.zoneId as string));
  }

  /** The live rows of the site naming a zone the site has not: read in the database, not through the routes. */
  async function strayRows(siteId: string) {
    const rows = await t.platform.regions[org.region].store.db
      .selectFrom('twin_objects')
      .select(['id', 'object_type', 'zone_id', 'parent_zone_id'])
      .where('site_id', '=', siteId)
      .execute();
    const zones = new Set(rows.filter((row) => row.object_type === 'zone').map((row) => row.id));
    return rows.filter(
      (row) =>
        (row.zone_id !== null && !zones.has(row.zone_id)) || (row.parent_zone_id !== null && !zones.has(row.parent_zone_id)),
    );
  }

  for (const through of ['live', 'draft'] as const) {
    it(`a point of interest put in a zone (POST and PATCH) while the zone is deleted, through the ${through} twin, ${ROUNDS} rounds: the write is 201/200 and then cleared, or 400 storing nothing`, async () => {
      const siteId = await createSite(org);
      const ctx = through === 'live' ? siteId : (await openDraft(org, siteId)).id;
      for (let round = 0; round < ROUNDS; round += 1) {
        const zone = await post(ctx, 'zones', { name: `Z${round}`, volume });
        const moved = await post(ctx, 'points-of-interest', { name: `Moved ${round}`, position });
        const before = (await all(ctx, 'points-of-interest')).length;
        const [created, patched, deleted] = await Promise.all([
          org.admin.post(`/v1/twin/${ctx}/points-of-interest`, { name: `New ${round}`, position, zoneId: zone.id }),
          org.admin.patch(`/v1/twin/${ctx}/points-of-interest/${moved.id}`, { zoneId: zone.id, name: `Moved ${round}b` }),
          org.admin.delete(`/v1/twin/${ctx}/zones/${zone.id}`),
        ]);
        expect(deleted.status).toBe(204);
        for (const answer of [created, patched]) {
          expect([200, 201, 400], JSON.stringify(answer.body)).toContain(answer.status);
          if (answer.status === 400) {
            expect(answer.body).toMatchObject({ statusCode: 400, error: 'ValidationError' });
            expect(answer.body.message).toMatch(/^body\.zoneId: no zone /);
          }
        }
        const after = await all(ctx, 'points-of-interest');
        // A refused create stored nothing; a refused PATCH changed nothing (not even the name).
        expect(after).toHaveLength(before + (created.status === 201 ? 1 : 0));
        const movedNow = after.find((point) => point.id === moved.id);
        expect(movedNow?.name).toBe(patched.status === 200 ? `Moved ${round}b` : `Moved ${round}`);
        expect(movedNow?.zoneId).toBeNull();
        if (created.status === 201) expect(after.find((point) => point.id === created.body.id)?.zoneId).toBeNull();
        expect(await strays(ctx)).toEqual([]);
        expect(await strayRows(siteId)).toEqual([]);
      }
    });
  }

  it('a draft naming zones the live twin deletes before the publish: published with those references cleared to null, and audited', async () => {
    const siteId = await createSite(org);
    const hall = await post(siteId, 'zones', { name: 'Hall', volume });
    const pit = await post(siteId, 'zones', { name: 'Pit', volume, parentZoneId: hall.id });
    const kept = await post(siteId, 'zones', { name: 'Kept', volume });
    const pump = await post(siteId, 'points-of-interest', { name: 'Pump', position });
    const draft = await openDraft(org, siteId);
    // Through the draft: a new point of interest in the pit, the live pump moved into it, a new
    // zone under the hall, and one point of interest into a zone that stays.
    const valve = await post(draft.id, 'points-of-interest', { name: 'Valve', position, zoneId: pit.id });
    expect((await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${pump.id}`, { zoneId: pit.id })).status).toBe(200);
    const annex = await post(draft.id, 'zones', { name: 'Annex', volume, parentZoneId: hall.id });
    const gauge = await post(draft.id, 'points-of-interest', { name: 'Gauge', position, zoneId: kept.id });
    // Live, meanwhile: the hall (and with it, the pit) deleted.
    expect((await org.admin.delete(`/v1/twin/${siteId}/zones/${pit.id}`)).status).toBe(204);
    expect((await org.admin.delete(`/v1/twin/${siteId}/zones/${hall.id}`)).status).toBe(204);

    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body).toMatchObject({ status: 'published', skipped: [] });

    const points = new Map((await all(siteId, 'points-of-interest')).map((point) => [point.id, point]));
    expect(points.get(valve.id)).toMatchObject({ name: 'Valve', zoneId: null });
    expect(points.get(pump.id)).toMatchObject({ name: 'Pump', zoneId: null });
    expect(points.get(gauge.id)).toMatchObject({ name: 'Gauge', zoneId: kept.id });
    const zones = new Map((await all(siteId, 'zones')).map((zone) => [zone.id, zone]));
    expect([...zones.keys()].sort()).toEqual([annex.id, kept.id].sort());
    expect(zones.get(annex.id)).toMatchObject({ name: 'Annex', parentZoneId: null });
    expect(await strayRows(siteId)).toEqual([]);

    const changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items as { id: string; objectId: string }[];
    const changeOf = (objectId: string) => changes.find((change) => change.objectId === objectId)?.id;
    const [event] = (await auditOf(t, org, draft.id)).filter((row) => row.action === 'twin-draft.published');
    expect(event?.details.published).toBe(4);
    expect(event?.details.clearedZoneReferences).toEqual(
      expect.arrayContaining([
        { changeId: changeOf(valve.id), objectId: valve.id, fields: ['zoneId'] },
        { changeId: changeOf(pump.id), objectId: pump.id, fields: ['zoneId'] },
        { changeId: changeOf(annex.id), objectId: annex.id, fields: ['parentZoneId'] },
      ]),
    );
    expect(event?.details.clearedZoneReferences).toHaveLength(3);
  });

  it('a publish with nothing stale clears nothing and records no cleared references', async () => {
    const siteId = await createSite(org);
    const hall = await post(siteId, 'zones', { name: 'Hall', volume });
    const draft = await openDraft(org, siteId);
    const valve = await post(draft.id, 'points-of-interest', { name: 'Valve', position, zoneId: hall.id });
    expect((await org.admin.post(`/v1/twin/${draft.id}/publish`, {})).status).toBe(200);
    expect((await all(siteId, 'points-of-interest')).find((point) => point.id === valve.id)?.zoneId).toBe(hall.id);
    const [event] = (await auditOf(t, org, draft.id)).filter((row) => row.action === 'twin-draft.published');
    expect(event?.details).not.toHaveProperty('clearedZoneReferences');
  });

  it('a point of interest naming a zone deleted before the write: 400 naming zoneId, nothing stored (live and draft)', async () => {
    const siteId = await createSite(org);
    const draft = await openDraft(org, siteId);
    for (const ctx of [siteId, draft.id]) {
      const zone = await post(ctx, 'zones', { name: 'Gone', volume });
      const point = await post(ctx, 'points-of-interest', { name: 'P', position });
      expect((await org.admin.delete(`/v1/twin/${ctx}/zones/${zone.id}`)).status).toBe(204);
      await refused(
        () => org.admin.post(`/v1/twin/${ctx}/points-of-interest`, { name: 'Q', position, zoneId: zone.id }),
        400,
        'ValidationError',
        /^body\.zoneId: no zone /,
      );
      await refused(
        () => org.admin.patch(`/v1/twin/${ctx}/points-of-interest/${point.id}`, { zoneId: zone.id }),
        400,
        'ValidationError',
        /^body\.zoneId: no zone /,
      );
    }
  });
});
