import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { DOWNLOAD_RESPONSES, sendStoredObject } from './send-stored-object.js';
import { Etag, FileName, Size, UploadTargetFields } from './upload-schemas.js';

const SiteFileFields = {
  id: Type.String(),
  name: Type.String(),
  parentId: Type.String(),
  size: Type.Integer(),
  state: Type.Union([Type.Literal('uploading'), Type.Literal('ready')]),
  etag: Type.Union([Type.String(), Type.Null()]),
  format: Type.Union([Type.String(), Type.Null()], { description: 'The format the content shows (magic bytes)' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};
const SiteFile = Type.Object(SiteFileFields, { $id: 'SiteFile', title: 'SiteFile' });
const InitiatedSiteFile = Type.Object({ ...SiteFileFields, ...UploadTargetFields }, { additionalProperties: false });
const FileIdParams = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 64 }) });

export default async function siteFileRoutes(app: RegionApp) {
  app.addSchema(SiteFile);

  app.post(
    '/v1/site-files',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Site files'],
        operationId: 'initiateSiteFile',
        summary: 'Initiate a site file upload',
        description:
          'Reserves the size against the storage quota and answers with signed upload addresses (uploadUrl, or parts for large files). 403 StorageLimitExceeded; 409 FileAlreadyExists when the parent has a site file of that name or one is being uploaded; 409 DoesNotMeetHierarchyConstraints or MaxDepthExceeded when the parent cannot hold a site file.',
        body: Type.Object(
          { parentId: Type.String({ minLength: 1, maxLength: 64 }), name: FileName, size: Size },
          {
            additionalProperties: false,
            examples: [{ parentId: '8e2b6a10-4c7f-4d2a-b5e1-93f0c6d7a214', name: 'site-plan.pdf', size: 482113 }],
          },
        ),
        response: { 201: InitiatedSiteFile, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = await app.services.siteFiles.initiate(request.principal, request.body);
      return created(reply, app.baseUrl, `/v1/site-files/${body.id}`, body);
    },
  );

  app.post(
    '/v1/site-files/:fileId/finalize',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Site files'],
        operationId: 'finalizeSiteFile',
        summary: 'Finalize a site file',
        description:
          'Checks the upload (every byte there, the ETag the upload returned) and the real format of the content against the name; returns the full site file. 400 ValidationError for a missing, malformed or wrong ETag; 400 FileNotCompatible; 409 DoesNotMeetHierarchyConstraints or MaxDepthExceeded when the parent, moved since the initiation, can no longer hold it.',
        params: FileIdParams,
        body: Type.Object(
          { etag: Type.Optional(Etag) },
          { additionalProperties: false, examples: [{ etag: '5d41402abc4b2a76b9719d911017c592' }] },
        ),
        response: { 200: Type.Ref('SiteFile'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => app.services.siteFiles.finalize(request.principal, request.params.fileId, request.body.etag),
  );

  app.get(
    '/v1/site-files/:fileId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Site files'],
        operationId: 'getSiteFile',
        summary: 'Get a site file',
        params: FileIdParams,
        response: { 200: Type.Ref('SiteFile'), ...errors(401, 403, 404) },
      },
    },
    async (request) => app.services.siteFiles.get(request.principal, request.params.fileId),
  );

  app.get(
    '/v1/site-files/:fileId/download',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Site files'],
        operationId: 'downloadSiteFile',
        summary: 'Download a site file',
        description: 'The bytes, with HTTP Range support (206 Partial Content, 416 when the range starts past the end).',
        params: FileIdParams,
        response: { ...DOWNLOAD_RESPONSES, ...errors(401, 403, 404, 416) },
      },
    },
    async (request, reply) =>
      sendStoredObject(
        app.platform.blobs,
        request,
        reply,
        await app.services.siteFiles.downloadable(request.principal, request.params.fileId),
      ),
  );
}
