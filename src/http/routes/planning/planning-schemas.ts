import { type Static, Type } from '@sinclair/typebox';
import type { LayoutView } from '../../../services/planning/planning-service.js';
import { Name, NodeSchema } from '../nodes/node-schemas.js';
import { MAX_PAGING_VALUE } from '../paging.js';
import { LayerSchema } from '../twins/twin-layer-schemas.js';

export const MAX_LAYOUT_PAGE = 100;

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const BundleIdParams = Type.Object({ bundleId: Id });
export const PlanningContextParams = Type.Object({
  contextId: Type.String({ minLength: 1, maxLength: 64, description: 'A planning project id or a layout id' }),
});

export const CreateProjectBody = Type.Object(
  { name: Type.Optional(Name) },
  { additionalProperties: false, description: 'name: default the bundle\'s name and " plan" (cut to fit 255 characters)' },
);

export const LayoutSchema = Type.Object(
  {
    id: Type.String(),
    projectId: Type.String({ description: 'The planning project node' }),
    name: Type.String(),
    isDefault: Type.Boolean({ description: 'The layout made with the project' }),
    modelAssetCount: Type.Integer({ minimum: 0, description: 'Model assets placed in the layout' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Layout', title: 'Layout', additionalProperties: false },
);

export const ProjectSchema = Type.Object(
  {
    ...NodeSchema.properties,
    bundleId: Type.String({ description: 'The data bundle the project was made from (it is a dependant of the bundle)' }),
    defaultLayout: Type.Ref('Layout'),
  },
  { $id: 'PlanningProject', title: 'PlanningProject' },
);

export const LayoutPageQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: Math.floor(MAX_PAGING_VALUE / MAX_LAYOUT_PAGE), default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: MAX_LAYOUT_PAGE, default: 20 }),
  },
  { additionalProperties: false },
);

export const LayoutPage = Type.Object(
  {
    items: Type.Array(Type.Ref('Layout')),
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer({ description: 'How many layouts the context shows, on every page' }),
  },
  { additionalProperties: false },
);

export function toLayoutBody(view: LayoutView): Static<typeof LayoutSchema> {
  return {
    id: view.id,
    projectId: view.project_id,
    name: view.name,
    isDefault: view.is_default === 1,
    modelAssetCount: view.modelAssetCount,
    createdAt: view.created_at,
    updatedAt: view.updated_at,
  };
}

export const PlanLayers = Type.Object({
  projectId: Type.String(),
  siteId: Type.String(),
  bundleId: Type.Union([Type.String(), Type.Null()]),
  layers: Type.Array(LayerSchema, {
    maxItems: 1,
    description:
      "The point cloud of the bundle the project was made from, as a twin's layers show it; none while it serves no tileset",
  }),
});
