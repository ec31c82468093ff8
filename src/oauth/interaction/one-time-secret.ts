import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionRow } from '../../adapters/db/schema.js';

/**
 * A new client secret carried across the POST's 303 to the page that shows it once. The store
 * keeps only its hash, and no process keeps state another copy would need, so it rides in a
 * short-lived cookie, encrypted with a key derived from the session: only that session's page
 * can read it, and reading it clears it.
 */
const COOKIE = 'rdp_new_secret';
const PATH = '/auth/settings';

function keyOf(session: SessionRow): Buffer {
  return createHash('sha256').update(`one-time-secret:${session.csrf_token}`).digest();
}

export function rememberSecretOnce(
  reply: FastifyReply,
  session: SessionRow,
  secure: boolean,
  value: { clientId: string; clientSecret: string },
): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(session), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  const token = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  reply.setCookie(COOKIE, token, { path: PATH, httpOnly: true, sameSite: 'strict', secure, maxAge: 300 });
}

/** The secret remembered for this client, if any; the cookie is cleared whatever it held. */
export function takeSecretOnce(
  request: FastifyRequest,
  reply: FastifyReply,
  session: SessionRow,
  clientId: string,
): string | undefined {
  const token = request.cookies[COOKIE];
  if (!token) return undefined;
  reply.clearCookie(COOKIE, { path: PATH });
  try {
    const raw = Buffer.from(token, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(session), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    const value = JSON.parse(plain) as { clientId?: unknown; clientSecret?: unknown };
    return value.clientId === clientId && typeof value.clientSecret === 'string' ? value.clientSecret : undefined;
  } catch {
    return undefined; // another session's, or tampered with
  }
}
