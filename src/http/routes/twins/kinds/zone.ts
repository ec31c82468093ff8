import { type Static, Type } from '@sinclair/typebox';
import type { ZoneTree, ZoneView } from '../../../../services/twins/zone-service.js';
import { clampLimit, Paging } from '../../paging.js';
import type { TwinObjectRoutes } from '../twin-object-routes.js';
import { wantsMetadata } from '../twin-object-routes.js';
import {
  Color,
  Description,
  DropUnfitting,
  IncludeMetadata,
  Nullable,
  ObjectId,
  ObjectName,
  ObjectTrailFields,
  objectTrail,
  RETYPE_TEXT,
  Volume,
} from '../twin-value-schemas.js';

const fields = {
  name: ObjectName,
  description: Description,
  volume: Volume,
  parentZoneId: Nullable(ObjectId),
  color: Nullable(Color),
  metadataTypeId: Nullable(ObjectId),
};

export const CreateZoneBody = Type.Object(
  {
    name: fields.name,
    description: Type.Optional(fields.description),
    volume: fields.volume,
    parentZoneId: Type.Optional(fields.parentZoneId),
    color: Type.Optional(fields.color),
    metadataTypeId: Type.Optional(fields.metadataTypeId),
  },
  { additionalProperties: false },
);

export const UpdateZoneBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: Type.Optional(fields.description),
    volume: Type.Optional(fields.volume),
    parentZoneId: Type.Optional(fields.parentZoneId),
    color: Type.Optional(fields.color),
    metadataTypeId: Type.Optional(fields.metadataTypeId),
    dropUnfitting: Type.Optional(DropUnfitting),
  },
  { additionalProperties: false, minProperties: 1 },
);

const zoneFields = {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  volume: Volume,
  parentZoneId: Nullable(Type.String()),
  childZoneIds: Type.Array(Type.String(), { description: 'The zones directly under this one, in list order' }),
  color: Nullable(Type.String()),
  metadataTypeId: Nullable(Type.String()),
  ...ObjectTrailFields,
};

export const ZoneSchema = Type.Object(zoneFields, { $id: 'Zone', title: 'Zone' });

export const ZoneTreeSchema = Type.Object(
  { ...zoneFields, children: Type.Array(Type.Ref('ZoneTreeNode')) },
  { $id: 'ZoneTreeNode', title: 'ZoneTreeNode', description: 'A zone with the zones under it, nested' },
);

export const ZoneListQuery = Type.Object(
  {
    ...Paging,
    ...IncludeMetadata,
    tree: Type.Optional(
      Type.Boolean({
        description:
          'true: {items: [top-level zone with children: [...]]}, limit and offset paging the top-level zones; otherwise a flat array',
      }),
    ),
  },
  { additionalProperties: false },
);

type ZoneBody = Static<typeof ZoneSchema>;
type ZoneTreeBody = ZoneBody & { children: ZoneTreeBody[] };

export function toZoneBody(zone: ZoneView, withMetadata: boolean): ZoneBody {
  const f = zone.fields;
  return {
    id: zone.id,
    name: f.name,
    description: f.description,
    volume: f.volume,
    parentZoneId: f.parentZoneId,
    childZoneIds: zone.childZoneIds,
    color: f.color,
    metadataTypeId: f.metadataTypeId,
    ...objectTrail(f, withMetadata),
  };
}

export function toZoneTreeBody(zone: ZoneTree, withMetadata: boolean): ZoneTreeBody {
  return { ...toZoneBody(zone, withMetadata), children: zone.children.map((child) => toZoneTreeBody(child, withMetadata)) };
}

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const WRITE = `${CONTEXT} Needs edit on the site. 400 ValidationError naming the field: a rotation whose norm is not within 1 ± 1e-3 (rotations are stored normalised), parentZoneId (no such zone in the context), metadataTypeId (no such type in the organization, or one that does not apply to zones). 409 CircularityFound: the parent is the zone or inside its subtree; 409 MaxDepthExceeded: the zone's subtree would reach below level 8 (a top-level zone is level 1); 409 DraftNotOpen: the draft is published or discarded.`;

/** Zones: named volumes that nest (docs/twins.md); their list is also a tree. */
export const ZONE_ROUTES: TwinObjectRoutes<
  ZoneView,
  'zoneId',
  typeof ZoneSchema,
  typeof CreateZoneBody,
  typeof UpdateZoneBody,
  typeof ZoneListQuery
> = {
  segment: 'zones',
  idParam: 'zoneId',
  names: { singular: 'Zone', plural: 'Zones' },
  tag: 'Zones',
  schemas: { answer: ZoneSchema, create: CreateZoneBody, update: UpdateZoneBody, others: [ZoneTreeSchema] },
  text: {
    list: {
      summary: 'List the zones of a twin, flat or as a tree',
      description: `${CONTEXT} Ordered by createdAt, then id (children too). With tree=true: {items: [zone with children]}, the top-level zones paged by limit and offset, each with its whole subtree. Needs read on the site.`,
    },
    get: { summary: 'Get a zone', description: `${CONTEXT} Needs read on the site.` },
    create: { summary: 'Outline a zone', description: WRITE },
    update: {
      summary: 'Change or move a zone',
      description: `Any non-empty subset of the fields; each replaces the stored one whole, null clears an optional one (parentZoneId null: top level). ${RETYPE_TEXT} ${WRITE}`,
    },
    delete: {
      summary: 'Delete a zone',
      description: `${CONTEXT} Its child zones move to its parent and its points of interest leave it (zoneId null), in the same transaction (through a draft, as the draft's changes). Needs edit on the site. 409 DraftNotOpen.`,
    },
  },
  service: (services) => services.zones,
  toBody: toZoneBody,
  list: {
    querystring: ZoneListQuery,
    response: (zone) => Type.Union([Type.Array(zone), Type.Object({ items: Type.Array(Type.Ref('ZoneTreeNode')) })]),
    async answer(services, principal, contextId, query) {
      const { limit, offset, tree } = query;
      const withMetadata = wantsMetadata(query);
      if (tree) {
        const roots = await services.zones.tree(principal, contextId, clampLimit(limit), offset ?? 0);
        return { items: roots.map((root) => toZoneTreeBody(root, withMetadata)) };
      }
      const rows = await services.zones.list(principal, contextId, clampLimit(limit), offset ?? 0);
      return rows.map((row) => toZoneBody(row, withMetadata));
    },
  },
};
