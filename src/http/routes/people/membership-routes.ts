import { Type } from '@sinclair/typebox';
import type { ListedMembership } from '../../../services/people/membership-service.js';
import { NodeIdParams } from '../nodes/node-schemas.js';
import { type CursorList, CursorPaging, pagePosition, setNextCursor } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';

const PrincipalSummarySchema = Type.Object({
  name: Type.String({ description: "A user's first and last name (or e-mail address when it has none), or a group's name" }),
  email: Type.Optional(Type.String()),
});

export const MembershipSchema = Type.Object(
  {
    principalId: Type.String(),
    principalType: Type.Union([Type.Literal('user'), Type.Literal('service'), Type.Literal('group')]),
    roleId: Type.String(),
    nodeId: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    principal: Type.Optional(PrincipalSummarySchema),
  },
  { $id: 'Membership', title: 'Membership' },
);

const MembershipParams = Type.Object({
  nodeId: Type.String({ minLength: 1, maxLength: 64 }),
  principalId: Type.String({ minLength: 1, maxLength: 64 }),
});
const ListQuery = Type.Object(
  {
    expand: Type.Optional(
      Type.Literal('principal', { description: "principal: add each principal's name (and e-mail address)" }),
    ),
    ...CursorPaging,
  },
  { additionalProperties: false },
);
const SetBody = Type.Object(
  { roleId: Type.String({ minLength: 1, maxLength: 64, description: 'An administrative role id or a custom role id' }) },
  { additionalProperties: false },
);

/** The memberships list's order (oldest first, then principal): what a cursor holds. */
const MEMBERSHIPS: CursorList<ListedMembership> = {
  name: 'memberships',
  keyLength: 2,
  keyOf: (row) => [row.created_at, row.principal_id],
};

const ROLE_CODES =
  'CustomRoleNotFound, AdminsitrativeRoleNotFound, AdministrativeRoleInvalidNode, CustomRoleNotAssignableToDataNode';

function toMembershipBody(row: ListedMembership) {
  return {
    principalId: row.principal_id,
    principalType: row.principal_type,
    roleId: row.role_id,
    nodeId: row.node_id,
    createdAt: row.created_at,
    ...(row.principal ? { principal: row.principal } : {}),
  };
}

export default async function membershipRoutes(app: RegionApp) {
  app.addSchema(MembershipSchema);
  const Membership = Type.Ref('Membership');

  app.get(
    '/v1/nodes/:nodeId/memberships',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Memberships'],
        operationId: 'listMemberships',
        summary: 'List the memberships held on a node',
        description: 'Needs manage on the node. Lists the memberships on the node itself; those on its ancestors reach it too.',
        params: NodeIdParams,
        querystring: ListQuery,
        response: { 200: Type.Array(Membership), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { principal, params } = request;
      // expand adds fields, not rows: a cursor holds across it.
      const scope = [principal.orgId, params.nodeId];
      const page = pagePosition(MEMBERSHIPS, scope, request.query);
      const rows = await app.services.memberships.list(principal, params.nodeId, {
        page,
        expandPrincipal: request.query.expand === 'principal',
      });
      setNextCursor(reply, MEMBERSHIPS, scope, page, rows);
      return rows.map(toMembershipBody);
    },
  );

  app.put(
    '/v1/nodes/:nodeId/memberships/:principalId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Memberships'],
        operationId: 'setMembership',
        summary: 'Give a user, service user or group a role on a node',
        description: `Creates the membership or replaces its role. Needs manage on the node. The principal is a user or service user of the organization, or one of its groups (404 otherwise). 400: ${ROLE_CODES}, GroupOutsideDivision (a division's group is given roles inside its division only). 409 LastAdministrator: the role would be taken from the last active administrator.`,
        params: MembershipParams,
        body: SetBody,
        response: { 200: Membership, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { nodeId, principalId } = request.params;
      return toMembershipBody(await app.services.memberships.set(request.principal, nodeId, principalId, request.body.roleId));
    },
  );

  app.delete(
    '/v1/nodes/:nodeId/memberships/:principalId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Memberships'],
        operationId: 'deleteMembership',
        summary: "Remove a principal's membership on a node",
        description:
          'Needs manage on the node. 404 when the principal holds no membership on the node itself. 409 LastAdministrator: the last active administrator keeps the Organization Administrator role.',
        params: MembershipParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.services.memberships.remove(request.principal, request.params.nodeId, request.params.principalId);
      return reply.code(204).send(null);
    },
  );
}
