import { Type } from '@sinclair/typebox';
import { noneMatch, quoteEtag } from '../../../domain/uploads/etag.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import { sendBlob } from '../uploads/send-stored-object.js';
import { ContextIdParams, ObjectId } from './twin-value-schemas.js';

const GLB = 'model/gltf-binary';

/**
 * Revalidated on each use, as the library's thumbnail: the answer depends on who asks (the twin's
 * read), so a cached copy is used only after the API said 304 to this token.
 */
const CACHE_CONTROL = 'private, max-age=0, must-revalidate';

const PreviewParams = Type.Object({ ...ContextIdParams.properties, modelAssetId: ObjectId });

const DESCRIPTION =
  "The preview GLB of the library model this model asset places (docs/design/meshes.md#model-previews), so that every viewer, an embedded one too, shows the model as itself. contextId as for the model asset's GET: a site id, a draft id or a planning layout id. Needs read on the site (or the layout's project) and the scope read:hierarchy only: no asset library scope or permission; an embed session's token of the twin reads it. Answers model/gltf-binary with an ETag and Cache-Control: private, max-age=0, must-revalidate; If-None-Match answers 304; Range answers 206 or 416. 404 naming why: the twin, layout or model asset is not the organization's or does not exist, or the library model has no preview (being made, failed, or ready without one: a format the platform does not preview, or too large).";

/** GET /v1/twin/{ctx}/model-assets/{modelAssetId}/preview (docs/twins.md, "Model assets"). */
export default async function modelAssetPreviewRoutes(app: RegionApp) {
  app.get(
    '/v1/twin/:contextId/model-assets/:modelAssetId/preview',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Model assets'],
        operationId: 'getModelAssetPreview',
        summary: "Get a placed model's preview GLB",
        description: DESCRIPTION,
        params: PreviewParams,
        response: {
          200: { description: 'The preview GLB', content: { [GLB]: { schema: {} } } },
          206: { description: 'The requested range', content: { [GLB]: { schema: {} } } },
          304: Type.Null({ description: 'Not Modified: the If-None-Match ETag is current' }),
          ...errors(400, 401, 403, 404, 416),
        },
      },
    },
    async (request, reply) => {
      const { contextId, modelAssetId } = request.params;
      const preview = await app.services.modelAssets.preview(request.principal, contextId, modelAssetId);
      const etag = quoteEtag(preview.etag);
      if (noneMatch(request.headers['if-none-match'], etag)) {
        // No payload at all: a serialized null would announce a body a 304 cannot have.
        reply.code(304).headers({ 'cache-control': CACHE_CONTROL, etag });
        return reply.send();
      }
      return sendBlob(app.platform.blobs, request, reply, {
        ...preview,
        contentType: GLB,
        headers: { 'cache-control': CACHE_CONTROL },
      });
    },
  );
}
