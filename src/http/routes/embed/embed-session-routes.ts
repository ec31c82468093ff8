import { Type } from '@sinclair/typebox';
import { embedSessionIdOf } from '../../../domain/embed/embed-sessions.js';
import { ApiError } from '../../../domain/errors.js';
import { clampLimit } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { ContextIdParams } from '../twins/twin-value-schemas.js';
import {
  CreateEmbedSessionBody,
  EmbedSessionIdParams,
  EmbedSessionListQuery,
  EmbedSessionListSchema,
  EmbedSessionSchema,
  OpenSessionSchema,
  SessionWaitQuery,
  toEmbedSessionBody,
  ViewerAddressSchema,
} from './embed-session-schemas.js';

const ACCESS =
  "Needs read on the target's site. An embed token is refused here (403 EmbedTokenOutOfReach). See docs/embedding.md.";

export default async function embedSessionRoutes(app: RegionApp) {
  app.addSchema(EmbedSessionSchema);
  const EmbedSession = Type.Ref('EmbedSession');
  const { embedSessions } = app.services;

  app.post(
    '/v1/embed-sessions',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Embedding'],
        operationId: 'createEmbedSession',
        summary: 'Make an embed session: a read-only token for one twin or draft, framed only by the given origins',
        description: `Exactly one target: twinId (a twin's id or its site's id) or twinDraftId; projectId and layoutId answer 400 until planning projects exist. The token works as a bearer token on the GET routes under /v1/twin/{ctx} of the target (a twin's {ctx} is its site id) and on its layers' tiles, read-only, until expiresAt or DELETE. 400 ValidationError: no target or several, a planning target, an allowed origin that is not one. 404: the target is not the caller's organization's. ${ACCESS}`,
        body: CreateEmbedSessionBody,
        response: { 201: EmbedSession, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const body = toEmbedSessionBody(await embedSessions.create(request.principal, request.body));
      return created(reply, app.baseUrl, `/v1/embed-sessions/${body.id}`, body);
    },
  );

  app.get(
    '/v1/embed-sessions',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Embedding'],
        operationId: 'listEmbedSessions',
        summary: "A twin's open embed sessions (without their tokens), newest first",
        description: `twinId is a twin's id or its site's id: the sessions of its site (the twin's, its drafts' and plans') that are neither revoked nor expired, made with POST /v1/embed-sessions (the short sessions of signed-in readers' own viewers are not listed). ${ACCESS}`,
        querystring: EmbedSessionListQuery,
        response: { 200: EmbedSessionListSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const limit = clampLimit(request.query.limit);
      const offset = request.query.offset ?? 0;
      const { views, total } = await embedSessions.list(request.principal, request.query.twinId, limit, offset);
      return { items: views.map(toEmbedSessionBody), page: Math.floor(offset / limit), limit, total };
    },
  );

  app.get(
    '/v1/embed-sessions/:embedSessionId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Embedding'],
        operationId: 'getEmbedSession',
        summary: 'Get an embed session (without its token)',
        description: `An expired session is still shown (expiresAt in the past); a revoked one is 404. ${ACCESS}`,
        params: EmbedSessionIdParams,
        response: { 200: EmbedSession, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => toEmbedSessionBody(await embedSessions.get(request.principal, request.params.embedSessionId)),
  );

  app.delete(
    '/v1/embed-sessions/:embedSessionId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Embedding'],
        operationId: 'revokeEmbedSession',
        summary: 'Revoke an embed session',
        description: `Its token stops working within a second everywhere (at once on this server) and its viewer page says the session has ended. 404 afterwards. ${ACCESS}`,
        params: EmbedSessionIdParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await embedSessions.revoke(request.principal, request.params.embedSessionId);
      return reply.code(204).send(null);
    },
  );

  // Held waits answer when the server closes, so none keeps it open (docs/embedding.md, "When a session ends").
  app.addHook('preClose', (done) => {
    embedSessions.endWatch.close();
    done();
  });

  app.get(
    '/v1/twin/:contextId/embed-session',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Embedding'],
        operationId: 'waitForEmbedSessionEnd',
        summary: "The embed token's own session, held until it ends (the viewer notices a revocation within a second)",
        description:
          'For an embed token of this target only (any other token: 404). Answers 200 when the session is still open after waitSeconds, and 401 invalid_token as soon as it is revoked (at once on this server, within a second on another) or expires while the request waits. See docs/embedding.md.',
        params: ContextIdParams,
        querystring: SessionWaitQuery,
        response: { 200: OpenSessionSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const sessionId = embedSessionIdOf(request.principal.clientId);
      if (!sessionId) throw new ApiError('NotFound', 'Only an embed token has a session here');
      const left = new AbortController();
      reply.raw.once('close', () => left.abort());
      const waitMs = (request.query.waitSeconds ?? 0) * 1000;
      const ended = waitMs > 0 && (await embedSessions.endWatch.wait(sessionId, waitMs, left.signal));
      const open = ended ? undefined : await embedSessions.openSession(sessionId);
      if (!open) throw new ApiError('invalid_token', 'The embed session has ended');
      return { embedSessionId: sessionId, expiresAt: open.expires_at };
    },
  );

  app.get(
    '/v1/twin/:contextId/iframe',
    {
      config: { scope: 'read:hierarchy', embedToken: false },
      schema: {
        tags: ['Embedding'],
        operationId: 'getTwinIframe',
        summary: "The viewer's address for the signed-in caller",
        description:
          "contextId is a site id (the live twin) or a draft id. Each call makes a short-lived session of the caller's (as long as an access token lasts), framed only by the platform's own origin, its token in the address's fragment. Needs read on the site. An embed token is refused here (403 EmbedTokenOutOfReach).",
        params: ContextIdParams,
        response: { 200: ViewerAddressSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => embedSessions.viewerAddress(request.principal, request.params.contextId),
  );
}
