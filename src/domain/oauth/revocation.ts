/**
 * When a grant's tokens stop working: access tokens at the resource APIs and refresh tokens at
 * the token endpoint follow one rule. No I/O: the callers read the facts (and may cache them).
 */
export interface RevocationFacts {
  /** The user is an active member of the organization. */
  active: boolean;
  /** Milliseconds: the user's tokens in the organization issued earlier are ended (a deactivation). */
  userNotBefore: number;
  /** Milliseconds: the application's grants issued earlier are ended. */
  appNotBefore: number;
  /** The grant's refresh family is revoked, or its application deleted. */
  familyRevoked: boolean;
}

/** A stored "not before" instant in milliseconds; none is 0. */
export function notBeforeMs(iso: string | null | undefined): number {
  return iso ? Date.parse(iso) : 0;
}

/** Whether a token issued at `issuedAtMs` (milliseconds) is revoked. */
export function isRevoked(issuedAtMs: number, facts: RevocationFacts): boolean {
  return !facts.active || facts.familyRevoked || issuedAtMs < Math.max(facts.userNotBefore, facts.appNotBefore);
}
