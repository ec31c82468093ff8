import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { UserRow } from '../adapters/db/schema.js';
import { verifyPassword } from '../crypto/secrets.js';
import type { LoginThrottle, ThrottleKey } from './login-throttle.js';

/** A hash of a password nobody has: checked when the e-mail is unknown, so timing does not tell. */
const DECOY_HASH = 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** The active person with this e-mail and password, or undefined. Service users cannot sign in. */
export async function signIn(directory: DirectoryRepository, email: string, password: string): Promise<UserRow | undefined> {
  const user = await directory.findUserByEmail(email.trim());
  const passwordOk = await verifyPassword(password, user?.password_hash ?? DECOY_HASH);
  if (!user || !passwordOk || user.kind !== 'user' || user.deactivated_at !== null) return undefined;
  return user;
}

export type SignInOutcome =
  | { ok: true; user: UserRow }
  | { ok: false; throttled: false }
  | { ok: false; throttled: true; retryAfterSeconds: number };

/**
 * Sign-in forms behind the brute-force throttle: failures count against the account and the
 * client address; while either is used up, even the right password is refused.
 */
export class SignInGate {
  constructor(
    private readonly directory: DirectoryRepository,
    private readonly throttle: LoginThrottle,
  ) {}

  async attempt(email: string, password: string, address: string): Promise<SignInOutcome> {
    const keys: ThrottleKey[] = [
      { kind: 'account', key: email.trim().toLowerCase() },
      { kind: 'address', key: address },
    ];
    const verdict = await this.throttle.check(keys);
    if (verdict.blocked) return { ok: false, throttled: true, retryAfterSeconds: verdict.retryAfterSeconds };
    const user = await signIn(this.directory, email, password);
    if (!user) {
      await this.throttle.fail(keys);
      return { ok: false, throttled: false };
    }
    if (verdict.failures) await this.throttle.succeed(keys);
    return { ok: true, user };
  }
}
