import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { LayerParams, LayerSchema } from './twin-layer-schemas.js';

const ACCESS = 'Needs edit on the site and read on the bundle.';

export default async function twinLayerRoutes(app: RegionApp) {
  const { twinLayers } = app.services;

  app.put(
    '/v1/twin/:contextId/layers/:bundleId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'linkTwinLayer',
        summary: "Show a processed data bundle as a layer of a site's twin",
        description: `contextId is a site id (a draft id is 404: layers are the live twin's, and drafts show them). Links the bundle to the twin and answers the layer: 201 when linked now, 200 when it already was (nothing changes). The layer shows the bundle's newest derivative that serves a tileset, also after a later processing. While linked, the bundle cannot be moved (409 DataBundleLinkedToTwin) unless its site moves with it. 404: the bundle is missing, in the trash, of another organization, not a data bundle, or not readable. 409 DataBundleNotInSite: the bundle's site is not this one (a bundle in a nested site belongs to that site's twin). 409 DataBundleHasNoTileset: no processing of the bundle made a derivative with a tileset (a point cloud or a mesh; a video's reconstruction has none): process it first. ${ACCESS}`,
        params: LayerParams,
        response: { 200: LayerSchema, 201: LayerSchema, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { contextId, bundleId } = request.params;
      const linked = await twinLayers.link(request.principal, contextId, bundleId);
      if (!linked.created) return reply.code(200).send(linked.layer);
      return created(reply, app.baseUrl, `/v1/twin/${contextId}/layers/${bundleId}`, linked.layer);
    },
  );

  app.delete(
    '/v1/twin/:contextId/layers/:bundleId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'unlinkTwinLayer',
        summary: "Remove a data bundle's layer from a site's twin",
        description:
          'contextId is a site id. 204, then 404: the bundle is not linked to this twin. The bundle itself is untouched (and may be moved again). Needs edit on the site.',
        params: LayerParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await twinLayers.unlink(request.principal, request.params.contextId, request.params.bundleId);
      return reply.code(204).send(null);
    },
  );
}
