import { describe, expect, it } from 'vitest';
import { GROUP_SCHEMA } from './attributes.js';
import { listResponse, MAX_RESULTS, parsePaging, projectAttributes } from './listing.js';
import { ScimError } from './scim-error.js';

describe('SCIM list paging and attribute selection', () => {
  it('reads startIndex and count as RFC 7644 asks', () => {
    expect(parsePaging(undefined, undefined)).toEqual({ startIndex: 1, count: MAX_RESULTS });
    expect(parsePaging('0', '10')).toEqual({ startIndex: 1, count: 10 });
    expect(parsePaging('5', '-3')).toEqual({ startIndex: 5, count: 0 });
    expect(parsePaging('1', '100000')).toEqual({ startIndex: 1, count: MAX_RESULTS });
    expect(() => parsePaging('one', undefined)).toThrow(ScimError);
  });

  it('wraps resources in a ListResponse', () => {
    expect(listResponse([{ id: 'a' }], 7, { startIndex: 3, count: 1 })).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 7,
      startIndex: 3,
      itemsPerPage: 1,
      Resources: [{ id: 'a' }],
    });
  });

  it('leaves out excluded attributes and keeps only asked ones, never id or schemas', () => {
    const group = { schemas: [GROUP_SCHEMA], id: 'g', displayName: 'Sales', members: [{ value: 'u' }], meta: {} };
    expect(projectAttributes(group, GROUP_SCHEMA, { excludedAttributes: 'members' })).toEqual({
      schemas: [GROUP_SCHEMA],
      id: 'g',
      displayName: 'Sales',
      meta: {},
    });
    expect(projectAttributes(group, GROUP_SCHEMA, { attributes: 'DisplayName,id' })).toEqual({
      schemas: [GROUP_SCHEMA],
      id: 'g',
      displayName: 'Sales',
    });
    expect(projectAttributes(group, GROUP_SCHEMA, { excludedAttributes: 'id' })).toHaveProperty('id', 'g');
    expect(projectAttributes(group, GROUP_SCHEMA, {})).toBe(group);
  });
});
