import { Type } from '@sinclair/typebox';
import type { GroupWithCount } from '../../../domain/records/regional.js';
import { type CursorList, clampLimit, Paging, pagePosition, setNextCursor } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  CreateGroupBody,
  GroupIdParams,
  GroupSchema,
  GroupUserParams,
  ListGroupsQuery,
  toGroupBody,
  UpdateGroupBody,
} from './group-schemas.js';
import { toUserBody } from './user-schemas.js';

/** The groups list's order (name without case, then id): what a cursor holds. */
const GROUPS: CursorList<GroupWithCount> = { name: 'groups', keyLength: 2, keyOf: (row) => [row.name_key, row.id] };

const WHO_MAY_CHANGE = 'Needs manage on the owning division, or on the organization node for an organization group.';

export default async function groupRoutes(app: RegionApp) {
  app.addSchema(GroupSchema);
  const Group = Type.Ref('Group');

  app.post(
    '/v1/groups',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'createGroup',
        summary: 'Create a group',
        description: `Without divisionId the group is an organization group, part of every division. ${WHO_MAY_CHANGE} 409 DuplicateGroupName; CannotUpdateMemberFromSCIMGroup when a SCIM-managed group has the name.`,
        body: CreateGroupBody,
        response: { 201: Group, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const body = toGroupBody(await app.services.groups.create(request.principal, request.body));
      return created(reply, app.baseUrl, `/v1/groups/${body.id}`, body);
    },
  );

  app.get(
    '/v1/groups',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'listGroups',
        summary: "List the organization's groups",
        description: "Ordered by name. With divisionId: that division's own groups and the organization groups.",
        querystring: ListGroupsQuery,
        response: { 200: Type.Array(Group), ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { divisionId, name } = request.query;
      const { principal } = request;
      const scope = [principal.orgId, divisionId ?? '', name?.toLowerCase() ?? ''];
      const page = pagePosition(GROUPS, scope, request.query);
      const groups = await app.services.groups.list(
        principal,
        { ...(divisionId !== undefined ? { divisionId } : {}), ...(name !== undefined ? { name } : {}) },
        page,
      );
      setNextCursor(reply, GROUPS, scope, page, groups);
      return groups.map(toGroupBody);
    },
  );

  app.get(
    '/v1/groups/:groupId',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'getGroup',
        summary: 'Get a group',
        params: GroupIdParams,
        response: { 200: Group, ...errors(401, 403, 404) },
      },
    },
    async (request) => toGroupBody(await app.services.groups.get(request.principal, request.params.groupId)),
  );

  app.patch(
    '/v1/groups/:groupId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'updateGroup',
        summary: 'Rename a group, change its owning division or its SAML link',
        description: `${WHO_MAY_CHANGE} Moving it to another division needs manage on both; a division's group holds memberships only inside its division (400 GroupOutsideDivision). 409 DuplicateGroupName, CannotUpdateMemberFromSCIMGroup.`,
        params: GroupIdParams,
        body: UpdateGroupBody,
        response: { 200: Group, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toGroupBody(await app.services.groups.update(request.principal, request.params.groupId, request.body)),
  );

  app.delete(
    '/v1/groups/:groupId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'deleteGroup',
        summary: 'Delete a group with its members and its memberships on nodes',
        description: `${WHO_MAY_CHANGE} 409 CannotRemoveSCIMGroup, CannotRemoveOrganizationGroup (give it an owning division first).`,
        params: GroupIdParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.services.groups.delete(request.principal, request.params.groupId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/groups/:groupId/users',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'listGroupMembers',
        summary: "List a group's members",
        description: 'In the order they joined.',
        params: GroupIdParams,
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Type.Array(Type.Ref('User')), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const members = await app.services.groups.members(
        request.principal,
        request.params.groupId,
        clampLimit(limit),
        offset ?? 0,
      );
      return members.map(toUserBody);
    },
  );

  app.put(
    '/v1/groups/:groupId/users/:userId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'addGroupMember',
        summary: 'Add a user or service user of the organization to a group',
        description: `${WHO_MAY_CHANGE} Answers the member. 409 GroupHasSamlLink, CannotInviteToSCIMGroup, UserAlreadyMember (checked in this order).`,
        params: GroupUserParams,
        response: { 200: Type.Ref('User'), ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { groupId, userId } = request.params;
      return toUserBody(await app.services.groups.addMember(request.principal, groupId, userId));
    },
  );

  app.delete(
    '/v1/groups/:groupId/users/:userId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Groups'],
        operationId: 'removeGroupMember',
        summary: 'Remove a member from a group',
        description: `${WHO_MAY_CHANGE} 404 when the user is not a member. 409 GroupHasSamlLink, CannotRemoveMemberFromSCIMGroup.`,
        params: GroupUserParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { groupId, userId } = request.params;
      await app.services.groups.removeMember(request.principal, groupId, userId);
      return reply.code(204).send(null);
    },
  );
}
