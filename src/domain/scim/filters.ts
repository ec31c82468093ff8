import { type Compare, type Filter, parse } from 'scim2-parse-filter';
import { attributeKey, GROUP_SCHEMA, USER_SCHEMA } from './attributes.js';
import { badRequest } from './scim-error.js';

/**
 * The filters we answer: `eq` comparisons on a few attributes, joined by `and`, which is what
 * identity providers send to find a resource before creating it (RFC 7644 section 3.4.2.2).
 * Anything else is refused with 400 invalidFilter rather than answered wrongly.
 */
interface FilterableAttribute<Field extends string> {
  field: Field;
  type: 'string' | 'boolean';
  /** caseExact false: compared without case (the store keeps these lower-cased). */
  caseExact: boolean;
}

type AttributeTable<Field extends string> = Record<string, FilterableAttribute<Field>>;

export type UserQuery = Partial<{ id: string; email: string; externalId: string; active: boolean }>;
export type GroupQuery = Partial<{ id: string; displayName: string; externalId: string; memberId: string }>;

/** `none`: the filter can match nothing (the same attribute equal to two values). */
export type Query<Where> = { where: Where; none: boolean };

const USER_ATTRIBUTES: AttributeTable<keyof UserQuery> = {
  id: { field: 'id', type: 'string', caseExact: true },
  username: { field: 'email', type: 'string', caseExact: false },
  'emails.value': { field: 'email', type: 'string', caseExact: false },
  externalid: { field: 'externalId', type: 'string', caseExact: true },
  active: { field: 'active', type: 'boolean', caseExact: true },
};

const GROUP_ATTRIBUTES: AttributeTable<keyof GroupQuery> = {
  id: { field: 'id', type: 'string', caseExact: true },
  displayname: { field: 'displayName', type: 'string', caseExact: false },
  externalid: { field: 'externalId', type: 'string', caseExact: true },
  'members.value': { field: 'memberId', type: 'string', caseExact: true },
};

/** The comparisons of a conjunction; `emails[value eq "x"]` reads as `emails.value eq "x"`. */
function comparisons(filter: Filter, prefix = ''): Compare[] {
  switch (filter.op) {
    case 'and':
      return filter.filters.flatMap((part) => comparisons(part, prefix));
    case '[]':
      if (prefix) break;
      return comparisons(filter.valFilter, `${filter.attrPath}.`);
    case 'eq':
      return [{ ...filter, attrPath: `${prefix}${filter.attrPath}` }];
  }
  throw badRequest('invalidFilter', 'Only eq comparisons joined by and are supported');
}

function parseQuery<Field extends string>(
  text: string | undefined,
  coreSchema: string,
  attributes: AttributeTable<Field>,
): Query<Partial<Record<Field, string | boolean>>> {
  const where: Partial<Record<Field, string | boolean>> = {};
  if (text === undefined || text.trim() === '') return { where, none: false };
  let filter: Filter;
  try {
    filter = parse(text);
  } catch {
    throw badRequest('invalidFilter', 'The filter is not valid SCIM filter syntax');
  }
  let none = false;
  for (const comparison of comparisons(filter)) {
    const key = attributeKey(comparison.attrPath, coreSchema);
    // A multi-valued complex attribute compared as a whole compares its value (RFC 7644 3.4.2.2).
    const attribute = attributes[key] ?? attributes[`${key}.value`];
    if (!attribute) throw badRequest('invalidFilter', `Filtering on ${comparison.attrPath} is not supported`);
    const raw = comparison.compValue;
    if (typeof raw !== attribute.type) {
      throw badRequest('invalidFilter', `${comparison.attrPath} is compared with a ${attribute.type}`);
    }
    const value = typeof raw === 'string' && !attribute.caseExact ? raw.toLowerCase() : (raw as string | boolean);
    const seen = where[attribute.field];
    if (seen !== undefined && seen !== value) none = true;
    where[attribute.field] = value;
  }
  return { where, none };
}

export function parseUserFilter(text: string | undefined): Query<UserQuery> {
  return parseQuery(text, USER_SCHEMA, USER_ATTRIBUTES) as Query<UserQuery>;
}

export function parseGroupFilter(text: string | undefined): Query<GroupQuery> {
  return parseQuery(text, GROUP_SCHEMA, GROUP_ATTRIBUTES) as Query<GroupQuery>;
}
