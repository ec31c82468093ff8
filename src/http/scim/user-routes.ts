import { USER_SCHEMA } from '../../domain/scim/attributes.js';
import { listResponse, parsePaging, projectAttributes } from '../../domain/scim/listing.js';
import { parsePatchRequest } from '../../domain/scim/patch.js';
import { newUserFromBody, toUserResource, userFieldsFromBody } from '../../domain/scim/user-resource.js';
import { queryValue, type ScimApp } from './scim-app.js';

type IdRoute = { Params: { id: string } };

/** /Users (RFC 7644 section 3): the organization's people. */
export default async function userRoutes(app: ScimApp) {
  const { users } = app.scimServices;
  const hidden = { schema: { hide: true } };
  const shown = (request: Parameters<typeof queryValue>[0], resource: Record<string, unknown>) =>
    projectAttributes(resource, USER_SCHEMA, {
      attributes: queryValue(request, 'attributes'),
      excludedAttributes: queryValue(request, 'excludedAttributes'),
    });

  app.get('/Users', hidden, async (request) => {
    const paging = parsePaging(queryValue(request, 'startIndex'), queryValue(request, 'count'), queryValue(request, 'cursor'));
    const { total, records, nextCursor } = await users.list(request.scim, queryValue(request, 'filter'), paging);
    return listResponse(
      records.map((record) => shown(request, toUserResource(record, request.scim.baseUrl))),
      total,
      paging,
      nextCursor,
    );
  });

  app.post('/Users', hidden, async (request, reply) => {
    const record = await users.create(request.scim, newUserFromBody(request.body));
    const resource = toUserResource(record, request.scim.baseUrl);
    return reply
      .code(201)
      .header('location', (resource.meta as { location: string }).location)
      .send(shown(request, resource));
  });

  app.get<IdRoute>('/Users/:id', hidden, async (request) =>
    shown(request, toUserResource(await users.get(request.scim, request.params.id), request.scim.baseUrl)),
  );

  app.put<IdRoute>('/Users/:id', hidden, async (request) => {
    const record = await users.replace(request.scim, request.params.id, userFieldsFromBody(request.body));
    return shown(request, toUserResource(record, request.scim.baseUrl));
  });

  app.patch<IdRoute>('/Users/:id', hidden, async (request) => {
    const record = await users.patch(request.scim, request.params.id, parsePatchRequest(request.body, USER_SCHEMA));
    return shown(request, toUserResource(record, request.scim.baseUrl));
  });

  app.delete<IdRoute>('/Users/:id', hidden, async (request, reply) => {
    await users.delete(request.scim, request.params.id);
    return reply.code(204).send();
  });
}
