import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OutboxMailer } from '../../adapters/mail/outbox-mailer.js';
import { hashPassword } from '../../crypto/secrets.js';
import { CONSOLE_PATH } from '../../domain/console/console-config.js';
import { ApiError } from '../../domain/errors.js';
import { newAccountProblem } from '../../domain/people/invitation-rules.js';
import type { Mailer } from '../../ports/mailer.js';
import {
  AccountExists,
  type InvitationAcceptance,
  InvitationClosed,
  type Invitee,
  type OpenedInvitation,
} from '../../services/people/invitation-acceptance.js';
import type { SignInGate } from '../../services/sign-in.js';
import { errorPage } from './html.js';
import {
  closedInvitationPage,
  type InvitationFacts,
  type InvitationForm,
  invitationAcceptedPage,
  invitationPage,
} from './invitation-pages.js';
import { outboxPage } from './outbox-page.js';
import { type Form, field, sendPage } from './page-replies.js';
import type { Sessions } from './sessions.js';

type Open = Extract<OpenedInvitation, { status: 'open' }>;

const OUTBOX_PAGE_SIZE = 100;

function factsOf(opened: Open): InvitationFacts {
  return {
    organizationName: opened.organization.name,
    nodeName: opened.node.name,
    toOrganization: opened.node.kind === 'organization',
    roleName: opened.role.name,
    email: opened.invitation.email,
  };
}

/**
 * The page a mail's link opens, {auth_url}/invitations/{token}, and its form; and, on the
 * embedded default without SMTP, the outbox page at {auth_url}/outbox. The form is shown before
 * any session exists, so its CSRF token is the double-submit cookie of the sign-in forms.
 */
export async function invitationRoutes(
  app: FastifyInstance,
  options: {
    acceptance: InvitationAcceptance;
    /** The outbox page is served when the mail stays in the store (no SMTP). */
    mailer: Mailer;
    publicUrl: string;
    sessions: Sessions;
    signIns: SignInGate;
  },
) {
  const { acceptance, mailer, sessions, signIns } = options;
  const authPath = '/auth';
  const consoleUrl = `${options.publicUrl.replace(/\/+$/, '')}${CONSOLE_PATH}`;

  const showClosed = (reply: FastifyReply, reason: Exclude<OpenedInvitation['status'], 'open'>) => {
    const closed = closedInvitationPage(reason);
    return sendPage(reply, closed.status, closed.body);
  };

  const showForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    opened: Open,
    token: string,
    extra: Pick<InvitationForm, 'values' | 'error'> & { mode?: InvitationForm['mode'] } = {},
  ) =>
    sendPage(
      reply,
      status,
      invitationPage({
        action: `${authPath}/invitations/${encodeURIComponent(token)}`,
        csrf: sessions.csrfToken(request, reply, undefined),
        facts: factsOf(opened),
        mode: extra.mode ?? (opened.account ? 'sign-in' : 'sign-up'),
        values: extra.values,
        error: extra.error,
      }),
    );

  app.get('/invitations/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const opened = await acceptance.open(token);
    if (opened.status !== 'open') return showClosed(reply, opened.status);
    return showForm(request, reply, 200, opened, token);
  });

  app.post('/invitations/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const form = (request.body ?? {}) as Form;
    if (!sessions.csrfValid(request, undefined, form.csrf)) {
      return sendPage(
        reply,
        403,
        errorPage('Request refused', 'The form was stale or not sent from this site. Reload the page and try again.'),
      );
    }
    const opened = await acceptance.open(token);
    if (opened.status !== 'open') return showClosed(reply, opened.status);

    let invitee: Invitee;
    const password = field(form, 'password');
    if (opened.account) {
      const outcome = await signIns.attempt(opened.invitation.email, password, request.ip);
      if (!outcome.ok && outcome.throttled) {
        reply.header('retry-after', String(outcome.retryAfterSeconds));
        const wait = `Too many failed sign-ins. Try again in ${outcome.retryAfterSeconds} seconds.`;
        return showForm(request, reply, 429, opened, token, { error: wait });
      }
      if (!outcome.ok) return showForm(request, reply, 400, opened, token, { error: 'The password is wrong.' });
      invitee = { account: outcome.user };
    } else {
      const values = { firstName: field(form, 'first_name'), lastName: field(form, 'last_name') };
      const problem = newAccountProblem({ ...values, password });
      if (problem) return showForm(request, reply, 400, opened, token, { values, error: problem });
      invitee = { newAccount: { ...values, passwordHash: await hashPassword(password) } };
    }

    try {
      const accepted = await acceptance.accept(opened, invitee);
      // The person has just proved the account's password (or chosen it): they are signed in to
      // these pages, so the console's sign-in that the page's link starts asks only for consent.
      const session = await sessions.current(request);
      if (session) await sessions.end(request, reply);
      await sessions.start(reply, accepted.userId);
      const page = invitationAcceptedPage(factsOf(opened), {
        isAdmin: accepted.isAdmin,
        settingsUrl: `${authPath}/sign-in`,
        consoleUrl,
      });
      return sendPage(reply, 200, page);
    } catch (error) {
      if (error instanceof AccountExists) {
        const error_ = 'An account with this address has just been created. Enter its password to accept.';
        return showForm(request, reply, 409, opened, token, { mode: 'sign-in', error: error_ });
      }
      if (error instanceof InvitationClosed) {
        const now = await acceptance.open(token);
        return showClosed(reply, now.status === 'open' ? 'unknown' : now.status);
      }
      if (error instanceof ApiError && error.status === 403) {
        return sendPage(
          reply,
          403,
          errorPage(
            'No free seat',
            `${opened.organization.name} has no free seat for another member now. Ask the person who invited you.`,
          ),
        );
      }
      throw error;
    }
  });

  // The outbox exists only without SMTP: with a mail server, mail leaves and /outbox is 404.
  if (mailer instanceof OutboxMailer) {
    app.get('/outbox', async (_request, reply) =>
      sendPage(reply, 200, outboxPage(await mailer.list(OUTBOX_PAGE_SIZE), OUTBOX_PAGE_SIZE)),
    );
  }
}
