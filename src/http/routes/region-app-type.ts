import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { RegionServices } from '../../composition/region-services.js';
import type { Platform } from '../../platform.js';

/**
 * What a regional route module is given (http/region-app.ts builds it): Fastify with TypeBox's
 * type provider, the region's services and its public base address. A leaf: route modules import
 * this type, and region-app.ts imports the route modules, never the other way round.
 */
export type RegionApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
> & {
  platform: Platform;
  services: RegionServices;
  /** The region's public base address ({base_url}): what a 201's Location starts with. */
  baseUrl: string;
};
