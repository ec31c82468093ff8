import { type Filter, filter as matcher, parse } from 'scim2-parse-filter';
import { attributeKey, field, isObject, PATCH_OP_SCHEMA } from './attributes.js';
import { badRequest } from './scim-error.js';

/** A PATCH target: `members[value eq "x"]`, `name.givenName`, `active`... lower-cased, core URN removed. */
export interface PatchPath {
  attribute: string;
  subAttribute?: string;
  /** The value filter of a multi-valued attribute, as `members[value eq "x"]` gives it. */
  filter?: Filter;
}

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  /** Absent: the value is an object of attributes to add or replace. */
  path?: PatchPath;
  value: unknown;
}

/** At most this many operations in one PATCH: an identity provider sends a handful. */
const MAX_OPERATIONS = 1000;

const PATH = /^([a-z][\w$-]*)(?:\[(.+)\])?(?:\.([a-z][\w$-]*))?$/i;

export function parsePath(raw: string, coreSchema: string): PatchPath {
  const key = attributeKey(raw, coreSchema);
  // An extension schema's attribute (the enterprise user's department): named whole.
  if (key.startsWith('urn:')) return { attribute: key };
  const match = PATH.exec(key);
  if (!match) throw badRequest('invalidPath', `The path ${raw} is not a SCIM attribute path`);
  const [, attribute, filterText, subAttribute] = match as unknown as [string, string, string | undefined, string | undefined];
  let filter: Filter | undefined;
  if (filterText !== undefined) {
    try {
      filter = parse(filterText);
    } catch {
      throw badRequest('invalidPath', `The filter of the path ${raw} is not valid`);
    }
  }
  return { attribute, ...(subAttribute ? { subAttribute } : {}), ...(filter ? { filter } : {}) };
}

/**
 * The operations of a PatchOp request (RFC 7644 section 3.5.2). Operation names are compared
 * without case, as identity providers send "Replace" (Entra ID) or "replace" (Okta).
 */
export function parsePatchRequest(body: unknown, coreSchema: string): PatchOperation[] {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'The body must be a PatchOp object');
  const schemas = field(body, 'schemas');
  if (Array.isArray(schemas) && !schemas.includes(PATCH_OP_SCHEMA)) {
    throw badRequest('invalidSyntax', `schemas must contain ${PATCH_OP_SCHEMA}`);
  }
  const operations = field(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw badRequest('invalidSyntax', 'Operations must be a non-empty array');
  }
  if (operations.length > MAX_OPERATIONS) throw badRequest('tooMany', `At most ${MAX_OPERATIONS} operations`);
  return operations.map((operation, index) => {
    if (!isObject(operation)) throw badRequest('invalidSyntax', `Operations[${index}] must be an object`);
    const op = String(field(operation, 'op') ?? '').toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw badRequest('invalidSyntax', `Operations[${index}].op must be add, replace or remove`);
    }
    const rawPath = field(operation, 'path');
    if (rawPath !== undefined && (typeof rawPath !== 'string' || rawPath.trim() === '')) {
      throw badRequest('invalidPath', `Operations[${index}].path must be a non-empty string`);
    }
    const value = field(operation, 'value');
    if (rawPath === undefined) {
      if (op === 'remove') throw badRequest('noTarget', `Operations[${index}]: remove needs a path`);
      if (!isObject(value)) throw badRequest('invalidValue', `Operations[${index}]: without a path the value must be an object`);
    }
    return { op, ...(rawPath !== undefined ? { path: parsePath(rawPath, coreSchema) } : {}), value };
  });
}

export type ExpandedOperation = PatchOperation & { path: PatchPath; fromValue: boolean };

/**
 * An operation without a path, its value an object of attributes, as one operation per
 * attribute; a key may itself be a path (`"name.givenName"`, as Entra ID sends).
 * `fromValue` tells the appliers that a read-only attribute in it (`id`) is to be ignored.
 */
export function expandOperations(operations: PatchOperation[], coreSchema: string): ExpandedOperation[] {
  return operations.flatMap((operation): ExpandedOperation[] => {
    if (operation.path) return [{ ...operation, path: operation.path, fromValue: false }];
    return Object.entries(operation.value as Record<string, unknown>)
      .filter(([key]) => key.toLowerCase() !== 'schemas')
      .map(([key, value]) => ({ op: operation.op, path: parsePath(key, coreSchema), value, fromValue: true }));
  });
}

/** Whether an element of a multi-valued attribute (`{ value: "id" }`) matches a path's filter. */
export function matchesPathFilter(filter: Filter, element: Record<string, unknown>): boolean {
  return matcher(filter)(element);
}

/** Entra ID sends booleans as the strings "True" and "False". */
export function booleanValue(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw badRequest('invalidValue', `${name} must be a boolean`);
}

/** A string attribute of 1 to `max` characters (code points), or the error naming it. */
export function stringValue(value: unknown, name: string, options: { min?: number; max?: number } = {}): string {
  const { min = 0, max = 255 } = options;
  if (typeof value !== 'string') throw badRequest('invalidValue', `${name} must be a string`);
  const length = [...value].length;
  if (length < min || length > max) throw badRequest('invalidValue', `${name} must be ${min} to ${max} characters`);
  return value;
}
