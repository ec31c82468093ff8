import { type Static, Type } from '@sinclair/typebox';
import type { TwinObject } from '../../../../domain/twins/twin-objects.js';
import type { TwinObjectRoutes } from '../twin-object-routes.js';
import {
  Description,
  DropUnfitting,
  Nullable,
  ObjectId,
  ObjectName,
  ObjectTrailFields,
  objectTrail,
  RETYPE_TEXT,
  Volume,
} from '../twin-value-schemas.js';

export const CreateAssetBody = Type.Object(
  {
    name: ObjectName,
    description: Type.Optional(Description),
    metadataTypeId: Type.Optional(Nullable(ObjectId)),
    volume: Volume,
  },
  { additionalProperties: false },
);

export const UpdateAssetBody = Type.Object(
  {
    name: Type.Optional(ObjectName),
    description: Type.Optional(Description),
    metadataTypeId: Type.Optional(Nullable(ObjectId)),
    volume: Type.Optional(Volume),
    dropUnfitting: Type.Optional(DropUnfitting),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AssetSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    metadataTypeId: Nullable(Type.String()),
    volume: Volume,
    ...ObjectTrailFields,
  },
  { $id: 'Asset', title: 'Asset' },
);

type AssetBody = Static<typeof AssetSchema>;

export function toAssetBody(object: TwinObject<'asset'>, withMetadata: boolean): AssetBody {
  const f = object.fields;
  return {
    id: object.id,
    name: f.name,
    description: f.description,
    metadataTypeId: f.metadataTypeId,
    volume: f.volume,
    ...objectTrail(f, withMetadata),
  };
}

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const WRITE = `${CONTEXT} Needs edit on the site. 400 ValidationError naming the field: a box rotation whose norm is not within 1 ± 0.001 (e.g. body.volume.boxes.2.rotation; one within is stored normalised), or metadataTypeId (no such type in the organization, or one that does not apply to assets). 409 DraftNotOpen: the draft is published or discarded.`;

/** Assets: named volumes drawn on the scan (docs/twins.md). */
export const ASSET_ROUTES: TwinObjectRoutes<
  TwinObject<'asset'>,
  'assetId',
  typeof AssetSchema,
  typeof CreateAssetBody,
  typeof UpdateAssetBody
> = {
  segment: 'assets',
  idParam: 'assetId',
  names: { singular: 'Asset', plural: 'Assets' },
  tag: 'Assets',
  schemas: { answer: AssetSchema, create: CreateAssetBody, update: UpdateAssetBody },
  text: {
    list: {
      summary: 'List the assets of a twin',
      description: `${CONTEXT} Ordered by createdAt, then id. Needs read on the site.`,
    },
    get: { summary: 'Get an asset', description: `${CONTEXT} Needs read on the site.` },
    create: { summary: 'Draw an asset', description: WRITE },
    update: {
      summary: 'Change an asset',
      description: `Any non-empty subset of the fields; each replaces the stored one whole (a volume replaces all the boxes), null clears metadataTypeId. ${RETYPE_TEXT} ${WRITE}`,
    },
    delete: { summary: 'Delete an asset', description: `${CONTEXT} Needs edit on the site. 409 DraftNotOpen.` },
  },
  service: (services) => services.assets,
  toBody: toAssetBody,
};
