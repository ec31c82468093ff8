import { type Static, Type } from '@sinclair/typebox';
import { PERMISSIONS } from '../../../domain/access/permissions.js';
import type { RoleRow } from '../../../domain/records/regional.js';
import { Name } from '../nodes/node-schemas.js';
import { type CursorList, CursorPaging, MAX_PAGE, MAX_PAGING_VALUE, pagePosition, setNextCursor } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';

const Permissions = Type.Array(Type.String({ maxLength: 32 }), {
  maxItems: 32,
  description: `Permissions the role gives, from ${PERMISSIONS.join(', ')}; stored once each, in that order`,
});

export const RoleSchema = Type.Object(
  {
    id: Type.String({ description: 'A readable slug for administrative roles, a UUID for custom roles' }),
    name: Type.String(),
    kind: Type.Union([Type.Literal('administrative'), Type.Literal('custom')]),
    permissions: Type.Array(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Role', title: 'Role' },
);
type RoleBody = Static<typeof RoleSchema>;

const CreateBody = Type.Object({ name: Name, permissions: Permissions }, { additionalProperties: false });
const UpdateBody = Type.Object(
  { name: Type.Optional(Name), permissions: Type.Optional(Permissions) },
  { additionalProperties: false, minProperties: 1 },
);
/** Paging is optional here: limit has no default, so a request without it still answers every role. */
const RolesQuery = Type.Object(
  {
    ...CursorPaging,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGING_VALUE,
        description: `Page size; values above ${MAX_PAGE} are clamped to ${MAX_PAGE}; absent: every role`,
      }),
    ),
  },
  { additionalProperties: false },
);
/** The roles list's order (kind, name without case, then id): what a cursor holds. */
const ROLES: CursorList<RoleRow> = { name: 'roles', keyLength: 3, keyOf: (row) => [row.kind, row.name_key, row.id] };
const RoleIdParams = Type.Object({ roleId: Type.String({ minLength: 1, maxLength: 64 }) });

function toRoleBody(row: RoleRow): RoleBody {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    permissions: JSON.parse(row.permissions) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export default async function roleRoutes(app: RegionApp) {
  app.addSchema(RoleSchema);
  const Role = Type.Ref('Role');

  app.get(
    '/v1/roles',
    {
      config: { scope: 'read:basic' },
      schema: {
        tags: ['Roles'],
        operationId: 'listRoles',
        summary: "List the organization's roles",
        description:
          'Administrative roles first (given on the organization node only), then custom roles by name. Every role unless limit, offset or cursor is given.',
        querystring: RolesQuery,
        response: { 200: Type.Array(Role), ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { principal, query } = request;
      // Without paging fields, every role, as before cursors (the console's role pickers read them all).
      if (query.limit === undefined && query.offset === undefined && query.cursor === undefined)
        return (await app.services.roles.list(principal)).map(toRoleBody);
      const scope = [principal.orgId];
      const page = pagePosition(ROLES, scope, query);
      const rows = await app.services.roles.list(principal, page);
      setNextCursor(reply, ROLES, scope, page, rows);
      return rows.map(toRoleBody);
    },
  );

  app.post(
    '/v1/roles',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Roles'],
        operationId: 'createRole',
        summary: 'Create a custom role',
        description: 'Needs manage on the organization node. 409 DuplicateRoleName: the name (compared without case) is taken.',
        body: CreateBody,
        response: { 201: Role, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const body = toRoleBody(await app.services.roles.create(request.principal, request.body));
      // No GET of one role (GET /v1/roles lists them): the address its PATCH and DELETE take.
      return created(reply, app.baseUrl, `/v1/roles/${body.id}`, body);
    },
  );

  app.patch(
    '/v1/roles/:roleId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Roles'],
        operationId: 'updateRole',
        summary: 'Rename a custom role or change its permissions',
        description:
          'Needs manage on the organization node. Changed permissions apply at once wherever the role is given. 409 DuplicateRoleName, AdministrativeRoleNotEditable.',
        params: RoleIdParams,
        body: UpdateBody,
        response: { 200: Role, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toRoleBody(await app.services.roles.update(request.principal, request.params.roleId, request.body)),
  );

  app.delete(
    '/v1/roles/:roleId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Roles'],
        operationId: 'deleteRole',
        summary: 'Delete a custom role',
        description:
          'Needs manage on the organization node. 409 RoleInUse while a membership or a pending invitation gives it; AdministrativeRoleNotEditable.',
        params: RoleIdParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.services.roles.remove(request.principal, request.params.roleId);
      return reply.code(204).send(null);
    },
  );
}
