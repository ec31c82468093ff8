import { Type } from '@sinclair/typebox';
import type { InvitationRow } from '../../../domain/records/regional.js';
import { NodeIdParams } from '../nodes/node-schemas.js';
import { type CursorList, pagePosition, setNextCursor } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  INVITE_CODES,
  InvitationIdParams,
  InvitationListQuery,
  InvitationSchema,
  InviteBody,
  toInvitationBody,
} from './invitation-schemas.js';

/** The invitations list's order (newest first, then id): what a cursor holds. */
const INVITATIONS: CursorList<InvitationRow> = { name: 'invitations', keyLength: 2, keyOf: (row) => [row.created_at, row.id] };

export default async function invitationRoutes(app: RegionApp) {
  const responses = { 201: InvitationSchema, ...errors(400, 401, 403, 404, 409, 422, 503) };

  app.post(
    '/v1/nodes/:nodeId/invitations',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Invitations'],
        operationId: 'inviteToNode',
        summary: 'Invite an e-mail address to a node with a role',
        description: `Needs manage on the node. The mail is sent before the answer. ${INVITE_CODES}`,
        params: NodeIdParams,
        body: InviteBody,
        response: responses,
      },
    },
    async (request, reply) => {
      const row = await app.services.invitations.invite(request.principal, request.params.nodeId, request.body);
      return created(reply, app.baseUrl, `/v1/invitations/${row.id}`, toInvitationBody(row));
    },
  );

  app.post(
    '/v1/invitations',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Invitations'],
        operationId: 'inviteToOrganization',
        summary: 'Invite an e-mail address to the organization with a role',
        description: `Needs manage on the organization node; the role is given there. ${INVITE_CODES}`,
        body: InviteBody,
        response: responses,
      },
    },
    async (request, reply) => {
      const row = await app.services.invitations.invite(request.principal, undefined, request.body);
      // No GET of one invitation: the address its DELETE (withdraw) takes.
      return created(reply, app.baseUrl, `/v1/invitations/${row.id}`, toInvitationBody(row));
    },
  );

  app.get(
    '/v1/invitations',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Invitations'],
        operationId: 'listInvitations',
        summary: "List the organization's invitations, newest first",
        description: 'Needs manage on the organization node, or with nodeId, manage on that node.',
        querystring: InvitationListQuery,
        response: { 200: Type.Array(InvitationSchema), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { nodeId, state } = request.query;
      const { principal } = request;
      const scope = [principal.orgId, nodeId ?? '', state ?? ''];
      const page = pagePosition(INVITATIONS, scope, request.query);
      const rows = await app.services.invitations.list(
        principal,
        { ...(nodeId !== undefined ? { nodeId } : {}), ...(state !== undefined ? { state } : {}) },
        page,
      );
      setNextCursor(reply, INVITATIONS, scope, page, rows);
      return rows.map(toInvitationBody);
    },
  );

  app.delete(
    '/v1/invitations/:invitationId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Invitations'],
        operationId: 'revokeInvitation',
        summary: 'Revoke a pending invitation',
        description:
          "Needs manage on the invitation's node. The invitation becomes revoked: its link stops working and the address can be invited again. 409 InvitationNotPending once accepted or revoked.",
        params: InvitationIdParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.services.invitations.revoke(request.principal, request.params.invitationId);
      return reply.code(204).send(null);
    },
  );
}
