import { Type } from '@sinclair/typebox';
import type { OrganizationMember } from '../../../domain/records/global.js';
import { type CursorList, CursorPaging, pagePosition, setNextCursor } from '../paging.js';
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
const UserIdParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64 }) });

export default async function userRoutes(app: RegionApp) {
  const User = Type.Ref('User');

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
