import { Type } from '@sinclair/typebox';
import { float4Decimal } from '../../../domain/search/trigrams.js';
import { SEARCHED_TYPES, type SearchedType } from '../../../services/twins/business-object-search-service.js';
import { MAX_PAGING_VALUE } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import { NAME_LENGTH } from './twin-value-schemas.js';

export const MAX_SEARCH_PAGE = 100;
const MAX_CREATORS = 100;

const ObjectType = Type.Union(SEARCHED_TYPES.map((type) => Type.Literal(type)));
const Match = Type.Union([Type.Literal('contains'), Type.Literal('startsWith'), Type.Literal('exact'), Type.Literal('fuzzy')]);
const Instant = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));

const SearchQuery = Type.Object(
  {
    contextId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only objects of this site (its live twin); a draft id is 400' }),
    ),
    types: Type.Optional(
      Type.Array(ObjectType, {
        maxItems: SEARCHED_TYPES.length,
        description: 'Only these kinds (repeat the parameter); default all of them',
      }),
    ),
    page: Type.Integer({ minimum: 1, maximum: Math.floor(MAX_PAGING_VALUE / MAX_SEARCH_PAGE), default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: MAX_SEARCH_PAGE, default: 20 }),
    sortBy: Type.Union(
      [Type.Literal('createdAt'), Type.Literal('updatedAt'), Type.Literal('name'), Type.Literal('nameCloseness')],
      { default: 'updatedAt' },
    ),
    sortOrder: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        description: 'Default desc for createdAt, updatedAt and nameCloseness, asc for name',
      }),
    ),
    createdBy: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: MAX_CREATORS,
        description: 'Only objects created by one of these principals (repeat the parameter)',
      }),
    ),
    createdAfter: Instant('Only objects created strictly after this instant (ISO 8601 date-time with offset)'),
    createdBefore: Instant('Only objects created strictly before this instant'),
    updatedAfter: Instant('Only objects last changed strictly after this instant'),
    updatedBefore: Instant('Only objects last changed strictly before this instant'),
    searchNameQuery: Type.Optional(
      Type.String({ maxLength: NAME_LENGTH, description: 'Text to look for in names; empty: no name condition' }),
    ),
    searchNameMatch: Type.Optional(Match),
    nameQuery: Type.Optional(
      Type.String({ maxLength: NAME_LENGTH, description: 'Earlier name of searchNameQuery', deprecated: true }),
    ),
    nameMatch: Type.Optional(Type.Union([Match], { description: 'Earlier name of searchNameMatch', deprecated: true })),
  },
  { additionalProperties: false },
);

const BusinessObject = Type.Object(
  {
    id: Type.String(),
    type: ObjectType,
    name: Type.String(),
    contextId: Type.String({ description: 'The site whose live twin holds the object' }),
    metadataTypeId: Type.Union([Type.String(), Type.Null()]),
    createdBy: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    closeness: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Trigram similarity of the name to the search text; with searchNameQuery',
      }),
    ),
  },
  { $id: 'BusinessObject', title: 'BusinessObject', additionalProperties: false },
);

const SearchPage = Type.Object(
  {
    items: Type.Array(Type.Ref('BusinessObject')),
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer({ description: 'How many objects match, on every page' }),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `The organization's live assets, points of interest and measurements on the sites the caller may read (read on the site; trashed sites left out), without regard to drafts.
Name conditions (searchNameQuery and searchNameMatch; the earlier nameQuery and nameMatch are still accepted): contains (default), startsWith and exact compare without regard to case; fuzzy keeps names whose closeness (pg_trgm similarity) is at least 0.3.
Dates bound exclusively. Every order ends with id in the same direction, so pages never overlap or skip. sortBy=nameCloseness needs searchNameQuery (400 otherwise).`;

export default async function businessObjectRoutes(app: RegionApp) {
  app.addSchema(BusinessObject);

  app.get(
    '/v1/business-objects',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Business objects'],
        operationId: 'searchBusinessObjects',
        summary: 'Search assets, points of interest and measurements',
        description: DESCRIPTION,
        querystring: SearchQuery,
        response: { 200: SearchPage, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query;
      const { rows, total } = await app.services.businessObjects.search(request.principal, {
        contextId: q.contextId,
        types: q.types,
        page: q.page,
        limit: q.limit,
        sortBy: q.sortBy,
        sortOrder: q.sortOrder,
        createdBy: q.createdBy,
        createdAfter: q.createdAfter,
        createdBefore: q.createdBefore,
        updatedAfter: q.updatedAfter,
        updatedBefore: q.updatedBefore,
        nameQuery: q.searchNameQuery ?? q.nameQuery,
        nameMatch: q.searchNameMatch ?? q.nameMatch ?? 'contains',
      });
      const items = rows.map((row) => ({
        id: row.id,
        type: row.object_type as SearchedType,
        name: row.name,
        contextId: row.site_id,
        metadataTypeId: row.metadata_type_id,
        createdBy: row.created_by,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        ...(row.closeness === undefined || row.closeness === null ? {} : { closeness: float4Decimal(Number(row.closeness)) }),
      }));
      return { items, page: q.page, limit: q.limit, total };
    },
  );
}
