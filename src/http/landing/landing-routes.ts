import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.js';
import { REGIONS } from '../../domain/regions.js';
import { sendPage } from '../../oauth/interaction/page-replies.js';
import { type LandingContent, landingPage } from './landing-page.js';

/**
 * What the landing page links to, from the configuration alone: every address is the public one,
 * so the page is right on any process of a deployment behind one public address (the pages of
 * the authorization server are linked from an `api` process too: the proxy routes /auth to it).
 */
export function landingContent(config: Config): LandingContent {
  const authUrl = `${config.publicUrl}/auth`;
  const pages = [
    { label: 'Console', url: `${config.publicUrl}/console`, about: 'browse, upload, process and view your data in the browser' },
    { label: 'Sign in', url: `${authUrl}/sign-in`, about: 'with your account of the platform' },
    {
      label: 'Settings',
      url: `${authUrl}/settings/applications`,
      about: "your organization's OAuth applications (organization administrators)",
    },
  ];
  // The outbox exists only without a mail server (RDP_SMTP_URL): invitations are read there.
  if (config.mail.smtpUrl === undefined) {
    pages.push({ label: 'Outbox', url: `${authUrl}/outbox`, about: 'the mail the platform kept instead of sending it' });
  }
  const regions = config.roles.has('auth') ? REGIONS : config.regions;
  const references = [
    ...regions.map((region) => ({
      label: `Regional API (${region})`,
      url: `${config.regionUrls[region]}/docs`,
      document: `${config.regionUrls[region]}/openapi.json`,
      about: `nodes, uploads, processing, twins and people of the organizations in ${region}`,
    })),
    {
      label: 'Authorization server',
      url: `${authUrl}/docs`,
      document: `${authUrl}/openapi.json`,
      about: 'tokens, the API address of an organization (api-info), the key set and the OAuth metadata',
    },
    {
      label: 'SCIM 2.0',
      url: `${config.publicUrl}/scim/v2/docs`,
      document: `${config.publicUrl}/scim/v2/openapi.json`,
      about: "provisioning of users and groups by an organization's identity provider",
    },
  ];
  return { pages, references, notes: [] };
}

/**
 * `GET /` (a browser opening the platform's address) and, with the authorization server,
 * `GET {auth_url}`: the landing page. A worker-only process serves no people and has none.
 */
export async function landingRoutes(app: FastifyInstance, options: { config: Config }) {
  const { config } = options;
  const body = landingPage(landingContent(config));
  const hide = { schema: { hide: true } };
  app.get('/', hide, async (_request, reply) => sendPage(reply, 200, body));
  if (config.roles.has('auth')) {
    app.get('/auth', hide, async (_request, reply) => sendPage(reply, 200, body));
    app.get('/auth/', hide, async (_request, reply) => sendPage(reply, 200, body));
  }
}
