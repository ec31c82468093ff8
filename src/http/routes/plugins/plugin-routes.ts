import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';

const PluginSchema = Type.Object(
  {
    id: Type.String(),
    key: Type.String({ description: 'Stable name of the extension, unique in the deployment' }),
    name: Type.String(),
    description: Type.String(),
    version: Type.String(),
    enabled: Type.Boolean(),
    entryUrl: Type.String({ description: 'The script the viewer loads: an https address or a path on this server' }),
  },
  { $id: 'Plugin', title: 'Plugin', additionalProperties: false },
);

export default async function pluginRoutes(app: RegionApp) {
  app.addSchema(PluginSchema);
  // Read once at start (RDP_PLUGINS_FILE, docs/planning.md "Plugins"): every answer is the same.
  const items = app.platform.config.plugins.map((plugin) => ({ ...plugin }));

  app.get(
    '/v1/plugins',
    {
      config: { scope: 'read:basic' },
      schema: {
        tags: ['Plugins'],
        operationId: 'listPlugins',
        summary: 'List the viewer extensions installed in the deployment',
        description:
          "From the deployment's configuration (RDP_PLUGINS_FILE), in the order it lists them, the disabled ones too (enabled false); none configured: an empty list. Read-only over the API. Any authenticated caller of the organization.",
        response: {
          200: Type.Object({ items: Type.Array(Type.Ref('Plugin')) }, { additionalProperties: false }),
          ...errors(401, 403),
        },
      },
    },
    async () => ({ items }),
  );
}
