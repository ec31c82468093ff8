import { Type } from '@sinclair/typebox';
import { validationError } from '../../../domain/errors.js';
import { processedFormatsText } from '../../../domain/uploads/file-formats.js';
import type { BundleExpansion } from '../../../services/uploads/bundle-service.js';
import { Name, ParentIdParams } from '../nodes/node-schemas.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { Etag, FileName, Size, UploadTargetFields } from './upload-schemas.js';

const EXPANSIONS: BundleExpansion[] = ['processings', 'components', 'thumbnail'];

const UploadedFile = Type.Object({
  id: Type.String(),
  name: Type.String(),
  size: Type.Integer(),
  state: Type.Union([Type.Literal('uploading'), Type.Literal('uploaded'), Type.Literal('expired')]),
  etag: Type.Union([Type.String(), Type.Null()]),
  format: Type.Union([Type.String(), Type.Null()]),
});
const Bundle = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    parentId: Type.Union([Type.String(), Type.Null()]),
    state: Type.String({ description: 'created, uploaded, processing, ready or failed' }),
    dbuPath: Type.String({ description: 'Where the bundle keeps its bytes' }),
    size: Type.Integer({ description: 'Bytes of the input component, 360-degree videos included' }),
    isProcessing: Type.Boolean(),
    isFailed: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    processings: Type.Optional(Type.Array(Type.Ref('Processing'))),
    components: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String(),
          role: Type.Union([Type.Literal('input'), Type.Literal('output')]),
          name: Type.Optional(Type.String()),
          format: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          size: Type.Optional(Type.Integer()),
          files: Type.Optional(Type.Array(UploadedFile)),
          tilesetUrl: Type.Optional(
            Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
              description:
                "An output's 3D Tiles tileset, absolute, when it is a processed point cloud (null for other outputs); GET it with the bearer token",
            }),
          ),
        }),
      ),
    ),
    thumbnail: Type.Optional(
      Type.Union([
        Type.Object({
          url: Type.String({ format: 'uri', description: "The image's absolute address; GET it with the bearer token" }),
          contentType: Type.String(),
          etag: Type.String(),
        }),
        Type.Null(),
      ]),
    ),
  },
  { $id: 'Bundle', title: 'Bundle' },
);
const Session = Type.Object(
  {
    id: Type.String(),
    bundleId: Type.String(),
    state: Type.Union([Type.Literal('open'), Type.Literal('finalized'), Type.Literal('expired')]),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
    finalizedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    files: Type.Array(UploadedFile),
  },
  { $id: 'UploadSession', title: 'UploadSession' },
);
const BundleParams = Type.Object({ bundleId: Type.String({ minLength: 1, maxLength: 64 }) });
const SessionParams = Type.Object({
  bundleId: Type.String({ minLength: 1, maxLength: 64 }),
  sessionId: Type.String({ minLength: 1, maxLength: 64 }),
});

