import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { SessionRow, UserRow } from '../../adapters/db/schema.js';
import { ApiError } from '../../domain/errors.js';
import type { ApplicationService, ApplicationView } from '../../services/application-service.js';
import type { SignInGate } from '../../services/sign-in.js';
import { rememberSecretOnce, takeSecretOnce } from './one-time-secret.js';
import { type Form, field, fields, lines, seeOther, sendPage } from './page-replies.js';
import type { Sessions } from './sessions.js';
import { settingsSignInRoutes } from './settings-sign-in-routes.js';
import {
  type ApplicationFormValues,
  applicationListPage,
  applicationPage,
  EMPTY_FORM,
  messagePage,
  type Organization,
} from './settings-views.js';

/** The settings area for third-party access (docs/oauth-browser-flows.md): its sign-in and the application pages. */

/** A refused form (400) re-renders with the rule's message; other errors go to the error handler. */
function validationMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 400) return error.message;
  throw error;
}

export async function settingsRoutes(
  app: FastifyInstance,
  options: {
    applications: ApplicationService;
    /** The signed-in user and the organizations they administer. */
    directory: Pick<DirectoryRepository, 'findUser' | 'listAdministeredOrganizations'>;
    publicUrl: string;
    sessions: Sessions;
    signIns: SignInGate;
  },
) {
  const { applications, directory, sessions, signIns } = options;
  const secureCookies = options.publicUrl.startsWith('https:');

  interface Admin {
    session: SessionRow;
    user: UserRow;
    orgs: Organization[];
  }

  /**
   * The signed-in user and the organizations they administer, or a reply already sent: 303 to
   * the sign-in page, 403 for a refused CSRF token or for someone who administers nothing.
   */
  async function admin(request: FastifyRequest, reply: FastifyReply): Promise<Admin | undefined> {
    const session = await sessions.current(request);
    const user = session && (await directory.findUser(session.user_id));
    if (!session || !user || user.deactivated_at !== null) {
      await seeOther(reply, '/auth/sign-in');
      return undefined;
    }
    if (request.method === 'POST' && !sessions.csrfValid(request, session, (request.body as Form | undefined)?.csrf)) {
      await sendPage(
        reply,
        403,
        messagePage('Request refused', 'The form was stale or not sent from this site. Reload the page and try again.'),
      );
      return undefined;
    }
    const orgs = await directory.listAdministeredOrganizations(user.id);
    if (orgs.length === 0) {
      await sendPage(
        reply,
        403,
        messagePage(
          'Not an organization administrator',
          'Only an administrator of an organization can manage its OAuth applications.',
        ),
      );
      return undefined;
    }
    return { session, user, orgs };
  }

  function refuseOrganization(reply: FastifyReply) {
    return sendPage(
      reply,
      403,
      messagePage('Not an organization administrator', 'You are not an administrator of the organization of this application.'),
    );
  }

  /** The application if it belongs to one of the admin's organizations; otherwise a reply is sent. */
  async function administeredApplication(
    admin: Admin,
    clientId: string,
    reply: FastifyReply,
  ): Promise<ApplicationView | undefined> {
    const found = await applications.find(clientId);
    if (!found) {
      await sendPage(reply, 404, messagePage('Not found', 'There is no such application.'));
      return undefined;
    }
    if (!admin.orgs.some((org) => org.id === found.orgId)) {
      await refuseOrganization(reply);
      return undefined;
    }
    return found;
  }

  async function listPage(
    reply: FastifyReply,
    admin: Admin,
    org: Organization,
    status: number,
    form = EMPTY_FORM,
    error?: string,
  ) {
    return sendPage(
      reply,
      status,
      applicationListPage({
        email: admin.user.email,
        csrf: admin.session.csrf_token,
        orgs: admin.orgs,
        org,
        applications: await applications.list(org.id),
        form,
        error,
      }),
    );
  }

  await app.register(settingsSignInRoutes, { sessions, signIns });

  app.get('/settings', async (_request, reply) => seeOther(reply, '/auth/settings/applications'));

  app.get('/settings/applications', async (request, reply) => {
    const signedIn = await admin(request, reply);
    if (!signedIn) return reply;
    const wanted = (request.query as Record<string, string | undefined>).org;
    const org = wanted ? signedIn.orgs.find((candidate) => candidate.id === wanted) : signedIn.orgs[0];
    if (!org) return refuseOrganization(reply);
    return listPage(reply, signedIn, org, 200);
  });

  app.post('/settings/applications', async (request, reply) => {
    const signedIn = await admin(request, reply);
    if (!signedIn) return reply;
    const form = request.body as Form;
    const org = signedIn.orgs.find((candidate) => candidate.id === field(form, 'org'));
    if (!org) return refuseOrganization(reply);
    const values: ApplicationFormValues = {
      name: field(form, 'name'),
      flow: field(form, 'flow'),
      native: field(form, 'native') === 'on',
      redirectUris: field(form, 'redirect_uris'),
      secret: field(form, 'secret') === 'on',
      scopes: fields(form, 'scopes'),
    };
    try {
      const created = await applications.create(org.id, {
        name: values.name,
        flow: values.flow,
        native: values.native,
        redirectUris: lines(values.redirectUris),
        hasSecret: values.secret,
        scopes: values.scopes,
      });
      if (created.clientSecret) {
        rememberSecretOnce(reply, signedIn.session, secureCookies, {
          clientId: created.clientId,
          clientSecret: created.clientSecret,
        });
      }
      return seeOther(reply, `/auth/settings/applications/${encodeURIComponent(created.clientId)}`);
    } catch (error) {
      return listPage(reply, signedIn, org, 400, values, validationMessage(error));
    }
  });

  app.get('/settings/applications/:clientId', async (request, reply) => {
    const signedIn = await admin(request, reply);
    if (!signedIn) return reply;
    const { clientId } = request.params as { clientId: string };
    const found = await administeredApplication(signedIn, clientId, reply);
    if (!found) return reply;
    const newSecret = takeSecretOnce(request, reply, signedIn.session, found.clientId);
    return sendPage(
      reply,
      200,
      applicationPage({ email: signedIn.user.email, csrf: signedIn.session.csrf_token, app: found, newSecret }),
    );
  });

  app.post('/settings/applications/:clientId', async (request, reply) => {
    const signedIn = await admin(request, reply);
    if (!signedIn) return reply;
    const { clientId } = request.params as { clientId: string };
    const found = await administeredApplication(signedIn, clientId, reply);
    if (!found) return reply;
    const form = request.body as Form;
    const values = {
      name: field(form, 'name'),
      native: field(form, 'native') === 'on',
      redirectUris: field(form, 'redirect_uris'),
      scopes: fields(form, 'scopes'),
    };
    try {
      const updated = await applications.update(found.clientId, {
        ...values,
        redirectUris: lines(values.redirectUris),
        newSecret: field(form, 'new_secret') === 'on',
      });
      if (updated.clientSecret) {
        rememberSecretOnce(reply, signedIn.session, secureCookies, {
          clientId: found.clientId,
          clientSecret: updated.clientSecret,
        });
      }
      return seeOther(reply, `/auth/settings/applications/${encodeURIComponent(found.clientId)}`);
    } catch (error) {
      const error_ = validationMessage(error);
      const page = applicationPage({
        email: signedIn.user.email,
        csrf: signedIn.session.csrf_token,
        app: found,
        form: values,
        error: error_,
      });
      return sendPage(reply, 400, page);
    }
  });

  app.post('/settings/applications/:clientId/delete', async (request, reply) => {
    const signedIn = await admin(request, reply);
    if (!signedIn) return reply;
    const { clientId } = request.params as { clientId: string };
    const found = await administeredApplication(signedIn, clientId, reply);
    if (!found) return reply;
    await applications.delete(found.clientId);
    return seeOther(reply, `/auth/settings/applications?org=${encodeURIComponent(found.orgId)}`);
  });
}
