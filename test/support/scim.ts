import type { ApiResponse, OrgFixture } from './fixtures.js';
import { authorizeWithForms, consentUrl, exchangeCode, newPkce, registerCodeApp } from './oauth-flow.js';
import type { TestPlatform } from './platform.js';

export const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An identity provider's side of /scim/v2: bodies sent as application/scim+json unless told. */
export class ScimClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | undefined,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/scim+json',
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/scim+json' };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['content-type'] = contentType;
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : text) as T, headers: response.headers };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body: unknown) {
    return this.request<T>('POST', path, body);
  }
  put<T = any>(path: string, body: unknown) {
    return this.request<T>('PUT', path, body);
  }
  patch<T = any>(path: string, operations: unknown[]) {
    return this.request<T>('PATCH', path, { schemas: [SCIM_PATCH], Operations: operations });
  }
  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }
  withToken(token: string | undefined): ScimClient {
    return new ScimClient(this.baseUrl, token);
  }
}

/** A SCIM token made through the regional API by the organization's administrator. */
export async function createScimClient(t: TestPlatform, org: OrgFixture, name = 'Entra ID') {
  const created = await org.admin.post('/v1/scim-tokens', { name });
  if (created.status !== 201) throw new Error(`scim token: ${created.status} ${JSON.stringify(created.body)}`);
  return { client: new ScimClient(`${t.origin}/scim/v2`, created.body.token), tokenId: created.body.id as string };
}

/** A User resource as Entra ID sends it on creation. */
export function entraUser(email: string, extra: Record<string, unknown> = {}) {
  const [local = ''] = email.split('@');
  return {
    schemas: [SCIM_USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
    externalId: `ext-${local}`,
    userName: email,
    active: true,
    displayName: local,
    name: { formatted: local, familyName: 'Family', givenName: local },
    emails: [{ primary: true, type: 'work', value: email }],
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Survey' },
    ...extra,
  };
}

/**
 * What SCIM may change for an organization, in both stores: its people and their places, its
 * tokens, its groups and members, node memberships and its audit trail. Compare before and after
 * a refused request.
 */
export async function scimSnapshot(t: TestPlatform, org: OrgFixture) {
  const global = t.platform.stores.global.db;
  const regional = t.platform.regions[org.region].store.db;
  const places = await global
    .selectFrom('user_organizations')
    .selectAll()
    .where('org_id', '=', org.orgId)
    .orderBy('user_id')
    .execute();
  const users = await global.selectFrom('users').selectAll().orderBy('id').execute();
  const tokens = await global.selectFrom('scim_tokens').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute();
  const groups = await regional.selectFrom('groups').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute();
  const groupMembers = await regional.selectFrom('group_members').selectAll().orderBy('group_id').orderBy('user_id').execute();
  const memberships = await regional.selectFrom('memberships').selectAll().orderBy('node_id').orderBy('principal_id').execute();
  const audit = await regional.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute();
  // last_used_at moves with any authenticated request, refused or not.
  return {
    places,
    users,
    tokens: tokens.map(({ last_used_at: _, ...token }) => token),
    groups,
    groupMembers,
    memberships,
    audit,
  };
}

/** Sends a request between two snapshots: a refused request must leave them equal. */
export async function scimBetweenSnapshots(t: TestPlatform, org: OrgFixture, send: () => Promise<ApiResponse>) {
  const before = await scimSnapshot(t, org);
  const response = await send();
  return { response, before, after: await scimSnapshot(t, org) };
}

/** The audit events of an organization, oldest first, with their details parsed. */
export async function auditEvents(t: TestPlatform, org: OrgFixture, action?: string) {
  let query = t.platform.regions[org.region].store.db.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId);
  if (action) query = query.where('action', '=', action);
  const rows = await query.orderBy('occurred_at').orderBy('id').execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

/** Signs a person in through the consent page for the organization and returns its access token. */
export async function userAccessToken(t: TestPlatform, org: OrgFixture, user: { email: string; password: string }) {
  const app = await registerCodeApp(t, org);
  const pkce = await newPkce();
  const redirect = await authorizeWithForms(t, consentUrl(t, app, pkce), user, { allow: true, orgId: org.orgId });
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code: ${redirect}`);
  const response = await exchangeCode(t, app, code, pkce.verifier);
  if (response.status !== 200) throw new Error(`exchange: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.access_token as string;
}
