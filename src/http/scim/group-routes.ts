import { GROUP_SCHEMA } from '../../domain/scim/attributes.js';
import { groupFieldsFromBody, toGroupResource } from '../../domain/scim/group-resource.js';
import { listResponse, parsePaging, projectAttributes } from '../../domain/scim/listing.js';
import { parsePatchRequest } from '../../domain/scim/patch.js';
import { queryValue, type ScimApp } from './scim-app.js';

type IdRoute = { Params: { id: string } };
type Request = Parameters<typeof queryValue>[0];

/** /Groups (RFC 7644 section 3): the organization's SCIM-managed groups. */
export default async function groupRoutes(app: ScimApp) {
  const { groups } = app.scimServices;
  const hidden = { schema: { hide: true } };
  const selection = (request: Request) => ({
    attributes: queryValue(request, 'attributes'),
    excludedAttributes: queryValue(request, 'excludedAttributes'),
  });
  /** Members are read only when the answer shows them: excludedAttributes=members spares a large group's list. */
  const withMembers = (request: Request) =>
    Object.hasOwn(projectAttributes({ members: true }, GROUP_SCHEMA, selection(request)), 'members');
  const shown = (request: Request, resource: Record<string, unknown>) =>
    projectAttributes(resource, GROUP_SCHEMA, selection(request));

  app.get('/Groups', hidden, async (request) => {
    const paging = parsePaging(queryValue(request, 'startIndex'), queryValue(request, 'count'), queryValue(request, 'cursor'));
    const { total, records, nextCursor } = await groups.list(
      request.scim,
      queryValue(request, 'filter'),
      paging,
      withMembers(request),
    );
    return listResponse(
      records.map((record) => shown(request, toGroupResource(record, request.scim.baseUrl))),
      total,
      paging,
      nextCursor,
    );
  });

  app.post('/Groups', hidden, async (request, reply) => {
    const fields = groupFieldsFromBody(request.body);
    const record = await groups.create(request.scim, { ...fields, memberIds: fields.memberIds ?? [] });
    const resource = toGroupResource(record, request.scim.baseUrl);
    return reply
      .code(201)
      .header('location', (resource.meta as { location: string }).location)
      .send(shown(request, resource));
  });

  app.get<IdRoute>('/Groups/:id', hidden, async (request) => {
    const record = await groups.get(request.scim, request.params.id, withMembers(request));
    return shown(request, toGroupResource(record, request.scim.baseUrl));
  });

  app.put<IdRoute>('/Groups/:id', hidden, async (request) => {
    const record = await groups.replace(request.scim, request.params.id, groupFieldsFromBody(request.body));
    return shown(request, toGroupResource(record, request.scim.baseUrl));
  });

  app.patch<IdRoute>('/Groups/:id', hidden, async (request) => {
    const record = await groups.patch(request.scim, request.params.id, parsePatchRequest(request.body, GROUP_SCHEMA));
    return shown(request, toGroupResource(record, request.scim.baseUrl));
  });

  app.delete<IdRoute>('/Groups/:id', hidden, async (request, reply) => {
    await groups.delete(request.scim, request.params.id);
    return reply.code(204).send();
  });
}
