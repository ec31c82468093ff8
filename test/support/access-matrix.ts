import { expect, it } from 'vitest';
import { type ApiClient, createOrg, type OrgFixture } from './fixtures.js';
import type { TestPlatform } from './platform.js';
import { refuser } from './refusals.js';
import { createSite, openDraft, twinSnapshot } from './twins.js';

/** A kind of twin object as the access matrix drives it: its routes and valid bodies (docs/architecture.md, "Recipe: a twin object kind"). */
export interface TwinObjectAccess {
  /** The kind in the tests' names: 'a point of interest'. */
  one: string;
  /** The routes: /v1/twin/{ctx}/<segment> and /v1/twin/{ctx}/<segment>/{id}. */
  segment: string;
  /** A create's body the platform takes (read once the file's fixtures are made). */
  body(): object;
  /** A PATCH's body the platform takes. */
  patch: object;
  /** The queries a reader's list takes besides the plain one (zones: ?tree=true). */
  listQueries?: string[];
  /** Makes one in the context (the owner's organization's), through the API. */
  create(owner: OrgFixture, ctx: string): Promise<{ id: string }>;
  /** More refusals about another organization's object (zones: naming it as a parent). */
  foreignAlso?(foreign: { id: string }): Promise<unknown>;
}

/** One refusal of the matrix: who sends what, and the answer (nothing stored, as every refusal). */
interface Refusal {
  caller: ApiClient;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: object;
  status: number;
  error: string;
  message?: string;
}

/**
 * The access tests every kind of twin object shares, from its row: an object of another site or
 * organization is 404 to every route, as a missing one; reading needs read:hierarchy and read on
 * the site, writing write:hierarchy and edit, through the live twin and through a draft alike.
 * Each refusal answers the error shape and stores nothing (twinSnapshot).
 */
export function twinObjectAccessTests(
  kind: TwinObjectAccess,
  fixture: () => { t: TestPlatform; org: OrgFixture; siteId: string },
): void {
  const refused = refuser(() => twinSnapshot(fixture().t, fixture().org));
  async function refuse(rows: Refusal[]) {
    for (const row of rows) {
      await refused(() => row.caller.request(row.method, row.path, row.body), row.status, row.error, row.message);
    }
  }

  it(`answers ${kind.one} of another site or organization like a missing one`, async () => {
    const { t, org, siteId } = fixture();
    const mine = await kind.create(org, siteId);
    const otherSite = await createSite(org);
    const other = await createOrg(t);
    const foreignSite = await createSite(other);
    const foreign = await kind.create(other, foreignSite);
    const path = (ctx: string, id: string) => `/v1/twin/${ctx}/${kind.segment}/${id}`;
    const missing = { caller: org.admin, status: 404, error: 'Not Found' };
    const rows: Refusal[] = [];
    for (const [ctx, id] of [
      [otherSite, mine.id],
      [siteId, foreign.id],
      [foreignSite, foreign.id],
    ] as const) {
      rows.push(
        { ...missing, method: 'GET', path: path(ctx, id) },
        { ...missing, method: 'PATCH', path: path(ctx, id), body: kind.patch },
        { ...missing, method: 'DELETE', path: path(ctx, id) },
      );
    }
    rows.push(
      { ...missing, method: 'GET', path: `/v1/twin/${foreignSite}/${kind.segment}` },
      { ...missing, method: 'POST', path: `/v1/twin/${foreignSite}/${kind.segment}`, body: kind.body() },
    );
    await refuse(rows);
    await kind.foreignAlso?.(foreign);
    expect((await other.admin.get(path(foreignSite, foreign.id))).body).toEqual(foreign);
  });

  it('needs read:hierarchy and read to read, write:hierarchy and edit to write', async () => {
    const { org, siteId } = fixture();
    const created = await kind.create(org, siteId);
    const draft = await openDraft(org, siteId);
    const anonymous = org.admin.withToken(undefined);
    const noRead = (await org.serviceClient({ scopes: 'read:basic write:hierarchy', roleName: 'Organization Administrator' }))
      .client;
    const noWrite = (await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' })).client;
    const viewer = (await org.serviceClient({ roleName: 'Viewer', nodeId: siteId })).client;
    const body = kind.body();
    for (const ctx of [siteId, draft.id]) {
      const list = `/v1/twin/${ctx}/${kind.segment}`;
      const one = `${list}/${created.id}`;
      const scopes = { status: 403, error: 'Forbidden', message: 'Insufficient OAuth scopes' };
      const role = { caller: viewer, status: 403, error: 'Forbidden', message: 'Forbidden resource' };
      await refuse([
        { caller: anonymous, method: 'GET', path: list, status: 401, error: 'not_authenticated' },
        { caller: anonymous, method: 'POST', path: list, body, status: 401, error: 'not_authenticated' },
        { ...scopes, caller: noRead, method: 'GET', path: list },
        { ...scopes, caller: noRead, method: 'GET', path: one },
        { ...scopes, caller: noWrite, method: 'POST', path: list, body },
        { ...scopes, caller: noWrite, method: 'PATCH', path: one, body: kind.patch },
        { ...scopes, caller: noWrite, method: 'DELETE', path: one },
      ]);
      // A Viewer on the site reads all, and writes nothing.
      expect((await viewer.get(one)).status).toBe(200);
      for (const query of ['', ...(kind.listQueries ?? [])]) expect((await viewer.get(`${list}${query}`)).status).toBe(200);
      await refuse([
        { ...role, method: 'POST', path: list, body },
        { ...role, method: 'PATCH', path: one, body: kind.patch },
        { ...role, method: 'DELETE', path: one },
      ]);
    }
  });
}
