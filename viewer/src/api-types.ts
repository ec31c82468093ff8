import type { components, operations } from '../../packages/sdk/src/generated/openapi.js';

/**
 * The API's answers the viewer reads, as the SDK's types generated from openapi/openapi.json
 * declare them (type-only: nothing of the SDK is bundled). Coordinates are the twin's frame
 * (metres, Z up; docs/twins.md).
 */
type Schemas = components['schemas'];

/** The JSON body of an operation's 200 answer. */
type Answer<K extends keyof operations> = operations[K] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** The parts of GET /v1/twin/{ctx} the viewer uses; a plan is shown in the same shape (api.ts). */
export type Twin = Pick<Schemas['Twin'], 'id' | 'siteId' | 'name' | 'layers'>;
export type Layer = Twin['layers'][number];
/** GET /v1/planning/{ctx}/layouts. */
export type PlanLayouts = Answer<'listLayouts'>;
/** GET /v1/planning/{ctx}/layers: the project's bundle as a twin's layers. */
export type PlanLayers = Answer<'listPlanLayers'>;
export type PointOfInterest = Schemas['PointOfInterest'];
export type Zone = Schemas['Zone'];
export type ModelAsset = Schemas['ModelAsset'];

/** What the page hands the script (src/http/viewer/viewer-page.ts writes it). */
export type { ViewerConfig } from '../../src/domain/viewer/viewer-config.js';
