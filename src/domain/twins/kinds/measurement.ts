import { validationError } from '../../errors.js';
import { type MeasurementKind, type MeasurementUnit, measuredValue } from '../measurement-values.js';
import type { SharedFields, TwinObjectKind, Vector3 } from '../object-fields.js';

/** A measurement: points of the twin and the value the platform computed from them (docs/twins.md, "Measurements"). */
export type MeasurementFields = SharedFields & {
  kind: MeasurementKind;
  points: Vector3[];
  value: number;
  unit: MeasurementUnit;
  description: string;
  color: string | null;
};

/** A create's body: name, kind and points; never value or unit (the platform computes them). */
export type NewMeasurement = Pick<MeasurementFields, 'name' | 'kind' | 'points'> &
  Partial<Pick<MeasurementFields, 'description' | 'color' | 'metadataTypeId'>>;

/** The fields a client may not send: the platform computes them (docs/design/measurements.md#values). */
export const COMPUTED_MEASUREMENT_FIELDS = ['value', 'unit'] as const;

function refuseComputed(body: object): void {
  for (const field of COMPUTED_MEASUREMENT_FIELDS) {
    if (field in body) throw validationError(`body.${field}: computed by the platform from the points; do not send it`);
  }
}

export const MEASUREMENT: TwinObjectKind<'measurement', MeasurementFields, NewMeasurement> = {
  objectType: 'measurement',
  auditName: 'measurement',
  notFound: 'Measurement not found',
  plural: 'measurements',
  newFields: (input) => {
    refuseComputed(input);
    return {
      name: input.name,
      kind: input.kind,
      points: input.points,
      ...measuredValue(input.kind, input.points),
      description: input.description ?? '',
      color: input.color ?? null,
      metadata: {},
      metadataTypeId: input.metadataTypeId ?? null,
    };
  },
  changes: (patch) => {
    refuseComputed(patch);
    // Both given: refused before the write; one of them: checked against the object in patched.
    if (patch.kind !== undefined && patch.points !== undefined) measuredValue(patch.kind, patch.points);
    return patch;
  },
  // A PATCH of the points or the kind measures again, against the object as the write reads it.
  // The four go together: a draft's patch then replaces them whole, so a live change to the kind
  // or the points never shows through under the draft's value (docs/twins.md, "Measurements").
  patched: (current, changes) => {
    if (changes.kind === undefined && changes.points === undefined) return changes;
    const kind = changes.kind ?? current.kind;
    const points = changes.points ?? current.points;
    return { ...changes, kind, points, ...measuredValue(kind, points) };
  },
  locksTwin: () => false,
};
