import { describe, expect, it } from 'vitest';
import { GROUP_SCHEMA, PATCH_OP_SCHEMA } from './attributes.js';
import { applyGroupPatch, groupFieldsFromBody, type ScimGroupFields, toGroupResource } from './group-resource.js';
import { parsePatchRequest } from './patch.js';
import { ScimError } from './scim-error.js';

const sales: ScimGroupFields = { displayName: 'Sales', externalId: null, memberIds: ['u1', 'u2'] };

function patch(current: ScimGroupFields, Operations: unknown[]) {
  return applyGroupPatch(current, parsePatchRequest({ schemas: [PATCH_OP_SCHEMA], Operations }, GROUP_SCHEMA));
}

function scimTypeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return error.scimType;
    throw error;
  }
  throw new Error('expected a ScimError');
}

describe('SCIM groups', () => {
  it('reads a POST body with members, once each', () => {
    expect(
      groupFieldsFromBody({
        schemas: [GROUP_SCHEMA],
        displayName: 'Sales',
        externalId: 'x-1',
        members: [{ value: 'u1', display: 'Ada' }, { value: 'u1' }, { value: 'u2' }],
      }),
    ).toEqual({ displayName: 'Sales', externalId: 'x-1', memberIds: ['u1', 'u2'] });
    expect(groupFieldsFromBody({ displayName: 'Sales' })).toEqual({ displayName: 'Sales', externalId: null });
    expect(scimTypeOf(() => groupFieldsFromBody({ members: [] }))).toBe('invalidValue');
    expect(scimTypeOf(() => groupFieldsFromBody({ displayName: ' ' }))).toBe('invalidValue');
    expect(scimTypeOf(() => groupFieldsFromBody({ displayName: 'S', members: [{ id: 'u1' }] }))).toBe('invalidValue');
  });

  it("adds and removes members in Entra ID's shape", () => {
    expect(patch(sales, [{ op: 'Add', path: 'members', value: [{ value: 'u3' }, { value: 'u1' }] }]).memberIds).toEqual([
      'u1',
      'u2',
      'u3',
    ]);
    expect(patch(sales, [{ op: 'Remove', path: 'members', value: [{ value: 'u1' }] }]).memberIds).toEqual(['u2']);
  });

  it("removes a member by a path filter and replaces members in Okta's shape", () => {
    expect(patch(sales, [{ op: 'remove', path: 'members[value eq "u2"]' }]).memberIds).toEqual(['u1']);
    expect(patch(sales, [{ op: 'remove', path: 'members[value eq "u1" or value eq "u2"]' }]).memberIds).toEqual([]);
    expect(patch(sales, [{ op: 'replace', path: 'members', value: [{ value: 'u9' }] }]).memberIds).toEqual(['u9']);
    expect(patch(sales, [{ op: 'remove', path: 'members' }]).memberIds).toEqual([]);
    expect(patch(sales, [{ op: 'add', value: { members: [{ value: 'u3' }] } }]).memberIds).toEqual(['u1', 'u2', 'u3']);
  });

  it('renames by path and by a value object that also carries the id (Okta)', () => {
    expect(patch(sales, [{ op: 'Replace', path: 'displayName', value: 'Sales EMEA' }]).displayName).toBe('Sales EMEA');
    expect(patch(sales, [{ op: 'replace', value: { id: 'g1', displayName: 'Revenue' } }])).toEqual({
      ...sales,
      displayName: 'Revenue',
    });
    expect(patch(sales, [{ op: 'add', path: 'externalId', value: 'x-2' }]).externalId).toBe('x-2');
  });

  it('refuses what it cannot apply', () => {
    expect(scimTypeOf(() => patch(sales, [{ op: 'remove', path: 'displayName' }]))).toBe('mutability');
    expect(scimTypeOf(() => patch(sales, [{ op: 'replace', path: 'members[value eq "u1"]', value: {} }]))).toBe('invalidPath');
    expect(scimTypeOf(() => patch(sales, [{ op: 'replace', path: 'members[value eq', value: {} }]))).toBe('invalidPath');
    expect(scimTypeOf(() => patch(sales, [{ op: 'add', path: 'members', value: ['u3'] }]))).toBe('invalidValue');
    expect(scimTypeOf(() => patch(sales, [{ op: 'replace', path: 'id', value: 'g2' }]))).toBe('mutability');
  });

  it('shows a group as RFC 7643 section 4.2 describes it', () => {
    const resource = toGroupResource(
      {
        id: 'g1',
        displayName: 'Sales',
        externalId: null,
        created: 'c',
        lastModified: 'm',
        members: [{ id: 'u1', display: 'Ada' }],
      },
      'https://rdp.example/scim/v2',
    );
    expect(resource).toEqual({
      schemas: [GROUP_SCHEMA],
      id: 'g1',
      displayName: 'Sales',
      members: [{ value: 'u1', display: 'Ada', $ref: 'https://rdp.example/scim/v2/Users/u1', type: 'User' }],
      meta: { resourceType: 'Group', created: 'c', lastModified: 'm', location: 'https://rdp.example/scim/v2/Groups/g1' },
    });
  });
});
