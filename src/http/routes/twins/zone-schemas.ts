import { type Static, Type } from '@sinclair/typebox';
import type { ZoneTree, ZoneView } from '../../../services/twins/zone-service.js';
import { Paging } from '../paging.js';
import {
  Color,
  ContextIdParams,
  Description,
  IncludeMetadata,
  Nullable,
  ObjectId,
  ObjectName,
  ObjectTrailFields,
  Volume,
} from './twin-value-schemas.js';

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

export const ZoneParams = Type.Object({
  ...ContextIdParams.properties,
  zoneId: ObjectId,
});

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
  const f = zone.fields as unknown as Omit<ZoneBody, 'id' | 'childZoneIds'>;
  return {
    id: zone.id,
    name: f.name,
    description: f.description,
    volume: f.volume,
    parentZoneId: f.parentZoneId,
    childZoneIds: zone.childZoneIds,
    color: f.color,
    metadataTypeId: f.metadataTypeId,
    ...(withMetadata ? { metadata: f.metadata ?? {} } : {}),
    createdBy: f.createdBy,
    updatedBy: f.updatedBy,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

export function toZoneTreeBody(zone: ZoneTree, withMetadata: boolean): ZoneTreeBody {
  return { ...toZoneBody(zone, withMetadata), children: zone.children.map((child) => toZoneTreeBody(child, withMetadata)) };
}
