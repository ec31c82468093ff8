import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { Scope } from '../../domain/access/scopes.js';
import { issuerOf } from '../../domain/oauth/issuer.js';
import type { SignInGate } from '../../services/sign-in.js';
import type { AuthorizationEndpoint } from '../authorization-endpoint.js';
import { type ConsentNotice, consentPage, isConsentNotice, signInPage } from './consent-pages.js';
import { errorPage, PAGE_HEADERS } from './html.js';
import type { Sessions } from './sessions.js';

/** A one-shot message for the page a POST redirects to (every POST answers 303). */
const NOTICE_COOKIE = 'rdp_consent_notice';

type Form = Record<string, string | string[] | undefined>;

function field(form: Form, name: string): string | undefined {
  const value = form[name];
  return typeof value === 'string' ? value : undefined;
}

function queryOf(request: FastifyRequest): string {
  const index = request.url.indexOf('?');
  return index < 0 ? '' : request.url.slice(index + 1);
}

function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).headers(PAGE_HEADERS).send(body);
}

/**
 * The consent page at {auth_url}/consent and its two forms. Each request is validated again on
 * every step, so a form posted with a changed request cannot reach an unregistered address.
 */
export async function consentRoutes(
  app: FastifyInstance,
  options: {
    endpoint: AuthorizationEndpoint;
    /** The signed-in user and the organizations they may grant access to. */
    directory: Pick<DirectoryRepository, 'findUser' | 'organizationsOf'>;
    publicUrl: string;
    sessions: Sessions;
    signIns: SignInGate;
  },
) {
  const { endpoint, directory, sessions, signIns } = options;
  const consentUrl = `${issuerOf(options.publicUrl)}/consent`;
  const cookiePath = new URL(consentUrl).pathname;

  const backToConsent = (reply: FastifyReply, requestQuery: string, notice?: ConsentNotice) => {
    if (notice) reply.setCookie(NOTICE_COOKIE, notice, { path: cookiePath, httpOnly: true, sameSite: 'lax', maxAge: 60 });
    return reply.code(303).headers(PAGE_HEADERS).header('location', `${consentUrl}?${requestQuery}`).send();
  };
  const badRequest = (reply: FastifyReply, reason: string) =>
    sendPage(reply, 400, errorPage('Invalid authorization request', reason));
  const csrfRefused = (reply: FastifyReply) =>
    sendPage(reply, 403, errorPage('Form expired', 'The form could not be verified. Go back, reload the page and try again.'));

  app.get('/consent', async (request, reply) => {
    const requestQuery = queryOf(request);
    const loaded = await endpoint.load(new URLSearchParams(requestQuery));
    if (!loaded.ok) return badRequest(reply, loaded.reason);
    const noticeValue = request.cookies[NOTICE_COOKIE];
    const notice = isConsentNotice(noticeValue) ? noticeValue : undefined;
    if (noticeValue !== undefined) reply.clearCookie(NOTICE_COOKIE, { path: cookiePath });

    const session = await sessions.current(request);
    const base = {
      csrfToken: sessions.csrfToken(request, reply, session),
      requestQuery,
      applicationName: loaded.applicationName ?? '',
      notice,
    };
    if (!session) return sendPage(reply, 200, signInPage({ ...base, action: `${consentUrl}/sign-in` }));
    const [user, organizations] = await Promise.all([
      directory.findUser(session.user_id),
      directory.organizationsOf(session.user_id),
    ]);
    return sendPage(
      reply,
      200,
      consentPage({
        ...base,
        action: `${consentUrl}/decision`,
        userEmail: user?.email ?? '',
        organizations,
        scopes: loaded.request.scopes,
      }),
    );
  });

  app.post('/consent/sign-in', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const session = await sessions.current(request);
    if (!sessions.csrfValid(request, session, form.csrf_token)) return csrfRefused(reply);
    const requestQuery = field(form, 'request') ?? '';
    const loaded = await endpoint.load(new URLSearchParams(requestQuery));
    if (!loaded.ok) return badRequest(reply, loaded.reason);
    const outcome = await signIns.attempt(field(form, 'email') ?? '', field(form, 'password') ?? '', request.ip);
    if (!outcome.ok) {
      if (outcome.throttled) reply.header('retry-after', String(outcome.retryAfterSeconds));
      return backToConsent(reply, requestQuery, outcome.throttled ? 'sign-in-throttled' : 'sign-in-failed');
    }
    if (session) await sessions.end(request, reply);
    await sessions.start(reply, outcome.user.id);
    return backToConsent(reply, requestQuery);
  });

  app.post('/consent/decision', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const requestQuery = field(form, 'request') ?? '';
    const session = await sessions.current(request);
    // No session (expired): back to the page, which asks to sign in; nothing changes, so no CSRF risk.
    if (!session) return backToConsent(reply, requestQuery);
    if (!sessions.csrfValid(request, session, form.csrf_token)) return csrfRefused(reply);
    const loaded = await endpoint.load(new URLSearchParams(requestQuery));
    if (!loaded.ok) return badRequest(reply, loaded.reason);
    const authorization = loaded.request;

    if (field(form, 'decision') !== 'allow') {
      return reply.code(303).headers(PAGE_HEADERS).header('location', endpoint.deny(authorization)).send();
    }
    const orgId = field(form, 'org_id');
    const organizations = await directory.organizationsOf(session.user_id);
    if (!orgId || !organizations.some((org) => org.id === orgId)) return backToConsent(reply, requestQuery, 'no-organization');
    // The user may approve a subset of what was asked, never more.
    const posted = ([] as (string | undefined)[]).concat(form.scopes);
    const scopes = authorization.scopes.filter((scope: Scope) => posted.includes(scope));
    if (scopes.length === 0) return backToConsent(reply, requestQuery, 'no-scope');

    const location = await endpoint.approve(authorization, {
      userId: session.user_id,
      orgId,
      scopes,
      identityProvider: session.identity_provider,
    });
    return reply.code(303).headers(PAGE_HEADERS).header('location', location).send();
  });
}
