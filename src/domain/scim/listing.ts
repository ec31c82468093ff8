import { type CursorKey, decodeCursor } from '../listing/cursor.js';
import { attributeKey, LIST_RESPONSE_SCHEMA } from './attributes.js';
import { badRequest } from './scim-error.js';

/** The most resources one list answer holds (ServiceProviderConfig filter.maxResults). */
export const MAX_RESULTS = 200;

export interface Paging {
  /** 1-based, as SCIM counts. */
  startIndex: number;
  count: number;
  /**
   * Cursor pagination (RFC 9865): the `cursor` parameter as sent, '' for the first page. Lists
   * that support it answer nextCursor; startIndex is then not used.
   */
  cursor?: string;
}

function integer(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d{1,9}$/.test(raw.trim())) throw badRequest('invalidValue', `${name} must be an integer`);
  return Number(raw);
}

/**
 * startIndex and count of RFC 7644 section 3.4.2.4: a startIndex below 1 reads as 1, a negative
 * count as 0 (the total alone), and a count above the maximum as the maximum.
 */
export function parsePaging(startIndex: string | undefined, count: string | undefined, cursor?: string): Paging {
  const start = integer('startIndex', startIndex);
  const size = integer('count', count) ?? MAX_RESULTS;
  if (cursor !== undefined && start !== undefined) {
    throw badRequest('invalidValue', 'startIndex and cursor cannot be combined');
  }
  const paging = { startIndex: Math.max(1, start ?? 1), count: Math.min(Math.max(0, size), MAX_RESULTS) };
  return cursor === undefined ? paging : { ...paging, cursor };
}

/**
 * The sort key ([created, id]) a cursor of this SCIM list holds, or 400 invalidCursor (RFC 9865)
 * in SCIM's error shape.
 */
export function decodeScimCursor(raw: string, list: string, scope: readonly string[]): CursorKey {
  try {
    return decodeCursor(raw, list, scope, 2);
  } catch {
    throw badRequest('invalidCursor', 'The cursor is not one this list returned for this filter');
  }
}

/** With cursor paging, the answer carries nextCursor (when a page may follow) instead of startIndex. */
export function listResponse(resources: Record<string, unknown>[], totalResults: number, paging: Paging, nextCursor?: string) {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults,
    ...(paging.cursor === undefined ? { startIndex: paging.startIndex } : {}),
    itemsPerPage: resources.length,
    ...(nextCursor === undefined ? {} : { nextCursor }),
    Resources: resources,
  };
}

/** Attributes a resource always carries, whatever `attributes` or `excludedAttributes` ask. */
const ALWAYS_RETURNED = new Set(['id', 'schemas']);

function topLevel(list: string | undefined, coreSchema: string): Set<string> | undefined {
  if (list === undefined || list.trim() === '') return undefined;
  return new Set(
    list
      .split(',')
      .map((path) => attributeKey(path, coreSchema).split('.')[0] as string)
      .filter(Boolean),
  );
}

/**
 * The `attributes` and `excludedAttributes` parameters (RFC 7644 section 3.4.2.5), on top-level
 * attributes: asking for `name.givenName` returns the whole `name`.
 */
export function projectAttributes(
  resource: Record<string, unknown>,
  coreSchema: string,
  query: { attributes?: string | undefined; excludedAttributes?: string | undefined },
): Record<string, unknown> {
  const included = topLevel(query.attributes, coreSchema);
  const excluded = topLevel(query.excludedAttributes, coreSchema);
  if (!included && !excluded) return resource;
  return Object.fromEntries(
    Object.entries(resource).filter(([name]) => {
      const key = name.toLowerCase();
      if (ALWAYS_RETURNED.has(key)) return true;
      if (included) return included.has(key);
      return !excluded?.has(key);
    }),
  );
}
