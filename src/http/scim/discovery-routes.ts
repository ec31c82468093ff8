import { resourceTypes, schemas, serviceProviderConfig } from '../../domain/scim/discovery.js';
import { listResponse } from '../../domain/scim/listing.js';
import { notFound } from '../../domain/scim/scim-error.js';
import type { ScimApp } from './scim-app.js';

/** ServiceProviderConfig, ResourceTypes and Schemas (RFC 7644 section 4). */
export default async function discoveryRoutes(app: ScimApp) {
  const byId = <T extends { id: string }>(items: T[], id: string, what: string): T => {
    const found = items.find((item) => item.id.toLowerCase() === id.toLowerCase());
    if (!found) throw notFound(`No ${what} ${id}`);
    return found;
  };
  const all = <T extends object>(items: T[]) =>
    listResponse(items as Record<string, unknown>[], items.length, { startIndex: 1, count: items.length });

  app.get('/ServiceProviderConfig', { schema: { hide: true } }, async (request) => serviceProviderConfig(request.scim.baseUrl));
  app.get('/ResourceTypes', { schema: { hide: true } }, async (request) => all(resourceTypes(request.scim.baseUrl)));
  app.get<{ Params: { id: string } }>('/ResourceTypes/:id', { schema: { hide: true } }, async (request) =>
    byId(resourceTypes(request.scim.baseUrl), request.params.id, 'resource type'),
  );
  app.get('/Schemas', { schema: { hide: true } }, async (request) => all(schemas(request.scim.baseUrl)));
  app.get<{ Params: { id: string } }>('/Schemas/:id', { schema: { hide: true } }, async (request) =>
    byId(schemas(request.scim.baseUrl), request.params.id, 'schema'),
  );
}
