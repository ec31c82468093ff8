import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform.js';
import { signIn } from '../../services/sign-in.js';
import { type Form, field, seeOther, sendPage } from './page-replies.js';
import type { Sessions } from './sessions.js';
import { messagePage, signInPage } from './settings-views.js';

/** The settings area's own sign-in and sign-out (the consent page has its own under /consent). */
export async function settingsSignInRoutes(app: FastifyInstance, options: { platform: Platform; sessions: Sessions }) {
  const { platform, sessions } = options;

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
    const user = await signIn(platform.directory, field(form, 'email'), field(form, 'password'));
    if (!user) {
      const csrf = sessions.csrfToken(request, reply, undefined);
      return sendPage(reply, 400, signInPage(csrf, field(form, 'email'), 'The e-mail or the password is wrong.'));
    }
    await sessions.start(reply, user.id);
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
