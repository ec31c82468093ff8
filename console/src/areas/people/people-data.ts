import { ok, RdpApiError, type Schema } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';

export type User = Schema<'User'>;
export type Group = Schema<'Group'>;
export type Role = Schema<'Role'>;
export type Membership = Schema<'Membership'>;
export type AuditEvent = Schema<'AuditEvent'>;

/** A person's name as people read it: first and last name, else the address. */
export function personName(user: Pick<User, 'firstName' | 'lastName' | 'email'>): string {
  return `${user.firstName} ${user.lastName}`.trim() || user.email;
}

/** The person of the organization with exactly this address (GET /v1/users?email=), or undefined. */
export async function findPersonByEmail(session: ConsoleSession, email: string): Promise<User | undefined> {
  const found = await ok(session.api.GET('/v1/users', { params: { query: { email: email.trim(), limit: 1 } } }));
  return found[0];
}

const roleLists = new WeakMap<ConsoleSession, Promise<Role[]>>();

/** The organization's roles (administrative first, then custom by name), read once per session. */
export function loadRoles(session: ConsoleSession): Promise<Role[]> {
  let roles = roleLists.get(session);
  if (!roles) {
    roles = ok(session.api.GET('/v1/roles'));
    roles.catch(() => roleLists.delete(session));
    roleLists.set(session, roles);
  }
  return roles;
}

/** Forgets the roles read (after one is created, changed or deleted), so the next dialogs read them again. */
export function forgetRoles(session: ConsoleSession): void {
  roleLists.delete(session);
  forgetNames(session);
}

/** The roles that can be given on a node: administrative roles on the organization node only. */
export function rolesFor(roles: Role[], onOrganization: boolean): Role[] {
  return onOrganization ? roles : roles.filter((role) => role.kind === 'custom');
}

const nameReads = new WeakMap<ConsoleSession, Map<string, Promise<string | undefined>>>();

/**
 * The name of a user, group, role or node by its id, for the audit trail and membership lists:
 * read once per session; undefined when it is gone (a deleted group keeps its events).
 */
export function nameOf(
  session: ConsoleSession,
  kind: 'user' | 'group' | 'node' | 'role',
  id: string,
): Promise<string | undefined> {
  let cache = nameReads.get(session);
  if (!cache) {
    cache = new Map();
    nameReads.set(session, cache);
  }
  const key = `${kind}/${id}`;
  let name = cache.get(key);
  if (!name) {
    name = readName(session, kind, id).catch((error: unknown) => {
      if (error instanceof RdpApiError && (error.status === 403 || error.status === 404)) return undefined;
      throw error;
    });
    cache.set(key, name);
  }
  return name;
}

/** Forgets the names read (after a rename), so the next lists read them again. */
export function forgetNames(session: ConsoleSession): void {
  nameReads.get(session)?.clear();
}

async function readName(session: ConsoleSession, kind: 'user' | 'group' | 'node' | 'role', id: string) {
  switch (kind) {
    case 'user':
      return personName(await ok(session.api.GET('/v1/users/{userId}', { params: { path: { userId: id } } })));
    case 'group':
      return (await ok(session.api.GET('/v1/groups/{groupId}', { params: { path: { groupId: id } } }))).name;
    case 'node':
      return (await ok(session.api.GET('/v1/nodes/{nodeId}', { params: { path: { nodeId: id } } }))).name;
    case 'role':
      return (await loadRoles(session)).find((role) => role.id === id)?.name;
  }
}
