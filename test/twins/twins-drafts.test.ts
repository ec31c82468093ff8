import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const at = (x: number) => ({ position: { x, y: 0, z: 0 } });

describe('twins and drafts: /v1/twin/{ctx}', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    siteId = await createSite(org, 'North plant');
  });

  const refused = refuser(() => twinSnapshot(t, org));

  async function poi(ctx: string, name: string, x = 0) {
    const response = await org.admin.post(`/v1/twin/${ctx}/points-of-interest`, { name, ...at(x) });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  it("makes the site's live twin on first use, once, named after the site; a draft id answers the draft's view", async () => {
    const site = await createSite(org, 'South plant');
    const browsedBefore = await org.admin.get(`/v1/nodes/${site}/browse`);
    // Five first uses at once make one twin.
    const answers = await Promise.all(Array.from({ length: 5 }, () => org.admin.get(`/v1/twin/${site}`)));
    const [first] = answers as [ApiResponse];
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.stringMatching(UUID),
      siteId: site,
      name: 'South plant',
      draftId: null,
      layers: [],
      units: 'm',
      upAxis: 'Z',
      publishedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    for (const answer of answers) expect(answer.body).toEqual(first.body);
    const rows = await t.platform.regions[org.region].store.db
      .selectFrom('twins')
      .selectAll()
      .where('site_id', '=', site)
      .execute();
    expect(rows).toHaveLength(1);
    // The twin is no node of the tree: browsing the site is unchanged.
    expect((await org.admin.get(`/v1/nodes/${site}/browse`)).body).toEqual(browsedBefore.body);

    const draft = await openDraft(org, site, 'Layout');
    const view = await org.admin.get(`/v1/twin/${draft.id}`);
    expect(view.body).toEqual({ ...first.body, draftId: draft.id });
  });

  it('answers 404 for a context that is no site or draft of the organization, and stores nothing', async () => {
    const divisionId = await createNode(org, org.orgId, 'division', 'D');
    const other = await createOrg(t);
    const otherSite = await createSite(other);
    const otherDraft = await openDraft(other, otherSite);
    for (const ctx of [divisionId, org.orgId, randomUUID(), 'nothing-here', otherSite, otherDraft.id]) {
      await refused(() => org.admin.get(`/v1/twin/${ctx}`), 404, 'Not Found');
      await refused(() => org.admin.get(`/v1/twin/${ctx}/drafts`), 404, 'Not Found');
      await refused(() => org.admin.post(`/v1/twin/${ctx}/drafts`, { name: 'X' }), 404, 'Not Found');
      await refused(() => org.admin.get(`/v1/twin/${ctx}/changes`), 404, 'Not Found');
      await refused(() => org.admin.post(`/v1/twin/${ctx}/publish`, {}), 404, 'Not Found');
      await refused(() => org.admin.post(`/v1/twin/${ctx}/discard`, {}), 404, 'Not Found');
      await refused(() => org.admin.get(`/v1/twin/${ctx}/points-of-interest`), 404, 'Not Found');
      await refused(() => org.admin.post(`/v1/twin/${ctx}/points-of-interest`, { name: 'P', ...at(1) }), 404, 'Not Found');
    }
    // A draft id where a site is wanted, and a site id where a draft is wanted.
    const draft = await openDraft(org, siteId);
    await refused(() => org.admin.get(`/v1/twin/${draft.id}/drafts`), 404, 'Not Found');
    await refused(() => org.admin.post(`/v1/twin/${draft.id}/drafts`, { name: 'Nested' }), 404, 'Not Found');
    await refused(() => org.admin.get(`/v1/twin/${siteId}/changes`), 404, 'Not Found');
    await refused(() => org.admin.post(`/v1/twin/${siteId}/publish`, {}), 404, 'Not Found');
    await refused(() => org.admin.post(`/v1/twin/${siteId}/discard`, {}), 404, 'Not Found');
    // The other organization still sees its own.
    expect((await other.admin.get(`/v1/twin/${otherDraft.id}`)).body.draftId).toBe(otherDraft.id);
  });

  it('opens, lists and pages drafts; records twin-draft.created', async () => {
    const site = await createSite(org);
    const created = await org.admin.post(`/v1/twin/${site}/drafts`, { name: '  Spaced  ' });
    expect(created.status).toBe(201);
    const twin = (await org.admin.get(`/v1/twin/${site}`)).body;
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      twinId: twin.id,
      siteId: site,
      name: '  Spaced  ',
      status: 'open',
      changes: { added: 0, modified: 0, removed: 0 },
      createdBy: org.adminServiceUserId,
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
      publishedAt: null,
    });
    t.clock.advance(1000);
    const second = await openDraft(org, site, 'Second');
    const listed = await org.admin.get(`/v1/twin/${site}/drafts`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([created.body, second]);
    expect((await org.admin.get(`/v1/twin/${site}/drafts?limit=1&offset=1`)).body).toEqual([second]);
    expect((await org.admin.get(`/v1/twin/${site}/drafts?offset=2`)).body).toEqual([]);
    const [event] = await auditOf(t, org, created.body.id);
    expect(event).toMatchObject({
      action: 'twin-draft.created',
      target_type: 'twin-draft',
      details: { siteId: site, name: '  Spaced  ' },
    });
  });

  it('refuses malformed draft, publish and discard bodies and paging with 400, storing nothing', async () => {
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(256) }, { name: 7 }, { name: 'A', extra: 1 }]) {
      await refused(() => org.admin.post(`/v1/twin/${siteId}/drafts`, body), 400, 'ValidationError');
    }
    expect((await org.admin.post(`/v1/twin/${siteId}/drafts`, { name: '𝒳'.repeat(255) })).status).toBe(201);
    const draft = await openDraft(org, siteId);
    await refused(() => org.admin.post(`/v1/twin/${draft.id}/publish`, { all: true }), 400, 'ValidationError');
    await refused(() => org.admin.post(`/v1/twin/${draft.id}/publish`, { changeIds: 'x' }), 400, 'ValidationError');
    await refused(() => org.admin.post(`/v1/twin/${draft.id}/discard`, { now: true }), 400, 'ValidationError');
    await refused(() => org.admin.get(`/v1/twin/${siteId}/drafts?limit=0`), 400, 'ValidationError', /limit/);
    await refused(() => org.admin.get(`/v1/twin/${siteId}/drafts?offset=-1`), 400, 'ValidationError', /offset/);
  });

  it("keeps a draft's changes from live readers; its view is live plus its changes, live changes showing through", async () => {
    const site = await createSite(org);
    const kept = await poi(site, 'Kept', 1);
    const changed = await poi(site, 'Changed', 2);
    const removed = await poi(site, 'Removed', 3);
    const draft = await openDraft(org, site);
    const added = await poi(draft.id, 'Added', 4);
    const patched = await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${changed.id}`, { name: 'Changed in draft' });
    expect(patched.status).toBe(200);
    expect((await org.admin.delete(`/v1/twin/${draft.id}/points-of-interest/${removed.id}`)).status).toBe(204);

    const live = (await org.admin.get(`/v1/twin/${site}/points-of-interest`)).body;
    expect(live).toEqual([kept, changed, removed]);
    expect((await org.admin.get(`/v1/twin/${site}/points-of-interest/${added.id}`)).status).toBe(404);

    // A live change to a field the draft did not touch shows through the draft's patch.
    const moved = await org.admin.patch(`/v1/twin/${site}/points-of-interest/${changed.id}`, { color: '#00ff00' });
    expect(moved.body).toMatchObject({ name: 'Changed', color: '#00ff00' });
    const view = (await org.admin.get(`/v1/twin/${draft.id}/points-of-interest`)).body;
    expect(view.map((p: { name: string }) => p.name)).toEqual(['Kept', 'Changed in draft', 'Added']);
    expect(view[1]).toMatchObject({ name: 'Changed in draft', color: '#00ff00' });
    expect((await org.admin.get(`/v1/twin/${draft.id}/points-of-interest/${removed.id}`)).status).toBe(404);

    const changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    expect(changes).toEqual(
      expect.arrayContaining([
        { id: expect.any(String), objectType: 'pointOfInterest', objectId: added.id, kind: 'added' },
        { id: expect.any(String), objectType: 'pointOfInterest', objectId: changed.id, kind: 'modified' },
        { id: expect.any(String), objectType: 'pointOfInterest', objectId: removed.id, kind: 'removed' },
      ]),
    );
    expect(changes).toHaveLength(3);
    expect((await org.admin.get(`/v1/twin/${site}/drafts`)).body[0].changes).toEqual({ added: 1, modified: 1, removed: 1 });
  });

  it("pages a draft's view exactly as the whole view, whatever it removes before the page", async () => {
    const site = await createSite(org, 'Paged plant');
    const live = [];
    for (let i = 0; i < 26; i += 1) live.push(await poi(site, `Live ${i}`, i));
    // A few removals (within the first read's slack), and more than it (a second read).
    for (const removing of [3, 22]) {
      const draft = await openDraft(org, site, `Removes ${removing}`);
      for (const removed of live.slice(0, removing)) {
        expect((await org.admin.delete(`/v1/twin/${draft.id}/points-of-interest/${removed.id}`)).status).toBe(204);
      }
      const changed = live[removing + 1];
      expect((await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${changed.id}`, { name: 'Changed' })).status).toBe(
        200,
      );
      await poi(draft.id, 'Added 0');
      await poi(draft.id, 'Added 1');
      const whole = (await org.admin.get(`/v1/twin/${draft.id}/points-of-interest?limit=500`)).body;
      const names = live.slice(removing).map((item, i) => (i === 1 ? 'Changed' : item.name));
      expect(whole.map((item: { name: string }) => item.name)).toEqual([...names, 'Added 0', 'Added 1']);
      for (let offset = 0; offset <= whole.length; offset += 1) {
        for (const limit of [1, 2, 3, 4, 25]) {
          const page = await org.admin.get(`/v1/twin/${draft.id}/points-of-interest?limit=${limit}&offset=${offset}`);
          expect(page.body, `${removing} removed, limit ${limit}, offset ${offset}`).toEqual(whole.slice(offset, offset + limit));
        }
      }
    }
  });

  it('folds changes: added then patched stays added, added then deleted leaves nothing, modified then deleted is removed', async () => {
    const site = await createSite(org);
    const live = await poi(site, 'Live', 1);
    const draft = await openDraft(org, site);
    const added = await poi(draft.id, 'New', 2);
    await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${added.id}`, { name: 'New, renamed', icon: 'pump' });
    const gone = await poi(draft.id, 'Gone', 3);
    expect((await org.admin.delete(`/v1/twin/${draft.id}/points-of-interest/${gone.id}`)).status).toBe(204);
    await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${live.id}`, { name: 'Live, renamed' });
    await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${live.id}`, { icon: 'valve' });
    let changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    expect(changes.map((c: { objectId: string; kind: string }) => [c.objectId, c.kind]).sort()).toEqual(
      [
        [added.id, 'added'],
        [live.id, 'modified'],
      ].sort(),
    );
    const db = t.platform.regions[org.region].store.db;
    const modified = await db
      .selectFrom('twin_draft_changes')
      .selectAll()
      .where('object_id', '=', live.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(modified.fields as string)).toMatchObject({ name: 'Live, renamed', icon: 'valve' });
    expect((await org.admin.get(`/v1/twin/${draft.id}/points-of-interest/${added.id}`)).body).toMatchObject({
      name: 'New, renamed',
      icon: 'pump',
    });

    expect((await org.admin.delete(`/v1/twin/${draft.id}/points-of-interest/${live.id}`)).status).toBe(204);
    changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    expect(changes.find((c: { objectId: string }) => c.objectId === live.id).kind).toBe('removed');
    await refused(() => org.admin.delete(`/v1/twin/${draft.id}/points-of-interest/${live.id}`), 404, 'Not Found');
    await refused(
      () => org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${live.id}`, { name: 'Back' }),
      404,
      'Not Found',
    );
    expect((await org.admin.get(`/v1/twin/${site}/points-of-interest/${live.id}`)).body).toEqual(live);
  });

  it('publishes all changes in one go: the live twin then shows them; the draft is published; twin-draft.published', async () => {
    const site = await createSite(org);
    const a = await poi(site, 'A', 1);
    const b = await poi(site, 'B', 2);
    const draft = await openDraft(org, site);
    const c = await poi(draft.id, 'C', 3);
    await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${a.id}`, { name: 'A2' });
    await org.admin.delete(`/v1/twin/${draft.id}/points-of-interest/${b.id}`);
    // The live twin changes another field meanwhile: both survive the publish.
    await org.admin.patch(`/v1/twin/${site}/points-of-interest/${a.id}`, { description: 'live note' });
    t.clock.advance(1000);
    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body).toMatchObject({
      id: draft.id,
      status: 'published',
      publishedAt: expect.any(String),
      changes: { added: 1, modified: 1, removed: 1 },
      skipped: [],
    });
    const live = (await org.admin.get(`/v1/twin/${site}/points-of-interest`)).body;
    expect(live.map((p: { id: string }) => p.id)).toEqual([a.id, c.id]);
    expect(live[0]).toMatchObject({ name: 'A2', description: 'live note', createdAt: a.createdAt });
    expect(live[1]).toMatchObject({ name: 'C', position: { x: 3, y: 0, z: 0 }, createdBy: org.adminServiceUserId });
    expect((await org.admin.get(`/v1/twin/${site}`)).body.publishedAt).toBe(published.body.publishedAt);
    const events = await auditOf(t, org, draft.id as string);
    expect(events.map((e) => e.action)).toEqual(['twin-draft.created', 'twin-draft.published']);
    expect(events[1]?.details).toMatchObject({ published: 3, skipped: [] });
  });

  it('publishes only the changes named; an unknown change id is 400 naming changeIds and publishes nothing', async () => {
    const site = await createSite(org);
    const draft = await openDraft(org, site);
    const one = await poi(draft.id, 'One', 1);
    const two = await poi(draft.id, 'Two', 2);
    const changes = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    const ofOne = changes.find((c: { objectId: string }) => c.objectId === one.id).id;
    await refused(
      () => org.admin.post(`/v1/twin/${draft.id}/publish`, { changeIds: [ofOne, randomUUID()] }),
      400,
      'ValidationError',
      /changeIds/,
    );
    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, { changeIds: [ofOne] });
    expect(published.status).toBe(200);
    const live = (await org.admin.get(`/v1/twin/${site}/points-of-interest`)).body;
    expect(live.map((p: { id: string }) => p.id)).toEqual([one.id]);
    // The change left out stays readable on the published draft.
    expect((await org.admin.get(`/v1/twin/${draft.id}/points-of-interest/${two.id}`)).body.name).toBe('Two');
  });

  it('skips a change whose object the live twin deleted meanwhile, and names it', async () => {
    const site = await createSite(org);
    const doomed = await poi(site, 'Doomed', 1);
    const draft = await openDraft(org, site);
    await org.admin.patch(`/v1/twin/${draft.id}/points-of-interest/${doomed.id}`, { name: 'Renamed in draft' });
    const [change] = (await org.admin.get(`/v1/twin/${draft.id}/changes`)).body.items;
    expect((await org.admin.delete(`/v1/twin/${site}/points-of-interest/${doomed.id}`)).status).toBe(204);
    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.body.skipped).toEqual([change.id]);
    expect((await org.admin.get(`/v1/twin/${site}/points-of-interest`)).body).toEqual([]);
  });

  it('answers 409 DraftNotOpen to any write, publish or discard through a published or discarded draft', async () => {
    const site = await createSite(org);
    const live = await poi(site, 'Live', 1);
    const published = await openDraft(org, site, 'Published');
    const inPublished = await poi(published.id, 'In published', 2);
    expect((await org.admin.post(`/v1/twin/${published.id}/publish`, {})).status).toBe(200);
    const discarded = await openDraft(org, site, 'Discarded');
    const inDiscarded = await poi(discarded.id, 'In discarded', 3);
    const answer = await org.admin.post(`/v1/twin/${discarded.id}/discard`, {});
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'discarded', publishedAt: null, changes: { added: 1, modified: 0, removed: 0 } });
    expect((await org.admin.get(`/v1/twin/${site}/points-of-interest`)).body.map((p: { name: string }) => p.name)).toEqual([
      'Live',
      'In published',
    ]);

    for (const [draft, own] of [
      [published, inPublished],
      [discarded, inDiscarded],
    ] as const) {
      const base = `/v1/twin/${draft.id}`;
      await refused(() => org.admin.post(`${base}/points-of-interest`, { name: 'Late', ...at(9) }), 409, 'DraftNotOpen');
      await refused(() => org.admin.patch(`${base}/points-of-interest/${live.id}`, { name: 'Late' }), 409, 'DraftNotOpen');
      await refused(() => org.admin.patch(`${base}/points-of-interest/${own.id}`, { name: 'Late' }), 409, 'DraftNotOpen');
      await refused(() => org.admin.delete(`${base}/points-of-interest/${live.id}`), 409, 'DraftNotOpen');
      await refused(() => org.admin.post(`${base}/publish`, {}), 409, 'DraftNotOpen');
      await refused(() => org.admin.post(`${base}/discard`, {}), 409, 'DraftNotOpen');
      expect((await org.admin.get(base)).status).toBe(200);
      expect((await org.admin.get(`${base}/changes`)).body.items).toHaveLength(1);
    }
  });

  it("removes a site's twin, drafts, changes and objects with the site's hard delete; trashed, it is 404", async () => {
    const site = await createSite(org);
    await poi(site, 'Live', 1);
    const draft = await openDraft(org, site);
    await poi(draft.id, 'Drafted', 2);
    const db = t.platform.regions[org.region].store.db;
    const counts = async () => ({
      twins: (await db.selectFrom('twins').select('id').where('site_id', '=', site).execute()).length,
      drafts: (await db.selectFrom('twin_drafts').select('id').where('site_id', '=', site).execute()).length,
      changes: (await db.selectFrom('twin_draft_changes').select('id').where('draft_id', '=', draft.id).execute()).length,
      objects: (await db.selectFrom('twin_objects').select('id').where('site_id', '=', site).execute()).length,
    });
    expect(await counts()).toEqual({ twins: 1, drafts: 1, changes: 1, objects: 1 });
    expect((await org.admin.delete(`/v1/nodes/${site}`)).status).toBe(204);
    await refused(() => org.admin.get(`/v1/twin/${site}`), 404, 'Not Found');
    await refused(() => org.admin.get(`/v1/twin/${draft.id}/points-of-interest`), 404, 'Not Found');
    expect((await org.admin.delete(`/v1/nodes/${site}/hard`)).status).toBe(204);
    expect(await counts()).toEqual({ twins: 0, drafts: 0, changes: 0, objects: 0 });
  });
  it('needs read:hierarchy and read on the site to read, write:hierarchy and edit to write (401, 403 otherwise)', async () => {
    const draft = await openDraft(org, siteId);
    const anonymous = org.admin.withToken(undefined);
    await refused(() => anonymous.get(`/v1/twin/${siteId}`), 401, 'not_authenticated');
    await refused(() => anonymous.post(`/v1/twin/${siteId}/drafts`, { name: 'X' }), 401, 'not_authenticated');

    const noRead = await org.serviceClient({ scopes: 'read:basic write:hierarchy', roleName: 'Organization Administrator' });
    for (const path of [`/v1/twin/${siteId}`, `/v1/twin/${siteId}/drafts`, `/v1/twin/${draft.id}/changes`]) {
      await refused(() => noRead.client.get(path), 403, 'Forbidden', 'Insufficient OAuth scopes');
    }
    const noWrite = await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' });
    expect((await noWrite.client.get(`/v1/twin/${draft.id}`)).status).toBe(200);
    await refused(
      () => noWrite.client.post(`/v1/twin/${siteId}/drafts`, { name: 'X' }),
      403,
      'Forbidden',
      'Insufficient OAuth scopes',
    );
    await refused(() => noWrite.client.post(`/v1/twin/${draft.id}/publish`, {}), 403, 'Forbidden', 'Insufficient OAuth scopes');
    await refused(() => noWrite.client.post(`/v1/twin/${draft.id}/discard`, {}), 403, 'Forbidden', 'Insufficient OAuth scopes');

    const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: siteId });
    expect((await viewer.client.get(`/v1/twin/${siteId}/drafts`)).status).toBe(200);
    await refused(() => viewer.client.post(`/v1/twin/${siteId}/drafts`, { name: 'X' }), 403, 'Forbidden', 'Forbidden resource');
    await refused(() => viewer.client.post(`/v1/twin/${draft.id}/publish`, {}), 403, 'Forbidden', 'Forbidden resource');
    await refused(() => viewer.client.post(`/v1/twin/${draft.id}/discard`, {}), 403, 'Forbidden', 'Forbidden resource');
    // A member with no role on the site may not read it.
    const stranger = await org.serviceClient({ roleName: 'Contributor', nodeId: await createSite(org, 'Elsewhere') });
    await refused(() => stranger.client.get(`/v1/twin/${siteId}`), 403, 'Forbidden', 'Forbidden resource');
    await refused(() => stranger.client.get(`/v1/twin/${draft.id}`), 403, 'Forbidden', 'Forbidden resource');
    // A contributor on the site may write.
    const contributor = await org.serviceClient({ roleName: 'Contributor', nodeId: siteId });
    expect((await contributor.client.post(`/v1/twin/${siteId}/drafts`, { name: 'Mine' })).status).toBe(201);
    expect((await contributor.client.post(`/v1/twin/${draft.id}/discard`, {})).status).toBe(200);
    expect(await twinSnapshot(t, org)).toBeDefined();
  });
});
