import { attributeKey, LIST_RESPONSE_SCHEMA } from './attributes.js';
import { badRequest } from './scim-error.js';

/** The most resources one list answer holds (ServiceProviderConfig filter.maxResults). */
export const MAX_RESULTS = 200;

export interface Paging {
  /** 1-based, as SCIM counts. */
  startIndex: number;
  count: number;
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
export function parsePaging(startIndex: string | undefined, count: string | undefined): Paging {
  const start = integer('startIndex', startIndex) ?? 1;
  const size = integer('count', count) ?? MAX_RESULTS;
  return { startIndex: Math.max(1, start), count: Math.min(Math.max(0, size), MAX_RESULTS) };
}

export function listResponse(resources: Record<string, unknown>[], totalResults: number, paging: Paging) {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults,
    startIndex: paging.startIndex,
    itemsPerPage: resources.length,
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
