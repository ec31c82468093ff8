import { ApiError } from '../errors.js';

export interface UserChange {
  firstName?: string | undefined;
  lastName?: string | undefined;
  active?: boolean | undefined;
}

/** A user may change their own names; anything else needs manage on the organization node. */
export function needsOrganizationManage(callerId: string, targetId: string, change: UserChange): boolean {
  return callerId !== targetId || change.active !== undefined;
}

/** Deactivating oneself would lock the caller out mid-request, and may strand the organization. */
export function checkDeactivation(callerId: string, targetId: string): void {
  if (callerId === targetId) throw new ApiError('CannotDeactivateSelf');
}

/**
 * A person becoming active (reactivated, accepting an invitation, provisioned over SCIM) takes a
 * seat: refused with the spec's generic 403 when none is free (the body does not say which
 * limit). `used` counts the active people of the organization.
 */
export function checkSeatFree(seats: { used: number; limit: number | null }): void {
  if (seats.limit !== null && seats.used >= seats.limit) throw new ApiError('ForbiddenResource');
}

/** A user as its organization sees it, for planning a change. */
export interface UserState {
  kind: 'user' | 'service';
  firstName: string;
  lastName: string;
  /** Its place in the organization: deactivated there since (null: active). */
  memberDeactivatedAt: string | null;
  /** The user itself (a service user belongs to one organization, so it is deactivated here too). */
  userDeactivatedAt: string | null;
}

export interface UserChangePlan {
  user: { first_name?: string; last_name?: string; deactivated_at?: string | null; tokens_not_before?: string };
  member: { deactivated_at?: string | null };
  /** A service user's application: its grants issued so far end (refresh tokens too). */
  endApplicationGrants: boolean;
  /** The user's place in the organization ends or resumes. */
  deactivates: boolean;
  reactivates: boolean;
  events: { action: 'user.updated' | 'user.deactivated' | 'user.reactivated'; details: Record<string, unknown> }[];
}

/**
 * What a PATCH of a user writes. Deactivation is per organization (the user's place there); a
 * service user belongs to one organization, so the user itself is deactivated too (the token
 * endpoint checks it) and its tokens issued so far end for good, refresh tokens included (its
 * application's grants_not_before: the application is the service user's alone). Reactivating a service user
 * whose application is gone leaves the user itself deactivated: nothing can sign in as it.
 */
export function planUserChange(state: UserState, change: UserChange, now: string, applicationExists: boolean): UserChangePlan {
  const plan: UserChangePlan = {
    user: {},
    member: {},
    endApplicationGrants: false,
    deactivates: false,
    reactivates: false,
    events: [],
  };
  const names: Record<string, { from: string; to: string }> = {};
  if (change.firstName !== undefined && change.firstName !== state.firstName) {
    plan.user.first_name = change.firstName;
    names.firstName = { from: state.firstName, to: change.firstName };
  }
  if (change.lastName !== undefined && change.lastName !== state.lastName) {
    plan.user.last_name = change.lastName;
    names.lastName = { from: state.lastName, to: change.lastName };
  }
  if (Object.keys(names).length > 0) plan.events.push({ action: 'user.updated', details: names });

  const service = state.kind === 'service';
  if (change.active === false) {
    if (state.memberDeactivatedAt === null) plan.member.deactivated_at = now;
    if (service && state.userDeactivatedAt === null) {
      plan.user = { ...plan.user, deactivated_at: now, tokens_not_before: now };
      plan.endApplicationGrants = true;
    }
    plan.deactivates = plan.member.deactivated_at !== undefined || plan.user.deactivated_at !== undefined;
  } else if (change.active === true) {
    if (state.memberDeactivatedAt !== null) plan.member.deactivated_at = null;
    if (service && state.userDeactivatedAt !== null && applicationExists) plan.user.deactivated_at = null;
    plan.reactivates = plan.member.deactivated_at !== undefined || plan.user.deactivated_at !== undefined;
  }
  if (plan.deactivates) plan.events.push({ action: 'user.deactivated', details: { kind: state.kind } });
  if (plan.reactivates) {
    plan.events.push({
      action: 'user.reactivated',
      details: { kind: state.kind, ...(service && !applicationExists ? { applicationGone: true } : {}) },
    });
  }
  return plan;
}
