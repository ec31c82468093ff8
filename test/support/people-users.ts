import { randomUUID } from 'node:crypto';
import type { Region } from '../../src/domain/regions.js';
import { ApiClient, basicAuthorization, type OrgFixture, requestToken } from './fixtures.js';
import {
  authorizeWithForms,
  type CodeApp,
  consentUrl,
  createMember,
  exchangeCode,
  newPkce,
  refresh,
  registerCodeApp,
} from './oauth-flow.js';
import type { TestPlatform } from './platform.js';

/** Helpers of the roles, memberships and users tests. */

export const PERSON_SCOPES = ['read:basic', 'read:user', 'write:user', 'read:hierarchy', 'write:hierarchy'];

/** Rows of both stores that people and permissions changes write: compare before and after a refused request. */
export async function peopleSnapshot(t: TestPlatform, org: OrgFixture) {
  const regional = t.platform.regions[org.region].store.db;
  const global = t.platform.stores.global.db;
  const orgNodes = regional.selectFrom('nodes').select('id').where('org_id', '=', org.orgId);
  return {
    roles: await regional.selectFrom('roles').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    memberships: await regional
      .selectFrom('memberships')
      .selectAll()
      .where('node_id', 'in', orgNodes)
      .orderBy('node_id')
      .orderBy('principal_id')
      .execute(),
    groups: await regional.selectFrom('groups').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    invitations: await regional.selectFrom('invitations').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    audit: await regional.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    places: await global
      .selectFrom('user_organizations')
      .selectAll()
      .where('org_id', '=', org.orgId)
      .orderBy('user_id')
      .execute(),
    users: await global
      .selectFrom('users')
      .selectAll()
      .where('id', 'in', global.selectFrom('user_organizations').select('user_id').where('org_id', '=', org.orgId))
      .orderBy('id')
      .execute(),
    organization: await global.selectFrom('organizations').selectAll().where('id', '=', org.orgId).executeTakeFirst(),
  };
}

/** The organization's audit events with an action, oldest first, details parsed. */
export async function auditEvents(t: TestPlatform, org: OrgFixture, action: string) {
  const rows = await t.platform.regions[org.region].store.db
    .selectFrom('audit_events')
    .selectAll()
    .where('org_id', '=', org.orgId)
    .where('action', '=', action)
    .orderBy('occurred_at')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

/** A person's tokens through the real authorization-code flow (sign-in, consent, exchange). */
export async function personTokens(t: TestPlatform, org: OrgFixture, app: CodeApp, user: { email: string; password: string }) {
  const pkce = await newPkce();
  const url = consentUrl(t, app, pkce, {}, PERSON_SCOPES);
  const redirect = await authorizeWithForms(t, url, user, { allow: true, orgId: org.orgId });
  const response = await exchangeCode(t, app, redirect.searchParams.get('code') as string, pkce.verifier);
  if (response.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(response.body)}`);
  return response.body as { access_token: string; refresh_token: string };
}

export interface Person {
  id: string;
  email: string;
  password: string;
  client: ApiClient;
  refreshToken: string;
  /** Signs in again: a new access token through the code flow. */
  signIn(): Promise<ApiClient>;
  refresh(): ReturnType<typeof refresh>;
}

/** A person of the organization, optionally with a role on its node, signed in through an app of its own. */
export async function signedInPerson(t: TestPlatform, org: OrgFixture, roleName?: string): Promise<Person> {
  const app = await registerCodeApp(t, org, { scopes: PERSON_SCOPES });
  const member = await createMember(t, org, roleName);
  const tokens = await personTokens(t, org, app, member);
  const baseUrl = t.regionUrl(org.region);
  return {
    ...member,
    client: new ApiClient(baseUrl, tokens.access_token),
    refreshToken: tokens.refresh_token,
    signIn: async () => new ApiClient(baseUrl, (await personTokens(t, org, app, member)).access_token),
    refresh: () => refresh(t, app, tokens.refresh_token),
  };
}

export interface ServiceApp {
  userId: string;
  clientId: string;
  clientSecret: string;
  client: ApiClient;
  refreshToken: string;
  /** A client-credentials token request as is (status and body). */
  requestToken(): Promise<{ status: number; body: any }>;
  refresh(): Promise<{ status: number; body: any }>;
}

/** A client-credentials application whose service user may hold a role on the organization node. */
export async function serviceApp(t: TestPlatform, org: OrgFixture, roleName?: string): Promise<ServiceApp> {
  const created = await t.admin.createApplication({
    orgId: org.orgId,
    name: `Service ${randomUUID().slice(0, 6)}`,
    flow: 'client-credentials',
    scopes: PERSON_SCOPES,
  });
  const userId = created.serviceUserId as string;
  const clientSecret = created.clientSecret as string;
  if (roleName) await t.admin.grantMembership({ nodeId: org.orgId, principalId: userId, roleId: org.roles[roleName] as string });
  const authorization = basicAuthorization(created.clientId, clientSecret);
  const tokens = await requestToken(t, { grant_type: 'client_credentials' }, authorization);
  if (tokens.status !== 200) throw new Error(`token failed: ${JSON.stringify(tokens.body)}`);
  return {
    userId,
    clientId: created.clientId,
    clientSecret,
    client: new ApiClient(t.regionUrl(org.region), tokens.body.access_token),
    refreshToken: tokens.body.refresh_token,
    requestToken: () => requestToken(t, { grant_type: 'client_credentials' }, authorization),
    refresh: () => requestToken(t, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, authorization),
  };
}

/** Inserts a group straight into the regional store (the groups API is another area's). */
export async function insertGroup(
  t: TestPlatform,
  org: { orgId: string; region: Region },
  fields: { divisionId?: string | null; members?: string[]; name?: string } = {},
): Promise<string> {
  const db = t.platform.regions[org.region].store.db;
  const id = randomUUID();
  const now = new Date().toISOString();
  const name = fields.name ?? `Group ${id.slice(0, 6)}`;
  await db
    .insertInto('groups')
    .values({
      id,
      org_id: org.orgId,
      name,
      name_key: name.toLowerCase(),
      division_id: fields.divisionId ?? null,
      scim_managed: 0,
      scim_external_id: null,
      saml_linked: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  for (const userId of fields.members ?? []) {
    await db.insertInto('group_members').values({ group_id: id, user_id: userId, created_at: now }).execute();
  }
  return id;
}

/** The organization's seat limit, straight in the global store (the CLI's own test covers the command). */
export async function setSeatLimit(t: TestPlatform, org: OrgFixture, seatLimit: number | null) {
  await t.admin.setOrganizationLimits(org.orgId, { seatLimit });
}

/** The user's place in the organization as stored. */
export function place(t: TestPlatform, org: OrgFixture, userId: string) {
  return t.platform.stores.global.db
    .selectFrom('user_organizations')
    .selectAll()
    .where('org_id', '=', org.orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}