export default async function bundleRoutes(app: RegionApp) {
  app.addSchema(Bundle);
  app.addSchema(Session);

  app.post(
    '/v1/nodes/:parentId/bundle',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Data bundles'],
        operationId: 'createBundle',
        summary: 'Create a data bundle',
        params: ParentIdParams,
        body: Type.Object({ name: Name }, { additionalProperties: false }),
        response: { 201: Type.Ref('Bundle'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = await app.services.bundles.create(request.principal, request.params.parentId, request.body.name);
      return created(reply, app.baseUrl, `/v1/nodes/${body.id}`, body);
    },
  );

  app.get(
    '/v1/bundles/:bundleId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Data bundles'],
        operationId: 'getBundle',
        summary: 'Fetch a data bundle',
        description: 'expand: a comma-separated list of processings, components and thumbnail.',
        params: BundleParams,
        querystring: Type.Object({ expand: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false }),
        response: { 200: Type.Ref('Bundle'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const asked = (request.query.expand ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      const unknown = asked.filter((name) => !EXPANSIONS.includes(name as BundleExpansion));
      if (unknown.length > 0) {
        throw validationError(`expand: unknown expansion ${unknown.join(', ')}; use ${EXPANSIONS.join(', ')}`);
      }
      return app.services.bundles.get(request.principal, request.params.bundleId, new Set(asked as BundleExpansion[]));
    },
  );

  app.post(
    '/v1/bundles/:bundleId/upload-sessions',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Data bundles'],
        operationId: 'createUploadSession',
        summary: 'Open an upload session for the bundle input',
        description:
          'The session expires after RDP_UPLOAD_EXPIRY_SECONDS; its files must be finalized before processing. 403 StorageLimitExceeded when the organization has no byte left; 409 BundleInputAlreadyExists: a bundle holds at most one input component.',
        params: BundleParams,
        response: { 201: Type.Ref('UploadSession'), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { bundleId } = request.params;
      const body = await app.services.bundles.openSession(request.principal, bundleId);
      return created(reply, app.baseUrl, `/v1/bundles/${bundleId}/upload-sessions/${body.id}`, body);
    },
  );

  app.get(
    '/v1/bundles/:bundleId/upload-sessions/:sessionId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Data bundles'],
        operationId: 'getUploadSession',
        summary: 'Get an upload session and its files',
        params: SessionParams,
        response: { 200: Type.Ref('UploadSession'), ...errors(401, 403, 404) },
      },
    },
    async (request) => app.services.bundles.getSession(request.principal, request.params.bundleId, request.params.sessionId),
  );

  app.post(
    '/v1/bundles/:bundleId/upload-sessions/:sessionId/files',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Data bundles'],
        operationId: 'addUploadSessionFile',
        summary: 'Add a file to an upload session',
        description:
          'Reserves the size against the storage quota and answers with signed upload addresses. 403 StorageLimitExceeded; 409 FileAlreadyExists for a second file of one name; 409 UploadSessionNotOpen.',
        params: SessionParams,
        body: Type.Object(
          { name: FileName, size: Size },
          { additionalProperties: false, examples: [{ name: 'sample-scan.laz', size: 450522 }] },
        ),
        response: { 201: Type.Object({ ...UploadedFile.properties, ...UploadTargetFields }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { bundleId, sessionId } = request.params;
      const body = await app.services.bundles.addFile(request.principal, bundleId, sessionId, request.body);
      // A session's file has no GET of its own: the session lists it.
      return created(reply, app.baseUrl, `/v1/bundles/${bundleId}/upload-sessions/${sessionId}`, body);
    },
  );

  app.post(
    '/v1/bundles/:bundleId/upload-sessions/:sessionId/finalize',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Data bundles'],
        operationId: 'finalizeUploadSession',
        summary: 'Finalize an upload session: its files become the bundle input',
        description: `Every file must be completely uploaded; ETags given in files[] are checked. 400 FileNotCompatible when a content is not what its name says, or when the input (the file processing reads: the largest of the session's point clouds, videos and meshes, so a mesh's textures and materials ride beside it) is not ${processedFormatsText()}: a refused finalize stores nothing, and the session can be finalized once the file is replaced; 400 MeshInputTooLarge when a mesh input is over 2 GiB with all its files (or the deployment's RDP_MESH_MAX_INPUT_BYTES) or it has over 20 million triangles (a PLY header's faces, a glTF's accessors, an OBJ's f lines); 409 BundleInputAlreadyExists; 409 UploadSessionNotOpen.`,
        params: SessionParams,
        body: Type.Union(
          [
            Type.Object(
              {
                files: Type.Optional(
                  Type.Array(Type.Object({ id: Type.String({ maxLength: 64 }), etag: Etag }, { additionalProperties: false }), {
                    maxItems: 1000,
                  }),
                ),
              },
              { additionalProperties: false },
            ),
            Type.Null(),
          ],
          { examples: [{ files: [{ id: '3b8f0c2e-91d4-4a6f-b7e2-5c0a9d1f4e68', etag: '9e107d9d372bb6826bd81d3542a419d6' }] }] },
        ),
        response: { 200: Type.Ref('Bundle'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const etags = new Map((request.body?.files ?? []).map((file) => [file.id, file.etag]));
      return app.services.bundles.finalizeSession(request.principal, request.params.bundleId, request.params.sessionId, etags);
    },
  );
}
