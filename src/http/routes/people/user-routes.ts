import { Type } from '@sinclair/typebox';
import type { OrganizationMember } from '../../../domain/records/global.js';
import { toNodeBody } from '../nodes/node-schemas.js';
import { type CursorList, CursorPaging, clampLimit, Paging, pagePosition, setNextCursor } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import { toUserBody } from './user-schemas.js';

const PersonName = Type.String({ maxLength: 255, description: '0 to 255 characters, stored as given' });
const UpdateBody = Type.Object(
  { firstName: Type.Optional(PersonName), lastName: Type.Optional(PersonName), active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
const ListQuery = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 320, description: 'Exactly this address (compared without case)' })),
    kind: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('service')])),
    active: Type.Optional(Type.Boolean()),
    ...CursorPaging,
  },
  { additionalProperties: false },
);
/** The users list's order (e-mail address, then id): what a cursor holds. */
const USERS: CursorList<OrganizationMember> = { name: 'users', keyLength: 2, keyOf: (row) => [row.email, row.id] };
/** A place of GET /v1/users/me/places (docs/design/places.md): the node as browse answers it, with the caller's role there. */
const Place = Type.Object(
  {
    node: Type.Ref('Node'),
    roleId: Type.String(),
    roleName: Type.String(),
    inherited: Type.Boolean({ description: 'false: the caller holds the role on this node, itself or through a group' }),
  },
  { $id: 'Place', title: 'Place', additionalProperties: false },
);
const PlaceList = Type.Object(
  {
    items: Type.Array(Type.Ref('Place')),
    page: Type.Integer({ description: 'offset / limit, rounded down' }),
    limit: Type.Integer(),
    total: Type.Integer({ description: 'How many places the caller has, on every page' }),
  },
  { additionalProperties: false },
);
const UserIdParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64 }) });

export default async function userRoutes(app: RegionApp) {
  const User = Type.Ref('User');
  app.addSchema(Place);

  app.get(
    '/v1/users',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Users'],
        operationId: 'listUsers',
        summary: "List the organization's users and service users",
        description: 'By e-mail address. Filters: email, kind, active (in this organization).',
        querystring: ListQuery,
        response: { 200: Type.Array(User), ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { email, kind, active } = request.query;
      const filter = {
        ...(email !== undefined ? { email } : {}),
        ...(kind ? { kind } : {}),
        ...(active !== undefined ? { active } : {}),
      };
      const { principal } = request;
      const scope = [principal.orgId, principal.userId, email?.toLowerCase() ?? '', kind ?? '', String(active ?? '')];
      const page = pagePosition(USERS, scope, request.query);
      const rows = await app.services.users.list(principal, filter, page);
      setNextCursor(reply, USERS, scope, page, rows);
      return rows.map(toUserBody);
    },
  );

  app.get(
    '/v1/users/me',
    {
      config: { scope: 'read:basic' },
      schema: {
        tags: ['Users'],
        operationId: 'getCurrentUser',
        summary: 'Get the calling user or service user',
        response: { 200: User, ...errors(401, 403) },
      },
    },
    async (request) => toUserBody(await app.services.users.get(request.principal, request.principal.userId)),
  );

  app.get(
    '/v1/users/me/places',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Users'],
        operationId: 'listMyPlaces',
        summary: 'List the nodes where the caller holds a role',
        description:
          "The highest nodes where the calling user or service user holds a role, itself or through a group, in browse order: a role on a division covers its sites, so the division alone is listed; an organization administrator's place is the organization. A node is listed with one role: one held directly before one through a group, then by role name. Browsing a node on the way down to a place answers the children that lead there.",
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: PlaceList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const limit = clampLimit(request.query.limit);
      const offset = request.query.offset ?? 0;
      const { rows, total } = await app.services.places.list(request.principal, limit, offset);
      const items = rows.map((place) => ({
        node: toNodeBody(place.node),
        roleId: place.roleId,
        roleName: place.roleName,
        inherited: false,
      }));
      return { items, page: Math.floor(offset / limit), limit, total };
    },
  );

  app.get(
    '/v1/users/:userId',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Users'],
        operationId: 'getUser',
        summary: 'Get a user of the organization',
        params: UserIdParams,
        response: { 200: User, ...errors(401, 403, 404) },
      },
    },
    async (request) => toUserBody(await app.services.users.get(request.principal, request.params.userId)),
  );

  app.patch(
    '/v1/users/:userId',
    {
      config: { scope: 'write:user' },
      schema: {
        tags: ['Users'],
        operationId: 'updateUser',
        summary: 'Rename, deactivate or reactivate a user in the organization',
        description:
          "A user may change their own names; anything else needs manage on the organization node. active: false deactivates the user in this organization (its tokens for it stop at once); active: true reactivates it, and takes a seat for a person (403 Forbidden resource when none is free). 409 CannotDeactivateSelf, LastAdministrator (the organization's last active administrator).",
        params: UserIdParams,
        body: UpdateBody,
        response: { 200: User, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toUserBody(await app.services.users.update(request.principal, request.params.userId, request.body)),
  );
}
