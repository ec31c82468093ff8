import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { SCOPES } from '../domain/access/scopes.js';
import type { Region } from '../domain/regions.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import type { Platform } from '../platform.js';
import { NodeService } from '../services/node-service.js';
import { NodeTreeService } from '../services/node-tree-service.js';
import { registerAuthentication, SECURITY_SCHEME } from './plugins/authenticate.js';
import { ErrorSchema, NodeSchema } from './routes/nodes/node-schemas.js';
import readRoutes from './routes/nodes/read-routes.js';
import thumbnailRoutes from './routes/nodes/thumbnail-routes.js';
import writeRoutes from './routes/nodes/write-routes.js';

export interface RegionServices {
  nodes: NodeService;
  tree: NodeTreeService;
}

export type RegionApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
> & { platform: Platform; services: RegionServices };

export const TAGS = [
  { name: 'Nodes', description: 'The node tree: organization, divisions, sites, folders and data items' },
  { name: 'Trash', description: 'Soft delete, restore, permanent delete; the trash is purged after 30 days' },
];

export function regionServices(platform: Platform, region: Region): RegionServices {
  const context = platform.regions[region];
  const nodes = new NodeService(platform, context);
  return { nodes, tree: new NodeTreeService(platform, context, nodes) };
}

/** One regional resource API, mounted under its service path prefix (e.g. /eu/reality). */
export async function regionApp(
  instance: FastifyInstance,
  options: { platform: Platform; region: Region; verifier: AccessTokenVerifier; prefix: string },
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>() as RegionApp;
  const { platform, region, prefix } = options;
  app.decorate('platform', platform);
  app.decorate('services', regionServices(platform, region));
  app.addSchema(NodeSchema);
  app.addSchema(ErrorSchema);
  registerAuthentication(app, options.verifier);

  const authUrl = `${platform.config.publicUrl}/auth`;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `Reality Data Platform API (${region})`,
        version: '1.0.0',
        description: `Regional resource API. Use the apiUrl of GET ${authUrl}/oauth/api-info as the base address.`,
      },
      servers: [{ url: platform.config.regionUrls[region] }],
      tags: TAGS,
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'oauth2',
            flows: {
              clientCredentials: { tokenUrl: `${authUrl}/oauth/token`, scopes: { ...SCOPES } },
              authorizationCode: {
                authorizationUrl: `${authUrl}/consent`,
                tokenUrl: `${authUrl}/oauth/token`,
                scopes: { ...SCOPES },
              },
            },
          },
        },
      },
    },
    // Path keys do not repeat the service prefix: it is part of the server address.
    transform: ({ schema, url }) => ({ schema, url: url.startsWith(prefix) ? url.slice(prefix.length) || '/' : url }),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  await readRoutes(app);
  await writeRoutes(app);
  await thumbnailRoutes(app);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
