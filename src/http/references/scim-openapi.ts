/**
 * The OpenAPI document of SCIM 2.0 (RFC 7643, 7644) at {publicUrl}/scim/v2, for an
 * organization's identity provider. Written out: the SCIM routes take SCIM's own shapes
 * (filters, PatchOp) and answer application/scim+json, checked in services/scim, not with a
 * route schema. test/api/reference-documents.test.ts checks it is valid and that each path answers.
 */
export function scimOpenApiDocument(publicUrl: string) {
  const scim = (schema: object, example?: object) => ({
    'application/scim+json': { schema, ...(example ? { example } : {}) },
  });
  const error = { description: 'A SCIM error (status, scimType, detail)', content: scim({ $ref: '#/components/schemas/Error' }) };
  const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  const listParameters = [
    { name: 'filter', in: 'query', schema: { type: 'string' }, description: 'e.g. userName eq "ada@example.com"' },
    { name: 'startIndex', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
    { name: 'count', in: 'query', schema: { type: 'integer', minimum: 0 } },
  ];
  const resource = (name: 'User' | 'Group', tag: string, example: object) => {
    const ref = { $ref: `#/components/schemas/${name}` };
    return {
      collection: {
        get: {
          tags: [tag],
          operationId: `list${name}s`,
          summary: `List or filter ${name.toLowerCase()}s`,
          parameters: listParameters,
          responses: {
            200: { description: 'A ListResponse', content: scim({ $ref: '#/components/schemas/ListResponse' }) },
            400: error,
            401: error,
          },
        },
        post: {
          tags: [tag],
          operationId: `create${name}`,
          summary: `Create a ${name.toLowerCase()}`,
          requestBody: { required: true, content: scim(ref, example) },
          responses: {
            201: {
              description: 'Created',
              headers: { Location: { description: 'meta.location of the resource', schema: { type: 'string', format: 'uri' } } },
              content: scim(ref),
            },
            400: error,
            401: error,
            409: error,
          },
        },
      },
      item: {
        parameters: [idParameter],
        get: {
          tags: [tag],
          operationId: `get${name}`,
          summary: `Get a ${name.toLowerCase()}`,
          responses: { 200: { description: 'OK', content: scim(ref) }, 401: error, 404: error },
        },
        put: {
          tags: [tag],
          operationId: `replace${name}`,
          summary: `Replace a ${name.toLowerCase()}`,
          requestBody: { required: true, content: scim(ref) },
          responses: { 200: { description: 'OK', content: scim(ref) }, 400: error, 401: error, 404: error },
        },
        patch: {
          tags: [tag],
          operationId: `patch${name}`,
          summary: `Change a ${name.toLowerCase()} (PatchOp)`,
          requestBody: { required: true, content: scim({ $ref: '#/components/schemas/PatchOp' }) },
          responses: { 200: { description: 'OK', content: scim(ref) }, 400: error, 401: error, 404: error },
        },
        delete: {
          tags: [tag],
          operationId: `delete${name}`,
          summary: `Delete a ${name.toLowerCase()}`,
          responses: { 204: { description: 'Deleted' }, 401: error, 404: error },
        },
      },
    };
  };
  const users = resource('User', 'Users', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: 'ada@example.com',
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ value: 'ada@example.com', primary: true }],
    active: true,
  });
  const groups = resource('Group', 'Groups', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: 'Surveyors',
    members: [{ value: '5b0e…' }],
  });
  const discovery = (operationId: string, summary: string) => ({
    get: {
      tags: ['Discovery'],
      operationId,
      summary,
      responses: { 200: { description: 'OK', content: scim({ type: 'object' }) }, 401: error },
    },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Reality Data Platform SCIM 2.0',
      version: '2.0',
      description:
        "Provisioning of an organization's users and groups by its identity provider (RFC 7644). The bearer token is a SCIM token of the organization (POST /v1/scim-tokens of the regional API, or rdp admin scim-token create).",
    },
    servers: [{ url: `${publicUrl}/scim/v2` }],
    security: [{ scimToken: [] }],
    tags: [
      { name: 'Users', description: "The organization's people" },
      { name: 'Groups', description: "The organization's groups and their members" },
      { name: 'Discovery', description: 'What this service provider supports' },
    ],
    paths: {
      '/Users': users.collection,
      '/Users/{id}': users.item,
      '/Groups': groups.collection,
      '/Groups/{id}': groups.item,
      '/ServiceProviderConfig': discovery('getServiceProviderConfig', 'Supported features (patch, filter, paging)'),
      '/ResourceTypes': discovery('listResourceTypes', 'The resource types: User and Group'),
      '/ResourceTypes/{id}': { parameters: [idParameter], ...discovery('getResourceType', 'One resource type') },
      '/Schemas': discovery('listSchemas', 'The schemas of the resources'),
      '/Schemas/{id}': { parameters: [idParameter], ...discovery('getSchema', 'One schema') },
    },
    components: {
      securitySchemes: { scimToken: { type: 'http', scheme: 'bearer', description: 'A SCIM token of the organization' } },
      schemas: {
        User: {
          type: 'object',
          required: ['userName'],
          properties: {
            schemas: { type: 'array', items: { type: 'string' } },
            id: { type: 'string', readOnly: true },
            externalId: { type: 'string' },
            userName: { type: 'string', description: 'The e-mail address' },
            name: { type: 'object', properties: { givenName: { type: 'string' }, familyName: { type: 'string' } } },
            emails: {
              type: 'array',
              items: { type: 'object', properties: { value: { type: 'string' }, primary: { type: 'boolean' } } },
            },
            active: { type: 'boolean' },
            meta: { type: 'object', readOnly: true, additionalProperties: true },
          },
        },
        Group: {
          type: 'object',
          required: ['displayName'],
          properties: {
            schemas: { type: 'array', items: { type: 'string' } },
            id: { type: 'string', readOnly: true },
            externalId: { type: 'string' },
            displayName: { type: 'string' },
            members: {
              type: 'array',
              items: { type: 'object', properties: { value: { type: 'string' }, display: { type: 'string' } } },
            },
            meta: { type: 'object', readOnly: true, additionalProperties: true },
          },
        },
        ListResponse: {
          type: 'object',
          properties: {
            schemas: { type: 'array', items: { type: 'string' } },
            totalResults: { type: 'integer' },
            startIndex: { type: 'integer' },
            itemsPerPage: { type: 'integer' },
            Resources: { type: 'array', items: { type: 'object' } },
          },
        },
        PatchOp: {
          type: 'object',
          required: ['schemas', 'Operations'],
          properties: {
            schemas: { type: 'array', items: { type: 'string', enum: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'] } },
            Operations: {
              type: 'array',
              items: {
                type: 'object',
                required: ['op'],
                properties: { op: { type: 'string' }, path: { type: 'string' }, value: {} },
              },
            },
          },
        },
        Error: {
          type: 'object',
          properties: {
            schemas: { type: 'array', items: { type: 'string' } },
            status: { type: 'string' },
            scimType: { type: 'string' },
            detail: { type: 'string' },
          },
        },
      },
    },
  };
}
