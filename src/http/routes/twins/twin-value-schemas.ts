import { type TSchema, Type } from '@sinclair/typebox';
import { QUATERNION_NORM_TOLERANCE } from '../../../domain/twins/volume-rules.js';

/**
 * The value types every kind of twin object shares (docs/design/twins.md#value-types): every bound
 * here, so it is in the OpenAPI schema. JSON has no NaN or Infinity, so a number within bounds is
 * finite.
 */
export const COORDINATE_LIMIT = 1e7;
export const NAME_LENGTH = 255;
export const DESCRIPTION_LENGTH = 10_000;

const Coordinate = Type.Number({ minimum: -COORDINATE_LIMIT, maximum: COORDINATE_LIMIT });

export const Vector3 = Type.Object(
  { x: Coordinate, y: Coordinate, z: Coordinate },
  {
    additionalProperties: false,
    title: 'Vector3',
    description: `Metres in the site frame, Z up; each component within ±${COORDINATE_LIMIT}`,
  },
);

export const SIZE_LIMIT = 1e5;
export const MAX_BOXES = 64;

const Extent = Type.Number({ exclusiveMinimum: 0, maximum: SIZE_LIMIT });
const QuaternionComponent = Type.Number({ minimum: -1 - QUATERNION_NORM_TOLERANCE, maximum: 1 + QUATERNION_NORM_TOLERANCE });

// The norm check is a domain rule (src/domain/twins/zone-rules.ts): JSON Schema cannot say it.
export const Quaternion = Type.Object(
  { x: QuaternionComponent, y: QuaternionComponent, z: QuaternionComponent, w: QuaternionComponent },
  {
    additionalProperties: false,
    title: 'Quaternion',
    description: `A rotation; its norm must be within 1 ± ${QUATERNION_NORM_TOLERANCE} (400 otherwise); stored normalised`,
  },
);

export const OrientedBox = Type.Object(
  {
    center: Vector3,
    size: Type.Object(
      { x: Extent, y: Extent, z: Extent },
      { additionalProperties: false, description: `Metres along the box's axes, each > 0 and ≤ ${SIZE_LIMIT}` },
    ),
    rotation: Quaternion,
  },
  { additionalProperties: false, title: 'OrientedBox' },
);

export const Volume = Type.Object(
  { boxes: Type.Array(OrientedBox, { minItems: 1, maxItems: MAX_BOXES }) },
  { additionalProperties: false, title: 'Volume', description: `The union of 1 to ${MAX_BOXES} oriented boxes` },
);

export const Viewpoint = Type.Object(
  {
    position: Vector3,
    target: Vector3,
    fov: Type.Optional(Type.Number({ minimum: 1, maximum: 179, description: 'Vertical field of view in degrees' })),
  },
  { additionalProperties: false, title: 'Viewpoint' },
);

export const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', title: 'Color', description: 'Hex colour #rrggbb' });

export const Icon = Type.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'An icon name: 1 to 64 of a-z, 0-9 and -' });

// NUL characters are refused for every JSON body by http/plugins/json-body.ts.
export const ObjectName = Type.String({
  minLength: 1,
  maxLength: NAME_LENGTH,
  description: `1 to ${NAME_LENGTH} characters (code points), stored as given (never trimmed)`,
});

export const Description = Type.String({ maxLength: DESCRIPTION_LENGTH, description: `0 to ${DESCRIPTION_LENGTH} characters` });

export const ObjectId = Type.String({ minLength: 1, maxLength: 64 });

/** A PATCH's flag, not a field (docs/twins.md, "Free metadata"). */
export const DropUnfitting = Type.Boolean({
  description:
    'When the PATCH gives a metadataTypeId to an object without one: drop the free metadata properties that do not fit the type (instead of 400 naming them) and keep the others. Default false.',
});

/** What a PATCH's metadataTypeId does to the object's metadata, in every kind's PATCH description. */
export const RETYPE_TEXT =
  "A metadataTypeId given to an object without one keeps its free metadata properties that fit the type (declared by it, with a value it takes) and answers 400 ValidationError naming body.metadataTypeId and each one that does not, changing nothing, unless dropUnfitting is true (they are dropped). Another type, or null, clears the object's metadata; the same type keeps it.";

/** A field PATCH may clear with null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ContextIdParams = Type.Object({
  contextId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "A site id (its live twin) or a draft id (that draft's view)",
  }),
});

/** The fields every twin object's body ends with: its metadata on request, and who changed it when. */
export const ObjectTrailFields = {
  metadata: Type.Optional(
    Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
      description:
        'Only with includeMetadata=true: the metadata sections, as GET /v1/twin/{contextId}/object/{objectId}/metadata answers them',
    }),
  ),
  createdBy: Type.String(),
  updatedBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

/** What every kind's answer ends with (ObjectTrailFields): the metadata when asked for, who and when. */
export function objectTrail(
  fields: { metadata?: unknown; createdBy: string; updatedBy: string; createdAt: string; updatedAt: string },
  withMetadata: boolean,
) {
  return {
    ...(withMetadata ? { metadata: (fields.metadata ?? {}) as Record<string, Record<string, unknown>> } : {}),
    createdBy: fields.createdBy,
    updatedBy: fields.updatedBy,
    createdAt: fields.createdAt,
    updatedAt: fields.updatedAt,
  };
}

/** includeMetadata adds the object's metadata; includeMetaData is the earlier spelling. */
export const IncludeMetadata = {
  includeMetadata: Type.Optional(Type.Boolean({ description: "Add the object's metadata sections" })),
  includeMetaData: Type.Optional(Type.Boolean({ description: 'Earlier spelling of includeMetadata', deprecated: true })),
};
