import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';

const Processing = Type.Object(
  {
    id: Type.String(),
    bundleId: Type.String(),
    state: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
    progress: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'How far the running job has come, from 0 to 1, as it last reported; null unless running (an extension)',
    }),
    cost: Type.Integer(),
    failureReason: Type.Union([Type.String(), Type.Null()]),
    derivativeId: Type.Union([Type.String(), Type.Null()], { description: 'The derivative node the processing made' }),
    tilesetUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description:
        "The absolute address of the derivative's 3D Tiles tileset when the processing made a point cloud (null otherwise, or while the derivative is in the trash); GET it with the bearer token",
    }),
    createdAt: Type.String({ format: 'date-time' }),
    startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'Processing', title: 'Processing' },
);
const BundleParams = Type.Object({ bundleId: Type.String({ minLength: 1, maxLength: 64 }) });
const PROCESSING_CODES =
  'ProcessingCostMismatch, NoInputDataFoundForProcessing, InsufficientProcessingCapacity, FailedToLaunchProcessing, ProcessingAlreadyRunning, IdempotencyKeyInUse';

export default async function processingRoutes(app: RegionApp) {
  app.addSchema(Processing);

  app.get(
    '/v1/bundles/:bundleId/processing/cost',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Processing'],
        operationId: 'getProcessingCost',
        summary: 'The current processing cost of the bundle input',
        description:
          'A deterministic function of the finalized input: a base by kind, one a file, and a rate per started 100 MiB, or for a mesh per started million triangles. 409 NoInputDataFoundForProcessing.',
        params: BundleParams,
        response: {
          200: Type.Object({
            bundleId: Type.String(),
            cost: Type.Integer(),
            unit: Type.String(),
            inputBytes: Type.Integer(),
            fileCount: Type.Integer(),
            format: Type.Union([Type.String(), Type.Null()]),
            triangles: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
              description:
                "A mesh input's triangles as finalize counted them, which price it; null for other inputs and where finalize could not tell (a mesh is then priced by its bytes)",
            }),
          }),
          ...errors(401, 403, 404, 409),
        },
      },
    },
    async (request) => app.services.processing.cost(request.principal, request.params.bundleId),
  );

  app.post(
    '/v1/bundles/:bundleId/processing',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Processing'],
        operationId: 'startProcessing',
        summary: 'Start processing the bundle input',
        description: `Submit the cost of the cost endpoint. With an Idempotency-Key header, a retried submission answers with the processing the first one started (never a second job or bill); while the first one's job is not queued yet, 409 IdempotencyKeyInUse (retry). 409 codes: ${PROCESSING_CODES}.`,
        params: BundleParams,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) }),
        body: Type.Object(
          { cost: Type.Integer({ minimum: 0, description: 'The cost GET …/processing/cost answered: the one accepted' }) },
          { additionalProperties: false, examples: [{ cost: 15 }] },
        ),
        response: { 202: Type.Ref('Processing'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const { replayed, processing } = await app.services.processing.submit(
        request.principal,
        request.params.bundleId,
        request.body.cost,
        key,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).send(processing);
    },
  );
}
