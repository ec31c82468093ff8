import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionRepository } from '../../adapters/db/repositories/session-repository.js';
import type { SessionRow } from '../../adapters/db/schema.js';
import { hashToken, randomToken, tokenMatches } from '../../crypto/secrets.js';
import type { Clock } from '../../ports/clock.js';

export const SESSION_COOKIE = 'rdp_session';
/** The double-submit cookie of forms shown before there is a session (the sign-in forms). */
export const ANONYMOUS_CSRF_COOKIE = 'rdp_csrf';

export interface SessionOptions {
  ttlSeconds: number;
  /** Cookies are Secure when the platform is served over HTTPS. */
  secure: boolean;
  clock: Clock;
}

/**
 * Signed-in browser sessions of the authorization server's pages. The cookie holds a random id;
 * the store keeps only its hash, with the user, how they signed in and the session's CSRF token.
 */
export class Sessions {
  constructor(
    private readonly repository: SessionRepository,
    private readonly options: SessionOptions,
  ) {}

  private cookieOptions(maxAge: number) {
    return { path: '/auth', httpOnly: true, sameSite: 'lax' as const, secure: this.options.secure, maxAge };
  }

  async start(reply: FastifyReply, userId: string, identityProvider = 'local'): Promise<SessionRow> {
    const id = randomToken();
    const now = this.options.clock.now();
    const row: SessionRow = {
      id_hash: hashToken(id),
      user_id: userId,
      identity_provider: identityProvider,
      csrf_token: randomToken(),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.options.ttlSeconds * 1000).toISOString(),
    };
    await this.repository.insert(row);
    reply.setCookie(SESSION_COOKIE, id, this.cookieOptions(this.options.ttlSeconds));
    reply.clearCookie(ANONYMOUS_CSRF_COOKIE, { path: '/auth' });
    return row;
  }

  /** The request's live session, or undefined (no cookie, unknown, or expired). */
  async current(request: FastifyRequest): Promise<SessionRow | undefined> {
    const id = request.cookies[SESSION_COOKIE];
    if (!id) return undefined;
    const row = await this.repository.find(hashToken(id));
    if (!row || row.expires_at <= this.options.clock.now().toISOString()) return undefined;
    return row;
  }

  async end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = request.cookies[SESSION_COOKIE];
    if (id) await this.repository.delete(hashToken(id));
    reply.clearCookie(SESSION_COOKIE, { path: '/auth' });
  }

  /**
   * The CSRF token a form must carry: the session's, or before sign-in a random value also set
   * as a cookie (double submit), which a cross-site page can neither read nor set.
   */
  csrfToken(request: FastifyRequest, reply: FastifyReply, session: SessionRow | undefined): string {
    if (session) return session.csrf_token;
    const existing = request.cookies[ANONYMOUS_CSRF_COOKIE];
    if (existing) return existing;
    const token = randomToken();
    reply.setCookie(ANONYMOUS_CSRF_COOKIE, token, this.cookieOptions(3600));
    return token;
  }

  /** Whether a posted form's token is the one its session (or anonymous cookie) expects. */
  csrfValid(request: FastifyRequest, session: SessionRow | undefined, posted: unknown): boolean {
    const expected = session ? session.csrf_token : request.cookies[ANONYMOUS_CSRF_COOKIE];
    if (typeof posted !== 'string' || !expected) return false;
    return tokenMatches(posted, hashToken(expected));
  }
}
