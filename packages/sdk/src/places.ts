import type { Schema } from './client.js';
import { collect, paginate } from './paging.js';
import type { HasApi } from './uploads.js';

/** A node where the caller holds a role, as browse answers it, with that role. */
export type Place = Schema<'Place'>;

/**
 * The caller's places (GET /v1/users/me/places, every page): the highest nodes where the user or
 * service user holds a role, itself or through a group. An organization administrator has one,
 * the organization; a person with a role on a division only has that division, and browsing the
 * organization answers the divisions on the way to it.
 */
export function listPlaces(client: HasApi): Promise<Place[]> {
  return collect(
    paginate((page) => client.api.GET('/v1/users/me/places', { params: { query: { limit: page.limit, offset: page.offset } } })),
  );
}
