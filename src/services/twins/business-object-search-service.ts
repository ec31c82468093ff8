import type {
  BusinessObjectRepository,
  BusinessObjectRow,
  BusinessObjectSort,
  NameMatch,
} from '../../adapters/db/repositories/business-object-repository.js';
import { insideOneOf, type NodeListRepository, outermostPaths } from '../../adapters/db/repositories/node-list-repository.js';
import type { Principal } from '../../domain/access/principal.js';
import { validationError } from '../../domain/errors.js';
import type { TwinService } from './twin-service.js';

/** The kinds the search covers (docs/design/search.md#business-object-search, docs/design/measurements.md): assets, points of interest, measurements. */
export const SEARCHED_TYPES = ['asset', 'pointOfInterest', 'measurement'] as const;
export type SearchedType = (typeof SEARCHED_TYPES)[number];

export interface BusinessObjectSearch {
  contextId?: string;
  types?: SearchedType[];
  page: number;
  limit: number;
  sortBy: BusinessObjectSort;
  sortOrder?: 'asc' | 'desc';
  createdBy?: string[];
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  /** Empty or absent: no name condition. */
  nameQuery?: string;
  nameMatch: NameMatch;
}

/** A stored instant from an ISO 8601 date-time the schema accepted (any offset): UTC, milliseconds. */
function instant(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw validationError(`querystring.${field}: must match format "date-time"`);
  return new Date(time).toISOString();
}

/**
 * Business-object search (docs/design/search.md#business-object-search, docs/twins.md): an
 * organization's live assets, points of interest and measurements on the sites the caller may read. Which sites:
 * with contextId, that site (read on it, as every twin route; a draft id is refused: the search
 * reads live twins); without, every site of the organization that is not trashed, lies inside a
 * subtree where the caller or one of its groups holds `read`, and is at or below no node requiring
 * another identity provider.
 */
export interface BusinessObjectSearchServiceOptions {
  objects: BusinessObjectRepository;
  twins: Pick<TwinService, 'isDraft' | 'site'>;
  /** The subtrees where the caller holds read. */
  lists: Pick<NodeListRepository, 'readablePaths'>;
}

export class BusinessObjectSearchService {
  private readonly objects: BusinessObjectRepository;
  private readonly twins: BusinessObjectSearchServiceOptions['twins'];
  private readonly lists: BusinessObjectSearchServiceOptions['lists'];

  constructor(options: BusinessObjectSearchServiceOptions) {
    this.objects = options.objects;
    this.twins = options.twins;
    this.lists = options.lists;
  }

  async search(principal: Principal, params: BusinessObjectSearch): Promise<{ rows: BusinessObjectRow[]; total: number }> {
    const text = params.nameQuery ?? '';
    if (params.sortBy === 'nameCloseness' && text === '') {
      throw validationError('querystring.sortBy: nameCloseness needs searchNameQuery (or nameQuery)');
    }
    const bounds = {
      createdAfter: instant('createdAfter', params.createdAfter),
      createdBefore: instant('createdBefore', params.createdBefore),
      updatedAfter: instant('updatedAfter', params.updatedAfter),
      updatedBefore: instant('updatedBefore', params.updatedBefore),
    };
    const siteIds = await this.sites(principal, params.contextId);
    if (siteIds?.length === 0) return { rows: [], total: 0 };
    const descending = (params.sortOrder ?? (params.sortBy === 'name' ? 'asc' : 'desc')) === 'desc';
    return this.objects.search({
      orgId: principal.orgId,
      siteIds,
      types: params.types?.length ? [...new Set(params.types)] : [...SEARCHED_TYPES],
      createdBy: params.createdBy?.length ? [...new Set(params.createdBy)] : undefined,
      ...bounds,
      name: text === '' ? undefined : { text, key: text.toLowerCase(), match: params.nameMatch },
      sortBy: params.sortBy,
      descending,
      limit: params.limit,
      offset: (params.page - 1) * params.limit,
    });
  }

  /** The sites searched: undefined for all of the organization's (every one readable), else their ids. */
  private async sites(principal: Principal, contextId: string | undefined): Promise<string[] | undefined> {
    if (contextId !== undefined) {
      if (await this.twins.isDraft(principal.orgId, contextId)) {
        throw validationError(
          "querystring.contextId: names a draft; the search reads live twins only (give the draft's site id)",
        );
      }
      return [(await this.twins.site(principal, contextId, 'read')).id];
    }
    const readable = await this.lists.readablePaths(principal.orgId, principal.userId);
    if (readable.length === 0) return [];
    const [sites, foreign] = await Promise.all([
      this.objects.sites(principal.orgId),
      this.objects.foreignRestrictions(principal.orgId, principal.identityProvider),
    ]);
    const restricted = outermostPaths(foreign);
    const kept = sites
      .filter(
        (site) =>
          site.trashed_at === null &&
          insideOneOf(readable, site.path) &&
          (restricted.length === 0 || !insideOneOf(restricted, site.path)),
      )
      .map((site) => site.id);
    return kept.length === sites.length ? undefined : kept;
  }
}
