import { describe, expect, it } from 'vitest';
import { planUserChange, type UserState } from './user-rules.js';

const NOW = '2026-01-01T00:00:00.000Z';
const EARLIER = '2025-06-01T00:00:00.000Z';
const person: UserState = { kind: 'user', firstName: 'Ada', lastName: 'L', memberDeactivatedAt: null, userDeactivatedAt: null };
const service: UserState = { ...person, kind: 'service', firstName: '', lastName: '' };

describe('planUserChange', () => {
  it('writes only the names that change, with their old and new values', () => {
    const plan = planUserChange(person, { firstName: 'Ada', lastName: 'Lovelace' }, NOW, false);
    expect(plan.user).toEqual({ last_name: 'Lovelace' });
    expect(plan.events).toEqual([{ action: 'user.updated', details: { lastName: { from: 'L', to: 'Lovelace' } } }]);
    expect(planUserChange(person, { firstName: 'Ada' }, NOW, false).events).toEqual([]);
  });

  it("deactivates a person's place only", () => {
    const plan = planUserChange(person, { active: false }, NOW, false);
    expect(plan).toMatchObject({ user: {}, member: { deactivated_at: NOW }, deactivates: true, endApplicationGrants: false });
    expect(plan.events.map((event) => event.action)).toEqual(['user.deactivated']);
    expect(planUserChange({ ...person, memberDeactivatedAt: EARLIER }, { active: false }, NOW, false).deactivates).toBe(false);
  });

  it('deactivates a service user itself too, and ends its grants', () => {
    const plan = planUserChange(service, { active: false }, NOW, true);
    expect(plan.user).toEqual({ deactivated_at: NOW, tokens_not_before: NOW });
    expect(plan.member).toEqual({ deactivated_at: NOW });
    expect(plan.endApplicationGrants).toBe(true);
  });

  it('reactivates a service user only while its application exists', () => {
    const inactive = { ...service, memberDeactivatedAt: EARLIER, userDeactivatedAt: EARLIER };
    expect(planUserChange(inactive, { active: true }, NOW, true)).toMatchObject({
      user: { deactivated_at: null },
      member: { deactivated_at: null },
      reactivates: true,
    });
    const orphan = planUserChange(inactive, { active: true }, NOW, false);
    expect(orphan.user).toEqual({});
    expect(orphan.events).toEqual([{ action: 'user.reactivated', details: { kind: 'service', applicationGone: true } }]);
  });

  it('changes nothing when the user is already in the state asked for', () => {
    const plan = planUserChange(person, { active: true }, NOW, false);
    expect(plan).toMatchObject({ user: {}, member: {}, deactivates: false, reactivates: false, events: [] });
  });
});
