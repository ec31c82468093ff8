import { type Static, Type } from '@sinclair/typebox';
import { COMPUTED_MEASUREMENT_FIELDS } from '../../../../domain/twins/kinds/measurement.js';
import { MAX_MEASUREMENT_POINTS, MEASUREMENT_KINDS, MEASUREMENT_RULES } from '../../../../domain/twins/measurement-values.js';
import type { TwinObject } from '../../../../domain/twins/twin-objects.js';
import type { TwinObjectRoutes } from '../twin-object-routes.js';
import {
  Color,
  DropUnfitting,
  Nullable,
  ObjectId,
  ObjectName,
  ObjectTrailFields,
  objectTrail,
  RETYPE_TEXT,
  Vector3,
} from '../twin-value-schemas.js';

/** A measurement's description is shorter than other objects' (docs/design/measurements.md). */
export const MEASUREMENT_DESCRIPTION_LENGTH = 2000;

/** A body of a thousand points at full precision fits (docs/design/measurements.md). */
export const MEASUREMENT_BODY_LIMIT = 256 * 1024;

const counts = MEASUREMENT_KINDS.map((kind) => {
  const { min, max, unit } = MEASUREMENT_RULES[kind];
  return `${kind}: ${min === max ? min : `${min} to ${max}`} points, ${unit}`;
}).join('; ');

const Kind = Type.Union(
  MEASUREMENT_KINDS.map((kind) => Type.Literal(kind)),
  {
    description: `What is measured: distance (|p1 − p0|), height (|z1 − z0|), polyline (the sum of its segments), area (of the polygon projected on its least-squares plane), angle (at p1). Points per kind: ${counts}`,
  },
);

const Points = Type.Array(Vector3, {
  minItems: 2,
  maxItems: MAX_MEASUREMENT_POINTS,
  description: `Twin frame, metres. How many the kind takes (${counts}); a wrong count, or a self-intersecting area polygon, is 400 naming points`,
});

const fields = {
  name: ObjectName,
  kind: Kind,
  points: Points,
  description: Type.String({
    maxLength: MEASUREMENT_DESCRIPTION_LENGTH,
    description: `0 to ${MEASUREMENT_DESCRIPTION_LENGTH} characters`,
  }),
  color: Nullable(Color),
  metadataTypeId: Nullable(ObjectId),
};

export const CreateMeasurementBody = Type.Object(
  {
    name: fields.name,
    kind: fields.kind,
    points: fields.points,
    description: Type.Optional(fields.description),
    color: Type.Optional(fields.color),
    metadataTypeId: Type.Optional(fields.metadataTypeId),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Pipe clearance',
        kind: 'distance',
        points: [
          { x: 14, y: 3.5, z: 1.2 },
          { x: 14, y: 3.5, z: 3.7 },
        ],
      },
    ],
  },
);

export const UpdateMeasurementBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    kind: Type.Optional(fields.kind),
    points: Type.Optional(fields.points),
    description: Type.Optional(fields.description),
    color: Type.Optional(fields.color),
    metadataTypeId: Type.Optional(fields.metadataTypeId),
    dropUnfitting: Type.Optional(DropUnfitting),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const MeasurementSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    kind: Kind,
    points: Type.Array(Vector3),
    value: Type.Number({ description: 'Computed by the platform from kind and points' }),
    unit: Type.Union([Type.Literal('m'), Type.Literal('m2'), Type.Literal('deg')]),
    description: Type.String(),
    color: Nullable(Type.String()),
    metadataTypeId: Nullable(Type.String()),
    ...ObjectTrailFields,
  },
  { $id: 'Measurement', title: 'Measurement' },
);

type MeasurementBody = Static<typeof MeasurementSchema>;

export function toMeasurementBody(object: TwinObject<'measurement'>, withMetadata: boolean): MeasurementBody {
  const f = object.fields;
  return {
    id: object.id,
    name: f.name,
    kind: f.kind,
    points: f.points,
    value: f.value,
    unit: f.unit,
    description: f.description,
    color: f.color,
    metadataTypeId: f.metadataTypeId,
    ...objectTrail(f, withMetadata),
  };
}

const CONTEXT = "contextId is a site id (the live twin) or a draft id (the draft's view: writes change only the draft).";
const WRITE = `${CONTEXT} Needs edit on the site. Bodies up to 256 KiB. The platform computes value and unit: a body with either is 400 naming it. 400 ValidationError naming points (a wrong count for the kind, a coordinate not finite, a self-intersecting area polygon, an angle's arm of no length) or metadataTypeId (no such type in the organization, or one that does not apply to measurements). 409 DraftNotOpen: the draft is published or discarded.`;

/** Measurements: distances, heights, lengths, areas and angles saved on a twin (docs/twins.md, "Measurements"). */
export const MEASUREMENT_ROUTES: TwinObjectRoutes<
  TwinObject<'measurement'>,
  'measurementId',
  typeof MeasurementSchema,
  typeof CreateMeasurementBody,
  typeof UpdateMeasurementBody
> = {
  segment: 'measurements',
  idParam: 'measurementId',
  names: { singular: 'Measurement', plural: 'Measurements' },
  tag: 'Measurements',
  schemas: { answer: MeasurementSchema, create: CreateMeasurementBody, update: UpdateMeasurementBody },
  text: {
    list: {
      summary: 'List the measurements of a twin',
      description: `${CONTEXT} Ordered by createdAt, then id. Needs read on the site.`,
    },
    get: { summary: 'Get a measurement', description: `${CONTEXT} Needs read on the site.` },
    create: { summary: 'Save a measurement', description: WRITE },
    update: {
      summary: 'Change a measurement',
      description: `Any non-empty subset of the fields; each replaces the stored one whole, null clears an optional one. A change of points or kind measures again (value, unit) and moves updatedAt. ${RETYPE_TEXT} ${WRITE}`,
    },
    delete: { summary: 'Delete a measurement', description: `${CONTEXT} Needs edit on the site. 409 DraftNotOpen.` },
  },
  service: (services) => services.measurements,
  toBody: toMeasurementBody,
  bodyLimit: MEASUREMENT_BODY_LIMIT,
  computed: { fields: COMPUTED_MEASUREMENT_FIELDS, why: 'computed by the platform from the points; do not send it' },
};
