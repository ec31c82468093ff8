import { describe, expect, it } from 'vitest';
import { parseGroupFilter, parseUserFilter } from './filters.js';
import { ScimError } from './scim-error.js';

function refused(run: () => unknown): ScimError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  throw new Error('expected a ScimError');
}

describe('SCIM filters', () => {
  it('reads the eq filters identity providers send to find a user', () => {
    expect(parseUserFilter('userName eq "Ada@Example.com"')).toEqual({ where: { email: 'ada@example.com' }, none: false });
    expect(parseUserFilter('externalId eq "AbC-1"').where).toEqual({ externalId: 'AbC-1' });
    expect(parseUserFilter('emails.value eq "a@b.co"').where).toEqual({ email: 'a@b.co' });
    expect(parseUserFilter('emails[value eq "a@b.co"]').where).toEqual({ email: 'a@b.co' });
    expect(parseUserFilter('active eq false').where).toEqual({ active: false });
    expect(parseUserFilter('id eq "u1" and active eq true').where).toEqual({ id: 'u1', active: true });
  });

  it('compares attribute names and operators without case, with or without the schema URN', () => {
    expect(parseUserFilter('USERNAME EQ "x@y.co"').where).toEqual({ email: 'x@y.co' });
    expect(parseUserFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x@y.co"').where).toEqual({ email: 'x@y.co' });
  });

  it('has no conditions without a filter', () => {
    expect(parseUserFilter(undefined)).toEqual({ where: {}, none: false });
    expect(parseUserFilter('  ')).toEqual({ where: {}, none: false });
  });

  it('matches nothing when one attribute must equal two values', () => {
    expect(parseUserFilter('userName eq "a@b.co" and emails.value eq "c@d.co"').none).toBe(true);
    expect(parseUserFilter('userName eq "a@b.co" and emails.value eq "A@B.co"').none).toBe(false);
  });

  it('reads group filters, including the membership check of Entra ID', () => {
    expect(parseGroupFilter('displayName eq "Sales"').where).toEqual({ displayName: 'sales' });
    expect(parseGroupFilter('id eq "g1" and members[value eq "u1"]').where).toEqual({ id: 'g1', memberId: 'u1' });
    expect(parseGroupFilter('externalId eq "X"').where).toEqual({ externalId: 'X' });
  });

  it('refuses with invalidFilter what it does not support, rather than answering wrongly', () => {
    for (const text of [
      'userName co "a"',
      'userName eq "a" or userName eq "b"',
      'not (active eq true)',
      'title pr',
      'title eq "x"',
      'emails[type eq "work"]',
      'active eq "yes"',
      'userName eq',
      'userName eq "x" and',
    ]) {
      const error = refused(() => parseUserFilter(text));
      expect(error.status, text).toBe(400);
      expect(error.scimType, text).toBe('invalidFilter');
    }
    expect(refused(() => parseGroupFilter('members[display eq "x"]')).scimType).toBe('invalidFilter');
  });
});
