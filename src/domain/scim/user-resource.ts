import { field, isObject, USER_SCHEMA } from './attributes.js';
import { booleanValue, expandOperations, type PatchOperation, stringValue } from './patch.js';
import { badRequest } from './scim-error.js';

/** What an identity provider may set on a user here: the e-mail is the userName. */
export interface ScimUserFields {
  /** The e-mail address, lower-cased: the account's key across the platform. */
  userName: string;
  givenName: string;
  familyName: string;
  externalId: string | null;
  active: boolean;
}

/** A user of the organization as the SCIM surface shows it. */
export interface ScimUserRecord extends ScimUserFields {
  id: string;
  created: string;
  lastModified: string;
  /** The SCIM-managed groups the user belongs to (read only). */
  groups: { id: string; displayName: string }[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function userNameValue(value: unknown): string {
  const text = stringValue(value, 'userName', { min: 3, max: 254 }).trim().toLowerCase();
  if (!EMAIL.test(text)) throw badRequest('invalidValue', 'userName must be an e-mail address');
  return text;
}

function externalIdValue(value: unknown): string | null {
  return value === null ? null : stringValue(value, 'externalId', { min: 1 });
}

/**
 * The attributes a POST or PUT body gives; what it omits is left as it is. Attributes this
 * platform does not keep (phone numbers, the enterprise extension...) are ignored, and so are
 * read-only ones (id, groups, meta).
 */
export function userFieldsFromBody(body: unknown): Partial<ScimUserFields> {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'The body must be a User object');
  const fields: Partial<ScimUserFields> = {};
  const userName = field(body, 'userName');
  if (userName !== undefined) fields.userName = userNameValue(userName);
  const name = field(body, 'name');
  if (name !== undefined && name !== null) {
    if (!isObject(name)) throw badRequest('invalidValue', 'name must be an object');
    const given = field(name, 'givenName');
    const family = field(name, 'familyName');
    if (given !== undefined) fields.givenName = given === null ? '' : stringValue(given, 'name.givenName');
    if (family !== undefined) fields.familyName = family === null ? '' : stringValue(family, 'name.familyName');
  }
  const externalId = field(body, 'externalId');
  if (externalId !== undefined) fields.externalId = externalIdValue(externalId);
  const active = field(body, 'active');
  if (active !== undefined) fields.active = booleanValue(active, 'active');
  return fields;
}

/** A POST body: userName is required; a user is active unless it says otherwise. */
export function newUserFromBody(body: unknown): ScimUserFields {
  const fields = userFieldsFromBody(body);
  if (fields.userName === undefined) throw badRequest('invalidValue', 'userName is required');
  return { givenName: '', familyName: '', externalId: null, active: true, ...fields, userName: fields.userName };
}

const READ_ONLY = new Set(['id', 'meta', 'groups']);

/**
 * Applies PatchOp operations to a user (RFC 7644 section 3.5.2), in order. Paths are compared
 * without case; a remove of a required attribute (userName, active) is refused.
 */
export function applyUserPatch(current: ScimUserFields, operations: PatchOperation[]): ScimUserFields {
  const next = { ...current };
  for (const { op, path, value, fromValue } of expandOperations(operations, USER_SCHEMA)) {
    const set = op !== 'remove';
    switch (path.attribute) {
      case 'username':
        if (!set) throw badRequest('mutability', 'userName is required and cannot be removed');
        next.userName = userNameValue(value);
        break;
      case 'active':
        if (!set) throw badRequest('mutability', 'active cannot be removed; replace it with false');
        next.active = booleanValue(value, 'active');
        break;
      case 'externalid':
        next.externalId = set ? externalIdValue(value) : null;
        break;
      case 'name':
        applyName(next, path.subAttribute, set ? value : undefined);
        break;
      default:
        if (READ_ONLY.has(path.attribute) && !fromValue) {
          throw badRequest('mutability', `${path.attribute} is read-only`);
        }
      // Attributes this platform does not keep (emails, displayName, extensions) are ignored.
    }
  }
  return next;
}

/** `name`, `name.givenName` or `name.familyName`; `value` undefined removes. */
function applyName(next: ScimUserFields, subAttribute: string | undefined, value: unknown): void {
  if (subAttribute === 'givenname') next.givenName = value === undefined ? '' : stringValue(value, 'name.givenName');
  else if (subAttribute === 'familyname') next.familyName = value === undefined ? '' : stringValue(value, 'name.familyName');
  else if (subAttribute === undefined) {
    if (value === undefined) {
      next.givenName = '';
      next.familyName = '';
      return;
    }
    if (!isObject(value)) throw badRequest('invalidValue', 'name must be an object');
    const given = field(value, 'givenName');
    const family = field(value, 'familyName');
    if (given !== undefined) next.givenName = stringValue(given, 'name.givenName');
    if (family !== undefined) next.familyName = stringValue(family, 'name.familyName');
  }
  // Other parts of a name (formatted, middleName, honorificPrefix...) are not kept.
}

export function displayNameOf(user: Pick<ScimUserFields, 'givenName' | 'familyName' | 'userName'>): string {
  return `${user.givenName} ${user.familyName}`.trim() || user.userName;
}

/** The User resource of RFC 7643 section 4.1; `baseUrl` is the SCIM endpoint's address. */
export function toUserResource(user: ScimUserRecord, baseUrl: string): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(user.externalId !== null ? { externalId: user.externalId } : {}),
    userName: user.userName,
    name: {
      givenName: user.givenName,
      familyName: user.familyName,
      formatted: `${user.givenName} ${user.familyName}`.trim(),
    },
    displayName: displayNameOf(user),
    emails: [{ value: user.userName, type: 'work', primary: true }],
    active: user.active,
    groups: user.groups.map((group) => ({
      value: group.id,
      display: group.displayName,
      $ref: `${baseUrl}/Groups/${group.id}`,
      type: 'direct',
    })),
    meta: {
      resourceType: 'User',
      created: user.created,
      lastModified: user.lastModified,
      location: `${baseUrl}/Users/${user.id}`,
    },
  };
}
