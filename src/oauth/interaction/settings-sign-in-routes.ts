import type { FastifyInstance } from 'fastify';
import type { SignInGate } from '../../services/sign-in.js';
import { type Form, field, seeOther, sendPage } from './page-replies.js';
import type { Sessions } from './sessions.js';
import { messagePage, signInPage } from './settings-views.js';

/** The settings area's own sign-in and sign-out (the consent page has its own under /consent). */
export async function settingsSignInRoutes(app: FastifyInstance, options: { sessions: Sessions; signIns: SignInGate }) {
  const { sessions, signIns } = options;

  app.get('/sign-in', async (request, reply) => {
    if (await sessions.current(request)) return seeOther(reply, '/auth/settings/applications');
    return sendPage(reply, 200, signInPage(sessions.csrfToken(request, reply, undefined), ''));
  });

  app.post('/sign-in', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    if (!sessions.csrfValid(request, undefined, form.csrf)) {
      return sendPage(
        reply,
        403,
        messagePage('Request refused', 'The form was stale or not sent from this site. Reload the page and try again.'),
      );
    }
    const outcome = await signIns.attempt(field(form, 'email'), field(form, 'password'), request.ip);
    if (!outcome.ok) {
      const csrf = sessions.csrfToken(request, reply, undefined);
      if (!outcome.throttled) {
        return sendPage(reply, 400, signInPage(csrf, field(form, 'email'), 'The e-mail or the password is wrong.'));
      }
      reply.header('retry-after', String(outcome.retryAfterSeconds));
      const wait = `Too many failed sign-ins. Try again in ${outcome.retryAfterSeconds} seconds.`;
      return sendPage(reply, 429, signInPage(csrf, field(form, 'email'), wait));
    }
    await sessions.start(reply, outcome.user.id);
    return seeOther(reply, '/auth/settings/applications');
  });

  app.post('/sign-out', async (request, reply) => {
    const session = await sessions.current(request);
    if (session && !sessions.csrfValid(request, session, (request.body as Form | undefined)?.csrf)) {
      return sendPage(reply, 403, messagePage('Request refused', 'The form was stale or not sent from this site.'));
    }
    await sessions.end(request, reply);
    return seeOther(reply, '/auth/sign-in');
  });
}
