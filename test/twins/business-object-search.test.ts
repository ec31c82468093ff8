import { beforeAll, describe, expect, it } from 'vitest';
import { float4Decimal, similarity } from '../../src/domain/search/trigrams.js';
import { type ApiClient, createNode, createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { createSite, openDraft, twinSnapshot } from '../support/twins.js';

const identity = { x: 0, y: 0, z: 0, w: 1 };
const volume = { boxes: [{ center: { x: 0, y: 0, z: 0 }, size: { x: 1, y: 1, z: 1 }, rotation: identity }] };
type Kind = 'asset' | 'pointOfInterest';
const PATHS: Record<Kind, string> = { asset: 'assets', pointOfInterest: 'points-of-interest' };

interface Item {
  id: string;
  type: Kind;
  name: string;
  contextId: string;
  metadataTypeId: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  closeness?: number;
}

describe('business-object search: GET /v1/business-objects', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteA: string;
  let siteB: string;
  let editor: { client: ApiClient; userId: string };
  let draftId: string;
  /** Every object of the organization's live twins, by name. */
  const objects = new Map<string, Item>();
  withPlatformAndOrg((started) => ({ t, org } = started));
  const refused = refuser(() => twinSnapshot(t, org));

  /** Creates an object through its kind's route, one second after the one before (distinct instants). */
  async function make(ctx: string, type: Kind, name: string, client: ApiClient = org.admin, tick = 1000): Promise<Item> {
    t.clock.advance(tick);
    const body = type === 'asset' ? { name, volume } : { name, position: { x: 1, y: 2, z: 3 } };
    const response = await client.post(`/v1/twin/${ctx}/${PATHS[type]}`, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const b = response.body;
    const item: Item = {
      id: b.id,
      type,
      name,
      contextId: ctx,
      metadataTypeId: b.metadataTypeId,
      createdBy: b.createdBy,
      createdAt: b.createdAt,
      updatedAt: b.updatedAt,
    };
    objects.set(name, item);
    return item;
  }

  const search = async (query = '', client: ApiClient = org.admin) => {
    const response = await client.get(`/v1/business-objects${query ? `?${query}` : ''}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as { items: Item[]; page: number; limit: number; total: number };
  };
  const names = (items: Item[]) => items.map((item) => item.name);
  const q = encodeURIComponent;
  /** The objects of `list`, newest change first (the default order): ties by id, descending too. */
  const byUpdatedDesc = (list: Item[]) =>
    [...list].sort((a, b) => (a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1));
  const all = () => [...objects.values()];

  beforeAll(async () => {
    siteA = await createSite(org, 'Site A');
    siteB = await createSite(org, 'Site B');
    editor = await org.serviceClient({ roleName: 'Contributor' });
    await make(siteA, 'asset', 'Pump P-101');
    await make(siteA, 'pointOfInterest', 'pump room door');
    await make(siteA, 'asset', 'Valve V-7', editor.client);
    await make(siteA, 'pointOfInterest', 'Tank T-7');
    await make(siteB, 'asset', 'TANK T-8', editor.client);
    await make(siteB, 'pointOfInterest', 'Tank farm gate');
    await make(siteB, 'asset', '50% valve_b');
    // Changed later: first in the default order.
    t.clock.advance(1000);
    const pump = objects.get('Pump P-101') as Item;
    const patched = await org.admin.patch(`/v1/twin/${siteA}/assets/${pump.id}`, { description: 'Changed' });
    expect(patched.status).toBe(200);
    pump.updatedAt = patched.body.updatedAt;
    // Never found: a zone, a draft's object, and (below) another organization's.
    const zone = await org.admin.post(`/v1/twin/${siteA}/zones`, { name: 'Pump zone', volume });
    expect(zone.status).toBe(201);
    const draft = await openDraft(org, siteA);
    draftId = draft.id;
    expect((await org.admin.post(`/v1/twin/${draft.id}/assets`, { name: 'Pump in a draft', volume })).status).toBe(201);
  });

  it('answers every live asset and point of interest of the organization, newest change first, with their fields', async () => {
    const page = await search();
    expect(page).toEqual({ items: byUpdatedDesc(all()), page: 1, limit: 20, total: 7 });
    expect(page.items[0]).toEqual({
      ...(objects.get('Pump P-101') as Item),
      type: 'asset',
      contextId: siteA,
      metadataTypeId: null,
      createdBy: org.adminServiceUserId,
    });
    expect(page.items.find((item) => item.name === 'Valve V-7')?.createdBy).toBe(editor.userId);
  });

  it('types: one kind or both (repeated)', async () => {
    const assets = all().filter((item) => item.type === 'asset');
    expect((await search('types=asset')).items).toEqual(byUpdatedDesc(assets));
    const points = all().filter((item) => item.type === 'pointOfInterest');
    expect((await search('types=pointOfInterest')).items).toEqual(byUpdatedDesc(points));
    expect((await search('types=asset&types=pointOfInterest')).total).toBe(7);
  });

  it('contextId: the objects of that site only', async () => {
    const page = await search(`contextId=${siteB}`);
    expect(page.items).toEqual(byUpdatedDesc(all().filter((item) => item.contextId === siteB)));
    expect(page.total).toBe(3);
  });

  it('name: contains (default), startsWith and exact without regard to case; LIKE wildcards are literal', async () => {
    const found = async (query: string) => names((await search(`${query}&sortBy=name`)).items);
    expect(await found(`searchNameQuery=${q('TANK')}`)).toEqual(['Tank farm gate', 'Tank T-7', 'TANK T-8']);
    expect(await found(`searchNameQuery=pump&searchNameMatch=contains`)).toEqual(['Pump P-101', 'pump room door']);
    expect(await found(`searchNameQuery=${q('t-')}`)).toEqual(['Tank T-7', 'TANK T-8']);
    expect(await found(`searchNameQuery=${q('tank t')}&searchNameMatch=startsWith`)).toEqual(['Tank T-7', 'TANK T-8']);
    expect(await found(`searchNameQuery=${q('ank')}&searchNameMatch=startsWith`)).toEqual([]);
    expect(await found(`searchNameQuery=${q('tank t-8')}&searchNameMatch=exact`)).toEqual(['TANK T-8']);
    expect(await found(`searchNameQuery=${q('tank t')}&searchNameMatch=exact`)).toEqual([]);
    expect(await found(`searchNameQuery=${q('%')}`)).toEqual(['50% valve_b']);
    expect(await found(`searchNameQuery=${q('e_b')}`)).toEqual(['50% valve_b']);
    expect(await found(`searchNameQuery=${q('v_l')}`)).toEqual([]);
    expect(await found(`searchNameQuery=${q('50%')}&searchNameMatch=startsWith`)).toEqual(['50% valve_b']);
    // Empty: no name condition (and no closeness).
    const empty = await search('searchNameQuery=');
    expect(empty.total).toBe(7);
    expect(empty.items.every((item) => item.closeness === undefined)).toBe(true);
  });

  it('the earlier names nameQuery and nameMatch; the new names win when both are given', async () => {
    expect(names((await search('nameQuery=valve&nameMatch=startsWith')).items)).toEqual(['Valve V-7']);
    expect(names((await search('searchNameQuery=pump%20p&nameQuery=valve&nameMatch=startsWith')).items)).toEqual(['Pump P-101']);
    expect(names((await search('nameQuery=pump&searchNameMatch=exact&nameMatch=contains')).items)).toEqual([]);
  });

  it("fuzzy keeps closeness >= 0.3, pg_trgm's numbers on both stores; nameCloseness orders by it (desc by default)", async () => {
    const text = 'tank T7';
    const expected = all()
      .map((item) => ({ ...item, closeness: float4Decimal(similarity(item.name, text)) }))
      .filter((item) => item.closeness >= 0.3)
      .sort((a, b) => (a.closeness === b.closeness ? (a.id < b.id ? 1 : -1) : b.closeness - a.closeness));
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expect(expected.length).toBeLessThan(7);
    const page = await search(`searchNameQuery=${q(text)}&searchNameMatch=fuzzy&sortBy=nameCloseness`);
    expect(page.items).toEqual(expected);
    expect(page.total).toBe(expected.length);
    const ascending = await search(`searchNameQuery=${q(text)}&searchNameMatch=fuzzy&sortBy=nameCloseness&sortOrder=asc`);
    expect(ascending.items).toEqual([...expected].reverse());
    // Any name condition shows the closeness; nameCloseness orders a contains search too.
    const contains = await search('searchNameQuery=tank&sortBy=nameCloseness');
    const shown = contains.items.map((item) => item.closeness as number);
    expect(shown).toEqual(contains.items.map((item) => float4Decimal(similarity(item.name, 'tank'))).sort((a, b) => b - a));
    expect(contains.total).toBe(3);
  });

  it('sortBy and sortOrder: each order, its default direction, ties broken by id in the same direction', async () => {
    const list = all();
    const by = (key: (item: Item) => string, descending: boolean) =>
      [...list].sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        const order = x === y ? (a.id < b.id ? -1 : 1) : x < y ? -1 : 1;
        return descending ? -order : order;
      });
    const nameKey = (item: Item) => item.name.toLowerCase();
    expect((await search('sortBy=name')).items).toEqual(by(nameKey, false));
    expect((await search('sortBy=name&sortOrder=desc')).items).toEqual(by(nameKey, true));
    expect((await search('sortBy=createdAt')).items).toEqual(by((item) => item.createdAt, true));
    expect((await search('sortBy=createdAt&sortOrder=asc')).items).toEqual(by((item) => item.createdAt, false));
    expect((await search('sortBy=updatedAt&sortOrder=asc')).items).toEqual(by((item) => item.updatedAt, false));
    expect((await search('sortOrder=desc')).items).toEqual(by((item) => item.updatedAt, true));
  });

  it('createdBy, repeatable', async () => {
    const byEditor = all().filter((item) => item.createdBy === editor.userId);
    expect((await search(`createdBy=${editor.userId}`)).items).toEqual(byUpdatedDesc(byEditor));
    expect((await search(`createdBy=${editor.userId}&createdBy=${org.adminServiceUserId}`)).total).toBe(7);
    expect((await search('createdBy=nobody')).total).toBe(0);
  });

  it('createdAfter, createdBefore, updatedAfter, updatedBefore: exclusive bounds, any offset', async () => {
    const valve = objects.get('Valve V-7') as Item;
    const at = valve.createdAt;
    const createdAfter = all().filter((item) => item.createdAt > at);
    expect((await search(`createdAfter=${at}`)).items).toEqual(byUpdatedDesc(createdAfter));
    const createdBefore = all().filter((item) => item.createdAt < at);
    expect((await search(`createdBefore=${at}`)).items).toEqual(byUpdatedDesc(createdBefore));
    expect((await search(`createdAfter=${at}&createdBefore=${at}`)).total).toBe(0);
    // The same instant written with another offset.
    const shifted = new Date(Date.parse(at) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect((await search(`createdBefore=${q(shifted)}`)).items).toEqual(byUpdatedDesc(createdBefore));
    const pump = objects.get('Pump P-101') as Item;
    expect(names((await search(`updatedAfter=${pump.createdAt}&updatedBefore=${q(pump.updatedAt)}`)).items)).toEqual(
      names(byUpdatedDesc(all().filter((item) => item.updatedAt > pump.createdAt && item.updatedAt < pump.updatedAt))),
    );
    expect(names((await search(`updatedAfter=${q(pump.createdAt)}&types=asset&searchNameQuery=pump`)).items)).toEqual([
      'Pump P-101',
    ]);
    expect((await search(`updatedBefore=${q(pump.updatedAt)}`)).total).toBe(6);
  });

  it('pages never overlap or skip, in every order, with equal instants', async () => {
    // Three objects made at the same instant: only the id orders them.
    const site = await createSite(org, 'Same instant');
    for (const name of ['Same 1', 'Same 2', 'Same 3']) await make(site, 'asset', name, org.admin, 0);
    try {
      for (const order of ['sortBy=updatedAt', 'sortBy=createdAt&sortOrder=asc', 'sortBy=name', 'sortBy=name&sortOrder=desc']) {
        const whole = await search(`${order}&limit=100`);
        expect(whole.total).toBe(10);
        const pages: Item[] = [];
        for (let page = 1; page <= 4; page += 1) {
          const answer = await search(`${order}&limit=3&page=${page}`);
          expect(answer).toMatchObject({ page, limit: 3, total: 10 });
          expect(answer.items.length).toBe(page < 4 ? 3 : 1);
          pages.push(...answer.items);
        }
        expect(pages, order).toEqual(whole.items);
      }
      const fuzzy = 'searchNameQuery=same&searchNameMatch=fuzzy&sortBy=nameCloseness';
      const whole = await search(fuzzy);
      expect(whole.total).toBe(3);
      const paged = [...(await search(`${fuzzy}&limit=2`)).items, ...(await search(`${fuzzy}&limit=2&page=2`)).items];
      expect(paged).toEqual(whole.items);
      expect(await search(`${fuzzy}&limit=2&page=2`)).toMatchObject({ page: 2, limit: 2, total: 3 });
      expect(await search(`${fuzzy}&limit=2&page=3`)).toEqual({ items: [], page: 3, limit: 2, total: 3 });
      expect(await search('limit=5&page=3')).toEqual({ items: [], page: 3, limit: 5, total: 10 });
    } finally {
      for (const name of ['Same 1', 'Same 2', 'Same 3']) {
        const item = objects.get(name) as Item;
        expect((await org.admin.delete(`/v1/twin/${site}/assets/${item.id}`)).status).toBe(204);
        objects.delete(name);
      }
    }
    expect((await search()).total).toBe(7);
  });

  it('bounds and malformed values: 400 ValidationError naming the parameter, nothing stored', async () => {
    const refusedQuery = (query: string, message: RegExp) =>
      refused(() => org.admin.get(`/v1/business-objects?${query}`), 400, 'ValidationError', message);
    await refusedQuery('page=0', /^querystring\.page: /);
    await refusedQuery('page=1.5', /^querystring\.page: /);
    await refusedQuery('page=abc', /^querystring\.page: /);
    await refusedQuery('page=10000001', /^querystring\.page: /);
    await refusedQuery('limit=0', /^querystring\.limit: /);
    await refusedQuery('limit=101', /^querystring\.limit: /);
    await refusedQuery('sortBy=size', /^querystring\.sortBy: /);
    await refusedQuery('sortOrder=up', /^querystring\.sortOrder: /);
    await refusedQuery('sortBy=nameCloseness', /^querystring\.sortBy: nameCloseness needs searchNameQuery/);
    await refusedQuery('sortBy=nameCloseness&searchNameQuery=', /^querystring\.sortBy: /);
    await refusedQuery('types=zone', /^querystring\.types\.0: /);
    await refusedQuery('types=asset&types=modelAsset', /^querystring\.types\.1: /);
    await refusedQuery('searchNameMatch=regex', /^querystring\.searchNameMatch: /);
    await refusedQuery('nameMatch=similar', /^querystring\.nameMatch: /);
    await refusedQuery(`searchNameQuery=${'a'.repeat(256)}`, /^querystring\.searchNameQuery: /);
    await refusedQuery(`nameQuery=${'a'.repeat(256)}`, /^querystring\.nameQuery: /);
    await refusedQuery(`createdBy=${'u'.repeat(65)}`, /^querystring\.createdBy\.0: /);
    await refusedQuery(Array.from({ length: 101 }, (_, i) => `createdBy=u${i}`).join('&'), /^querystring\.createdBy: /);
    for (const field of ['createdAfter', 'createdBefore', 'updatedAfter', 'updatedBefore']) {
      for (const value of ['yesterday', '2026-01-01', '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00']) {
        await refusedQuery(`${field}=${q(value)}`, new RegExp(`^querystring\\.${field}: `));
      }
    }
    await refusedQuery('contextId=', /^querystring\.contextId: /);
    await refusedQuery(`contextId=${'c'.repeat(65)}`, /^querystring\.contextId: /);
    await refusedQuery('unknown=1', /^querystring: unknown property "unknown"/);
    // A draft id: the search reads live twins only.
    const draft = await openDraft(org, siteA, 'Search draft');
    await refusedQuery(`contextId=${draft.id}`, /^querystring\.contextId: names a draft/);
    // Largest values accepted.
    expect(await search('page=10000000&limit=100')).toEqual({ items: [], page: 10_000_000, limit: 100, total: 7 });
  });

  it("contextId of no site: 404 (missing, a folder, another organization's site); a site the caller cannot read: 403", async () => {
    const other = await createOrg(t);
    const otherSite = await createSite(other);
    const folder = await createNode(org, siteA, 'folder', 'Folder');
    for (const id of ['no-such-node', folder, otherSite, org.orgId]) {
      await refused(() => org.admin.get(`/v1/business-objects?contextId=${id}`), 404, 'Not Found');
    }
    const reader = await org.serviceClient({ roleName: 'Viewer', nodeId: siteA });
    await refused(() => reader.client.get(`/v1/business-objects?contextId=${siteB}`), 403, 'Forbidden');
  });

  it('only sites the caller reads: a Viewer of one site, a caller with no role, another organization', async () => {
    const reader = await org.serviceClient({ roleName: 'Viewer', nodeId: siteA });
    const fromA = all().filter((item) => item.contextId === siteA);
    expect(await search('', reader.client)).toEqual({ items: byUpdatedDesc(fromA), page: 1, limit: 20, total: fromA.length });
    expect((await search(`contextId=${siteA}&searchNameQuery=tank`, reader.client)).items.map((i) => i.name)).toEqual([
      'Tank T-7',
    ]);
    const nobody = await org.serviceClient({ scopes: 'read:hierarchy' });
    expect(await search('', nobody.client)).toEqual({ items: [], page: 1, limit: 20, total: 0 });
    const other = await createOrg(t);
    const otherSite = await createSite(other);
    expect((await other.admin.post(`/v1/twin/${otherSite}/assets`, { name: 'Pump P-101', volume })).status).toBe(201);
    const theirs = await search('searchNameQuery=pump', other.admin);
    expect(theirs.total).toBe(1);
    expect(theirs.items[0]?.contextId).toBe(otherSite);
    expect((await search('searchNameQuery=pump')).total).toBe(2);
  });

  it("through a group: a member sees the sites the group's role reaches, and no more once removed", async () => {
    const member = await org.serviceClient({ scopes: 'read:hierarchy' });
    const group = await org.admin.post('/v1/groups', { name: 'Site B readers' });
    expect(group.status).toBe(201);
    await t.admin.grantMembership({ nodeId: siteB, principalId: group.body.id, roleId: org.roles.Viewer as string });
    expect((await search('', member.client)).total).toBe(0);
    expect((await org.admin.request('PUT', `/v1/groups/${group.body.id}/users/${member.userId}`)).status).toBe(200);
    const fromB = all().filter((item) => item.contextId === siteB);
    expect((await search('', member.client)).items).toEqual(byUpdatedDesc(fromB));
    expect((await org.admin.delete(`/v1/groups/${group.body.id}/users/${member.userId}`)).status).toBe(204);
    expect((await search('', member.client)).total).toBe(0);
  });

  it('leaves out trashed sites and sites restricted to another identity provider', async () => {
    const site = await createSite(org, 'Short-lived');
    const item = await make(site, 'asset', 'Pump in the trash');
    expect((await search('searchNameQuery=pump')).total).toBe(3);
    await t.admin.restrictNodeToIdentityProvider(site, 'corporate-okta');
    expect(names((await search('searchNameQuery=pump')).items)).not.toContain(item.name);
    await t.admin.restrictNodeToIdentityProvider(site, null);
    expect((await search('searchNameQuery=pump')).total).toBe(3);
    // Restricted above the site: the division.
    const division = (await t.platform.regions[org.region]?.nodes.findById(site))?.parent_id as string;
    await t.admin.restrictNodeToIdentityProvider(division, 'corporate-okta');
    expect((await search('searchNameQuery=pump')).total).toBe(2);
    await t.admin.restrictNodeToIdentityProvider(division, null);
    expect((await org.admin.delete(`/v1/nodes/${site}`)).status).toBe(204);
    objects.delete(item.name);
    expect(names((await search('searchNameQuery=pump')).items)).toEqual(['Pump P-101', 'pump room door']);
  });

  it('follows the live twin: a published draft object appears, a renamed one is found by its new name only, a deleted one is gone', async () => {
    const published = await org.admin.post(`/v1/twin/${draftId}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const found = async (text: string) => names((await search(`searchNameQuery=${q(text)}&sortBy=name`)).items);
    expect(await found('in a draft')).toEqual(['Pump in a draft']);
    const item = (await search(`searchNameQuery=${q('pump in a draft')}&searchNameMatch=exact`)).items[0] as Item;
    expect(item).toMatchObject({ type: 'asset', contextId: siteA });
    const renamed = await org.admin.patch(`/v1/twin/${siteA}/assets/${item.id}`, { name: 'Boiler feed B-12' });
    expect(renamed.status).toBe(200);
    expect(await found('in a draft')).toEqual([]);
    expect(await found('boiler feed')).toEqual(['Boiler feed B-12']);
    expect(await found('feed b-1')).toEqual(['Boiler feed B-12']);
    expect((await org.admin.delete(`/v1/twin/${siteA}/assets/${item.id}`)).status).toBe(204);
    expect(await found('boiler feed')).toEqual([]);
    expect((await search()).total).toBe(7);
  });

  it('scopes: read:hierarchy is needed (403), a token too (401)', async () => {
    const writerOnly = await org.serviceClient({ scopes: 'write:hierarchy', roleName: 'Organization Administrator' });
    await refused(() => writerOnly.client.get('/v1/business-objects'), 403, 'Forbidden', /Insufficient OAuth scopes/);
    await refused(() => org.admin.withToken(undefined).get('/v1/business-objects'), 401, expect.any(String) as never);
  });
});
