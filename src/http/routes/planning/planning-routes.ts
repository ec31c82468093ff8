import { Type } from '@sinclair/typebox';
import { toNodeBody } from '../nodes/node-schemas.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  BundleIdParams,
  CreateProjectBody,
  LayoutPage,
  LayoutPageQuery,
  LayoutSchema,
  PlanLayers,
  PlanningContextParams,
  ProjectSchema,
  toLayoutBody,
} from './planning-schemas.js';

export default async function planningRoutes(app: RegionApp) {
  app.addSchema(LayoutSchema);
  app.addSchema(ProjectSchema);
  const { planning, twinLayers } = app.services;

  app.post(
    '/v1/bundles/:bundleId/project',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Planning'],
        operationId: 'createProjectFromBundle',
        summary: 'Create a planning project from a data bundle',
        description:
          'Makes a planning-project node beside the bundle (under its parent), linked to it as a dependant (the bundle then cannot be deleted alone: 409 NodeHasBundleDependants; a move takes the project along), with one default layout. Needs read on the bundle and edit on its parent, as creating a node there. 404: the bundle is missing, in the trash, of another organization, or not a data bundle. 403 Forbidden resource: the caller cannot reach the bundle, or lacks edit on its parent. 409 BundleNotReady: its state is not ready (upload and process its input first); DoesNotMeetHierarchyConstraints or MaxDepthExceeded as for any new node.',
        params: BundleIdParams,
        body: CreateProjectBody,
        response: { 201: Type.Ref('PlanningProject'), ...errors(400, 401, 403, 404, 409) },
      },
      // No body at all is the empty one: every field has a default.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const made = await planning.createProject(request.principal, request.params.bundleId, request.body.name);
      const body = { ...toNodeBody(made.project), bundleId: made.bundleId, defaultLayout: toLayoutBody(made.defaultLayout) };
      return created(reply, app.baseUrl, `/v1/nodes/${body.id}`, body);
    },
  );

  app.get(
    '/v1/planning/:contextId/layouts',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Planning'],
        operationId: 'listLayouts',
        summary: "List a planning project's layouts",
        description:
          'contextId is a planning project id (its layouts, oldest first: the default one is the first) or a layout id (that layout alone). Needs read on the project node. 404: no project or layout of the organization with this id, or its project is in the trash. 403 Forbidden resource: no read on the project.',
        params: PlanningContextParams,
        querystring: LayoutPageQuery,
        response: { 200: LayoutPage, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { page, limit } = request.query;
      const listed = await planning.listLayouts(request.principal, request.params.contextId, page, limit);
      return { ...listed, items: listed.items.map(toLayoutBody) };
    },
  );

  app.get(
    '/v1/planning/:contextId/layers',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Planning'],
        operationId: 'listPlanLayers',
        summary: "A plan's 3D layers",
        description:
          "contextId is a planning project id or a layout id. The layers the plan is drawn on: the point cloud of the bundle the project was made from, in the shape of a twin's layers (tilesetUrl, boundingBox, frame), for the viewer. Needs read on the project node. 404 and 403 as for the layouts.",
        params: PlanningContextParams,
        response: { 200: PlanLayers, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { project, bundleId } = await planning.planOf(request.principal, request.params.contextId);
      const layers = bundleId ? await twinLayers.ofBundles([bundleId]) : [];
      return { projectId: project.id, siteId: project.site_id as string, bundleId: bundleId ?? null, layers };
    },
  );
}
