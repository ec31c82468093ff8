import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { DOWNLOAD_RESPONSES, sendStoredObject } from './send-stored-object.js';
import { Etag, FileName, Size, UploadTargetFields } from './upload-schemas.js';

const ObjectId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[^\\u0000]+$',
  description: 'The twin object the file hangs on',
});
const AttachmentFields = {
  id: Type.String(),
  contextId: Type.String(),
  objectId: Type.String(),
  name: Type.String(),
  size: Type.Integer(),
  state: Type.Union([Type.Literal('uploading'), Type.Literal('ready')]),
  etag: Type.Union([Type.String(), Type.Null()]),
  format: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
};
const Attachment = Type.Object(AttachmentFields, { $id: 'Attachment', title: 'Attachment' });
const ContextParams = Type.Object({ contextId: Type.String({ minLength: 1, maxLength: 64 }) });
const AttachmentParams = Type.Object({
  contextId: Type.String({ minLength: 1, maxLength: 64 }),
  attachmentId: Type.String({ minLength: 1, maxLength: 64 }),
});

export default async function attachmentRoutes(app: RegionApp) {
  app.addSchema(Attachment);

  app.post(
    '/v1/twin/:contextId/object/attachments',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Twin attachments'],
        operationId: 'initiateObjectAttachment',
        summary: 'Upload an attachment on a twin object',
        description:
          "contextId: a site id, or a draft id of it: either way the attachment is the site's (listed and downloadable through the site and each of its drafts, and usable in the metadata of their objects). Reserves the size and answers with signed upload addresses; finalize with the ETag. 409 StorageLimitExceeded; 409 FileAlreadyExists when the object has an attachment of that name; 409 DraftNotOpen through a draft that is published or discarded.",
        params: ContextParams,
        body: Type.Object({ objectId: ObjectId, name: FileName, size: Size }, { additionalProperties: false }),
        response: { 201: Type.Object({ ...AttachmentFields, ...UploadTargetFields }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { contextId } = request.params;
      const body = await app.services.attachments.initiate(request.principal, contextId, request.body);
      // The attachment has no GET of its own: its download is how it is read.
      return created(reply, app.baseUrl, `/v1/twin/${contextId}/object/attachments/${body.id}/download`, body);
    },
  );

  app.post(
    '/v1/twin/:contextId/object/attachments/:attachmentId/finalize',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Twin attachments'],
        operationId: 'finalizeObjectAttachment',
        summary: 'Finalize an attachment',
        description:
          '400 ValidationError for a missing, malformed or wrong ETag; 400 FileNotCompatible; 409 DraftNotOpen through a draft that is published or discarded.',
        params: AttachmentParams,
        body: Type.Object({ etag: Type.Optional(Etag) }, { additionalProperties: false }),
        response: { 200: Type.Ref('Attachment'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      app.services.attachments.finalize(
        request.principal,
        request.params.contextId,
        request.params.attachmentId,
        request.body.etag,
      ),
  );

  app.get(
    '/v1/twin/:contextId/object/:objectId/attachments',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Twin attachments'],
        operationId: 'listObjectAttachments',
        summary: "A twin object's attachments",
        params: Type.Object({ contextId: Type.String({ minLength: 1, maxLength: 64 }), objectId: ObjectId }),
        response: { 200: Type.Array(Type.Ref('Attachment')), ...errors(401, 403, 404) },
      },
    },
    async (request) => app.services.attachments.list(request.principal, request.params.contextId, request.params.objectId),
  );

  app.get(
    '/v1/twin/:contextId/object/attachments/:attachmentId/download',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Twin attachments'],
        operationId: 'downloadObjectAttachment',
        summary: 'Download an attachment',
        description: 'With HTTP Range support.',
        params: AttachmentParams,
        response: { ...DOWNLOAD_RESPONSES, ...errors(401, 403, 404, 416) },
      },
    },
    async (request, reply) =>
      sendStoredObject(
        app.platform.blobs,
        request,
        reply,
        await app.services.attachments.downloadable(request.principal, request.params.contextId, request.params.attachmentId),
      ),
  );
}
