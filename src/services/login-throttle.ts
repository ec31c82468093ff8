import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config/config.js';
import type { LimiterStore } from '../ports/limiter-store.js';

/**
 * What a failed credential is counted against: the account or client id it named, and the
 * address it came from. Accounts and clients count consecutive failures (a success resets
 * them); an address counts every failure in the window, so one good credential cannot reset a
 * spray over many accounts.
 */
export type ThrottleKind = 'client' | 'account' | 'address';

export interface ThrottleKey {
  kind: ThrottleKind;
  key: string;
}

/** `failures`: whether any key has failures counted, so a success knows whether it has anything to reset. */
export type ThrottleVerdict = { blocked: false; failures: boolean } | { blocked: true; retryAfterSeconds: number };

/**
 * Brute-force limiting for the token endpoint and the sign-in forms: check before verifying a
 * credential, fail after a wrong one, succeed after a right one. Counters live in the limiter
 * store, so behind Redis every process sees the same failures.
 */
export class LoginThrottle {
  private readonly limiters: Record<ThrottleKind, RateLimiterAbstract>;

  constructor(store: LimiterStore, settings: Config['loginThrottle']) {
    const perKey = (kind: ThrottleKind, max: number) => store.limiter(`login:${kind}`, max, settings.windowSeconds);
    this.limiters = {
      client: perKey('client', settings.maxFailures),
      account: perKey('account', settings.maxFailures),
      address: perKey('address', settings.maxFailuresPerAddress),
    };
  }

  /** Blocked while any of the keys has used up its failures; Retry-After is the longest wait. */
  async check(keys: readonly ThrottleKey[]): Promise<ThrottleVerdict> {
    const counts = await Promise.all(keys.map(({ kind, key }) => this.limiters[kind].get(key)));
    let retryAfterSeconds = 0;
    counts.forEach((counted, i) => {
      const limiter = this.limiters[(keys[i] as ThrottleKey).kind];
      if (counted && counted.consumedPoints >= limiter.points) {
        retryAfterSeconds = Math.max(retryAfterSeconds, Math.max(1, Math.ceil(counted.msBeforeNext / 1000)));
      }
    });
    if (retryAfterSeconds > 0) return { blocked: true, retryAfterSeconds };
    return { blocked: false, failures: counts.some((counted) => counted !== null && counted.consumedPoints > 0) };
  }

  async fail(keys: readonly ThrottleKey[]): Promise<void> {
    await Promise.all(keys.map(({ kind, key }) => this.limiters[kind].penalty(key, 1)));
  }

  /** Resets the consecutive failures of accounts and clients; addresses keep theirs until the window ends. */
  async succeed(keys: readonly ThrottleKey[]): Promise<void> {
    await Promise.all(keys.filter(({ kind }) => kind !== 'address').map(({ kind, key }) => this.limiters[kind].delete(key)));
  }
}
