import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { UserRow } from '../adapters/db/schema.js';
import { verifyPassword } from '../oauth/secrets.js';

/** A hash of a password nobody has: checked when the e-mail is unknown, so timing does not tell. */
const DECOY_HASH = 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** The active person with this e-mail and password, or undefined. Service users cannot sign in. */
export async function signIn(directory: DirectoryRepository, email: string, password: string): Promise<UserRow | undefined> {
  const user = await directory.findUserByEmail(email.trim());
  const passwordOk = await verifyPassword(password, user?.password_hash ?? DECOY_HASH);
  if (!user || !passwordOk || user.kind !== 'user' || user.deactivated_at !== null) return undefined;
  return user;
}
