/** Schema URNs of RFC 7643 and the message URNs of RFC 7644. */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * An attribute path as SCIM compares it (RFC 7643 section 2.1: names are case-insensitive),
 * lower-cased and without the resource's core schema URN, so `urn:...:User:userName` and
 * `USERNAME` are both `username`. Paths of extension schemas keep their URN.
 */
export function attributeKey(path: string, coreSchema: string): string {
  const lower = path.trim().toLowerCase();
  const prefix = `${coreSchema.toLowerCase()}:`;
  return lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value of an object's attribute, its name compared without case. */
export function field(object: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(object, name)) return object[name];
  const wanted = name.toLowerCase();
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === wanted);
  return key === undefined ? undefined : object[key];
}
