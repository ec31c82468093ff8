import { Type } from '@sinclair/typebox';
import { COMPARISON_METHODS, DEFAULT_TOLERANCE, MAX_DISTANCE } from '../../../domain/comparisons/comparison-lifecycle.js';
import { ContextIdParams } from '../twins/twin-value-schemas.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Metres = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });
const Method = Type.Union(
  COMPARISON_METHODS.map((method) => Type.Literal(method)),
  { description: 'c2c: the nearest reference point; m3c2: along the local normal (Lague, Brodu and Leroux, 2013)' },
);

export const SiteParams = Type.Object({
  contextId: { ...ContextIdParams.properties.contextId, description: 'A site id: comparisons belong to the site' },
});

export const ComparisonParams = Type.Object({
  ...SiteParams.properties,
  comparisonId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const CostQuery = Type.Object({ referenceBundleId: Id, comparedBundleId: Id }, { additionalProperties: false });

export const CostSchema = Type.Object({
  cost: Type.Integer({ description: 'Credits: a base of 2 plus 1 per started million points of both scans' }),
  unit: Type.String(),
});

export const CreateComparisonBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    referenceBundleId: { ...Id, description: 'A processed point-cloud bundle of the site: what distances are measured to' },
    comparedBundleId: {
      ...Id,
      description: 'Another processed point-cloud bundle of the site: every one of its points gets a distance',
    },
    method: Type.Optional(Method),
    maxDistance: Type.Optional(
      Type.Number({
        minimum: MAX_DISTANCE.min,
        maximum: MAX_DISTANCE.max,
        description: `Metres; farther points are counted apart (default ${MAX_DISTANCE.default})`,
      }),
    ),
    tolerance: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_DISTANCE.max,
        description: `Metres, at most maxDistance: withinTolerance is the share of points this close (default ${DEFAULT_TOLERANCE})`,
      }),
    ),
    cost: Type.Integer({ minimum: 0, description: 'The cost GET …/comparisons/cost answered: the one accepted' }),
  },
  {
    additionalProperties: false,
    examples: [
      { name: 'Slab settlement', referenceBundleId: 'b1', comparedBundleId: 'b2', maxDistance: 1, tolerance: 0.05, cost: 3 },
    ],
  },
);

const Stats = Type.Object(
  {
    comparedPoints: Type.Integer({ description: 'Every point of the compared scan, those beyond maxDistance too' }),
    beyondMaxDistance: Type.Integer(),
    mean: Metres('Over the points within maxDistance; null when none'),
    median: Metres('Nearest-rank'),
    p95: Metres('Nearest-rank'),
    p99: Metres('Nearest-rank'),
    max: Metres('The largest distance kept'),
    rms: Metres('Root mean square'),
    withinTolerance: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'The share of the points within maxDistance whose distance is at most the tolerance',
    }),
  },
  { title: 'ComparisonStats' },
);

const Histogram = Type.Object(
  {
    binWidth: Type.Number(),
    bins: Type.Array(Type.Object({ from: Type.Number(), to: Type.Number(), count: Type.Integer() }), {
      description: 'From 0 to the largest distance kept, each bin holding its lower edge (the last its upper one too)',
    }),
  },
  { title: 'ComparisonHistogram' },
);

const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const ComparisonSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    referenceBundleId: Type.String(),
    comparedBundleId: Type.String(),
    method: Method,
    maxDistance: Type.Number(),
    tolerance: Type.Number(),
    cost: Type.Integer(),
    state: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('ready'), Type.Literal('failed')]),
    progress: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: "0 while queued, the job's last report while running, 1 when ready; null when failed",
    }),
    failureReason: Type.Union([Type.String(), Type.Null()]),
    stats: Type.Union([Stats, Type.Null()], { description: 'Null until ready' }),
    histogram: Type.Union([Histogram, Type.Null()], { description: 'Null until ready' }),
    tilesetUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description:
        "The compared scan's 3D Tiles, its points carrying _DISTANCE (float metres, -1 beyond maxDistance); GET it with the bearer token. Null until ready",
    }),
    downloadUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description: 'A signed, expiring link (an hour) to the CSV x,y,z,distance, one line per compared point. Null until ready',
    }),
    createdBy: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    startedAt: NullableTime,
    finishedAt: NullableTime,
  },
  { $id: 'Comparison', title: 'Comparison' },
);
