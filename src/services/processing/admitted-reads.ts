import { performance } from 'node:perf_hooks';
import type { Principal } from '../../domain/access/principal.js';

/**
 * How long a caller's admitted read of a tileset is reused for its next tiles: the staleness the
 * access-token verifier already allows for a revocation (REVOCATION_TTL_MS in oauth/access-tokens.ts).
 */
export const ADMITTED_MS = 1000;
const ADMITTED_ENTRIES = 10_000;

/**
 * Reads of a tileset admitted in the last second, by caller and target (docs/processing.md,
 * "Serving the outputs"): a viewer fetches tens of tiles a second with one token, and each access
 * check costs database round trips. Only an admission is kept, never a refusal; a revoked role or
 * a removed target shows within the second (at once for a target this process removes: forget()).
 * Monotonic time: a test clock never freezes it.
 */
export class AdmittedReads<T> {
  private readonly admitted = new Map<string, { value: T; until: number }>();

  /** The admission of `target` for the caller, reused for a second, else `admit()`'s (a throw is not kept). */
  async get(principal: Principal, target: string, admit: () => Promise<T>): Promise<T> {
    // Everything of the caller that the access check reads: its organization, user and sign-in's provider.
    const key = `${principal.orgId}\n${principal.userId}\n${principal.identityProvider}\n${target}`;
    const now = performance.now();
    const recent = this.admitted.get(key);
    if (recent && recent.until > now) return recent.value;
    const value = await admit();
    this.admitted.delete(key);
    if (this.admitted.size >= ADMITTED_ENTRIES) this.admitted.delete(this.admitted.keys().next().value as string);
    this.admitted.set(key, { value, until: now + ADMITTED_MS });
    return value;
  }

  /** Drops every caller's admission of `target` (one this process removed), or of any target ending with it after a line break. */
  forget(target: string): void {
    const suffix = `\n${target}`;
    for (const key of this.admitted.keys()) if (key.endsWith(suffix)) this.admitted.delete(key);
  }
}
