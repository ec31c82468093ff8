import type { Filter } from 'scim2-parse-filter';
import { field, GROUP_SCHEMA, isObject } from './attributes.js';
import { expandOperations, matchesPathFilter, type PatchOperation, stringValue } from './patch.js';
import { badRequest } from './scim-error.js';

/** What an identity provider sets on a group: its name, its id for it, its members (user ids). */
export interface ScimGroupFields {
  displayName: string;
  externalId: string | null;
  memberIds: string[];
}

export interface ScimGroupRecord extends Omit<ScimGroupFields, 'memberIds'> {
  id: string;
  created: string;
  lastModified: string;
  members: { id: string; display: string }[];
}

/** Members beyond this many in one request are refused: provisioning sends them in batches. */
export const MAX_MEMBERS_PER_REQUEST = 10_000;

function displayNameValue(value: unknown): string {
  const name = stringValue(value, 'displayName', { min: 1 });
  if (name.trim() === '') throw badRequest('invalidValue', 'displayName must not be blank');
  return name;
}

/** `[{ value: "id" }, ...]` or one such object (some providers send one) as user ids. */
export function memberIdsValue(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_MEMBERS_PER_REQUEST) throw badRequest('tooMany', `At most ${MAX_MEMBERS_PER_REQUEST} members at once`);
  return items.map((item, index) => {
    const id = isObject(item) ? field(item, 'value') : undefined;
    if (typeof id !== 'string' || id === '') throw badRequest('invalidValue', `members[${index}].value must be a user id`);
    return id;
  });
}

/** A POST or PUT body: displayName is required; members, when given, are the whole list. */
export function groupFieldsFromBody(body: unknown): Omit<ScimGroupFields, 'memberIds'> & { memberIds?: string[] } {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'The body must be a Group object');
  const displayName = field(body, 'displayName');
  if (displayName === undefined) throw badRequest('invalidValue', 'displayName is required');
  const externalId = field(body, 'externalId');
  const members = field(body, 'members');
  return {
    displayName: displayNameValue(displayName),
    externalId: externalId === undefined || externalId === null ? null : stringValue(externalId, 'externalId', { min: 1 }),
    ...(members !== undefined && members !== null ? { memberIds: unique(memberIdsValue(members)) } : {}),
  };
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

/**
 * Applies PatchOp operations to a group, in order, in the shapes identity providers send:
 * Entra ID `{ op: "Add"|"Remove", path: "members", value: [{ value }] }`, Okta
 * `{ op: "remove", path: "members[value eq \"id\"]" }` and `{ op: "replace", value: { displayName } }`.
 */
export function applyGroupPatch(current: ScimGroupFields, operations: PatchOperation[]): ScimGroupFields {
  const next = { ...current, memberIds: [...current.memberIds] };
  for (const { op, path, value, fromValue } of expandOperations(operations, GROUP_SCHEMA)) {
    switch (path.attribute) {
      case 'displayname':
        if (op === 'remove') throw badRequest('mutability', 'displayName is required and cannot be removed');
        next.displayName = displayNameValue(value);
        break;
      case 'externalid':
        next.externalId = op === 'remove' || value === null ? null : stringValue(value, 'externalId', { min: 1 });
        break;
      case 'members':
        next.memberIds = applyMembers(next.memberIds, op, path.filter, path.subAttribute, value);
        break;
      default:
        if ((path.attribute === 'id' || path.attribute === 'meta') && !fromValue) {
          throw badRequest('mutability', `${path.attribute} is read-only`);
        }
      // Other attributes are not kept by this platform: ignored.
    }
  }
  return next;
}

function applyMembers(
  memberIds: string[],
  op: PatchOperation['op'],
  filter: Filter | undefined,
  subAttribute: string | undefined,
  value: unknown,
): string[] {
  if (subAttribute !== undefined) throw badRequest('invalidPath', `members.${subAttribute} cannot be changed on its own`);
  if (filter !== undefined) {
    // members[value eq "id"]: only a remove names members by a filter.
    if (op !== 'remove') throw badRequest('invalidPath', 'A members filter is supported with remove only');
    return memberIds.filter((id) => !matchesPathFilter(filter, { value: id }));
  }
  if (op === 'remove') {
    if (value === undefined || value === null) return [];
    const removed = new Set(memberIdsValue(value));
    return memberIds.filter((id) => !removed.has(id));
  }
  const given = memberIdsValue(value);
  return unique(op === 'replace' ? given : [...memberIds, ...given]);
}

/** The Group resource of RFC 7643 section 4.2. */
export function toGroupResource(group: ScimGroupRecord, baseUrl: string): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    ...(group.externalId !== null ? { externalId: group.externalId } : {}),
    displayName: group.displayName,
    members: group.members.map((member) => ({
      value: member.id,
      display: member.display,
      $ref: `${baseUrl}/Users/${member.id}`,
      type: 'User',
    })),
    meta: {
      resourceType: 'Group',
      created: group.created,
      lastModified: group.lastModified,
      location: `${baseUrl}/Groups/${group.id}`,
    },
  };
}
