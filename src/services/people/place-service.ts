import type { MembershipRepository } from '../../adapters/db/repositories/membership-repository.js';
import { highestPlaces } from '../../domain/access/places.js';
import type { Principal } from '../../domain/access/principal.js';
import { NODE_LISTING_COLUMNS, type NodeListing } from '../../domain/records/regional.js';

/** A place: a node where the caller holds a role, with that role (docs/design/places.md). */
export interface Place {
  node: NodeListing;
  roleId: string;
  roleName: string;
}

/**
 * GET /v1/users/me/places: the highest nodes where the caller, itself or through a group, holds
 * a role. It needs no permission anywhere (a caller asks only about itself); a person holds a
 * few roles, so the places are found from all of them and the page is cut from the result.
 */
export class PlaceService {
  constructor(private readonly memberships: Pick<MembershipRepository, 'heldBy'>) {}

  async list(principal: Principal, limit: number, offset: number): Promise<{ rows: Place[]; total: number }> {
    const held = await this.memberships.heldBy(principal.orgId, principal.userId);
    const places = highestPlaces(
      held.map((row) => ({
        node: Object.fromEntries(NODE_LISTING_COLUMNS.map((column) => [column, row[column]])) as NodeListing,
        nodeId: row.id,
        path: row.path,
        roleId: row.role_id,
        roleName: row.role_name,
        direct: Number(row.direct) === 1,
      })),
    );
    const page = places.slice(offset, offset + limit);
    return { rows: page.map(({ node, roleId, roleName }) => ({ node, roleId, roleName })), total: places.length };
  }
}
