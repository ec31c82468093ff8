import type { RegionApp } from '../region-app-type.js';
import { ASSET_ROUTES } from './kinds/asset.js';
import { MEASUREMENT_ROUTES } from './kinds/measurement.js';
import { MODEL_ASSET_ROUTES } from './kinds/model-asset.js';
import { POINT_OF_INTEREST_ROUTES } from './kinds/point-of-interest.js';
import { ZONE_ROUTES } from './kinds/zone.js';
import { registerTwinObjectRoutes } from './twin-object-routes.js';

/** Every kind of twin object's routes (one definition each, ./kinds/), in the order of the OpenAPI document. */
export default async function twinObjectKindRoutes(app: RegionApp) {
  registerTwinObjectRoutes(app, POINT_OF_INTEREST_ROUTES);
  registerTwinObjectRoutes(app, ASSET_ROUTES);
  registerTwinObjectRoutes(app, MODEL_ASSET_ROUTES);
  registerTwinObjectRoutes(app, ZONE_ROUTES);
  registerTwinObjectRoutes(app, MEASUREMENT_ROUTES);
}
