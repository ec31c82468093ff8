import { describe, expect, it } from 'vitest';
import { PATCH_OP_SCHEMA, USER_SCHEMA } from './attributes.js';
import { parsePatchRequest } from './patch.js';
import { ScimError } from './scim-error.js';
import { applyUserPatch, newUserFromBody, type ScimUserFields, toUserResource, userFieldsFromBody } from './user-resource.js';

const ada: ScimUserFields = {
  userName: 'ada@example.com',
  givenName: 'Ada',
  familyName: 'Lovelace',
  externalId: null,
  active: true,
};

function patch(current: ScimUserFields, Operations: unknown[]) {
  return applyUserPatch(current, parsePatchRequest({ schemas: [PATCH_OP_SCHEMA], Operations }, USER_SCHEMA));
}

function scimTypeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return error.scimType ?? String(error.status);
    throw error;
  }
  throw new Error('expected a ScimError');
}

describe('SCIM users', () => {
  it('reads a POST body as Entra ID and Okta send it', () => {
    const body = {
      schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a',
      userName: 'Grace.Hopper@Example.com',
      active: true,
      name: { givenName: 'Grace', familyName: 'Hopper', formatted: 'Grace Hopper' },
      emails: [{ primary: true, type: 'work', value: 'Grace.Hopper@example.com' }],
      phoneNumbers: [{ type: 'work', value: '555' }],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Navy' },
    };
    expect(newUserFromBody(body)).toEqual({
      userName: 'grace.hopper@example.com',
      givenName: 'Grace',
      familyName: 'Hopper',
      externalId: '0a21f0f2-8d2a',
      active: true,
    });
    expect(newUserFromBody({ UserName: 'x@y.co', Active: 'False' })).toMatchObject({ userName: 'x@y.co', active: false });
  });

  it('refuses a body without an e-mail userName', () => {
    expect(scimTypeOf(() => newUserFromBody({ name: { givenName: 'A' } }))).toBe('invalidValue');
    expect(scimTypeOf(() => newUserFromBody({ userName: 'jdoe' }))).toBe('invalidValue');
    expect(scimTypeOf(() => newUserFromBody({ userName: 'a@b.co', active: 'maybe' }))).toBe('invalidValue');
    expect(scimTypeOf(() => newUserFromBody([]))).toBe('invalidSyntax');
  });

  it('leaves what a PUT omits as it is', () => {
    expect(userFieldsFromBody({ userName: 'ada@example.com', name: { familyName: 'King' } })).toEqual({
      userName: 'ada@example.com',
      familyName: 'King',
    });
  });

  it("replaces active from Entra ID's strings and Okta's value object", () => {
    expect(patch(ada, [{ op: 'Replace', path: 'active', value: 'False' }]).active).toBe(false);
    expect(patch({ ...ada, active: false }, [{ op: 'Replace', path: 'active', value: 'True' }]).active).toBe(true);
    expect(patch(ada, [{ op: 'replace', value: { active: false } }]).active).toBe(false);
    expect(patch(ada, [{ op: 'replace', path: 'ACTIVE', value: false }]).active).toBe(false);
  });

  it('replaces names by path, by dotted key in a value object, and by a name object', () => {
    expect(patch(ada, [{ op: 'Replace', path: 'name.givenName', value: 'Augusta' }]).givenName).toBe('Augusta');
    expect(patch(ada, [{ op: 'replace', path: 'Name.FamilyName', value: 'King' }]).familyName).toBe('King');
    expect(patch(ada, [{ op: 'replace', value: { 'name.givenName': 'A', 'name.familyName': 'K' } }])).toMatchObject({
      givenName: 'A',
      familyName: 'K',
    });
    expect(patch(ada, [{ op: 'replace', value: { name: { givenName: 'B' } } }])).toMatchObject({
      givenName: 'B',
      familyName: 'Lovelace',
    });
    expect(
      patch(ada, [{ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:name.givenName', value: 'C' }]).givenName,
    ).toBe('C');
  });

  it('adds, replaces and removes externalId', () => {
    expect(patch(ada, [{ op: 'Add', path: 'externalId', value: 'e-1' }]).externalId).toBe('e-1');
    expect(patch({ ...ada, externalId: 'e-1' }, [{ op: 'replace', path: 'externalId', value: 'e-2' }]).externalId).toBe('e-2');
    expect(patch({ ...ada, externalId: 'e-1' }, [{ op: 'remove', path: 'externalId' }]).externalId).toBeNull();
  });

  it('ignores attributes it does not keep and read-only attributes inside a value object', () => {
    const operations = [
      { op: 'Replace', path: 'displayName', value: 'Countess' },
      { op: 'Add', path: 'emails[type eq "work"].value', value: 'other@example.com' },
      { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'Maths' },
      { op: 'replace', value: { id: 'someone-else', title: 'Analyst' } },
    ];
    expect(patch(ada, operations)).toEqual(ada);
  });

  it('refuses removing required attributes, changing read-only ones and malformed requests', () => {
    expect(scimTypeOf(() => patch(ada, [{ op: 'remove', path: 'userName' }]))).toBe('mutability');
    expect(scimTypeOf(() => patch(ada, [{ op: 'remove', path: 'active' }]))).toBe('mutability');
    expect(scimTypeOf(() => patch(ada, [{ op: 'replace', path: 'id', value: 'x' }]))).toBe('mutability');
    expect(scimTypeOf(() => patch(ada, [{ op: 'move', path: 'active', value: true }]))).toBe('invalidSyntax');
    expect(scimTypeOf(() => patch(ada, [{ op: 'remove' }]))).toBe('noTarget');
    expect(scimTypeOf(() => patch(ada, [{ op: 'replace', path: 'name..x', value: 1 }]))).toBe('invalidPath');
    expect(scimTypeOf(() => patch(ada, []))).toBe('invalidSyntax');
    expect(
      scimTypeOf(() => applyUserPatch(ada, parsePatchRequest({ schemas: [USER_SCHEMA], Operations: [] }, USER_SCHEMA))),
    ).toBe('invalidSyntax');
  });

  it('applies operations in order', () => {
    const next = patch(ada, [
      { op: 'replace', path: 'active', value: false },
      { op: 'replace', path: 'active', value: 'true' },
      { op: 'replace', path: 'userName', value: 'Ada.King@Example.com' },
    ]);
    expect(next).toMatchObject({ active: true, userName: 'ada.king@example.com' });
  });

  it('shows a user as RFC 7643 section 4.1 describes it', () => {
    const resource = toUserResource(
      { ...ada, id: 'u1', externalId: 'e1', created: 'c', lastModified: 'm', groups: [{ id: 'g1', displayName: 'Sales' }] },
      'https://rdp.example/scim/v2',
    );
    expect(resource).toEqual({
      schemas: [USER_SCHEMA],
      id: 'u1',
      externalId: 'e1',
      userName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
      displayName: 'Ada Lovelace',
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      active: true,
      groups: [{ value: 'g1', display: 'Sales', $ref: 'https://rdp.example/scim/v2/Groups/g1', type: 'direct' }],
      meta: { resourceType: 'User', created: 'c', lastModified: 'm', location: 'https://rdp.example/scim/v2/Users/u1' },
    });
  });
});
