import { ok } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import type { Node, NodeDetail } from '../nodes/node-kinds.js';
import type { Twin } from './twin-api.js';

export type TwinLayer = Twin['layers'][number];

/** A bundle that a twin could show: under the site (not in a site nested in it) with a succeeded processing. */
export interface ProcessedBundle {
  id: string;
  name: string;
  /** A succeeded processing made a point cloud (one with a tileset of points): what a comparison takes. */
  pointCloud: boolean;
}

/** One browse page per folder: a site's folder holds far fewer children than this. */
const BROWSE_LIMIT = 1000;
/** The hierarchy is at most a dozen levels deep; the bound only guards against a cycle. */
const MAX_DEPTH = 32;

export const LAYER_KIND_WORDS: Record<TwinLayer['kind'], string> = {
  pointCloud: 'Point cloud',
  mesh: 'Mesh',
  comparison: 'Comparison (heat map)',
};

/**
 * What a layer is linked by (PUT/DELETE /v1/twin/{siteId}/layers/{id}): its bundle, or for a
 * comparison the comparison (its bundleId is the compared bundle, which may be a layer too).
 */
export function layerKey(layer: TwinLayer): string {
  return layer.kind === 'comparison' ? (layer.comparison?.comparisonId ?? layer.nodeId) : layer.bundleId;
}

/** Why a layer stays in its scan's own frame (docs/processing.md, "Georeferencing"), in words. */
const LOCAL_REASONS: Record<string, string> = {
  noCoordinateSystem: 'its file declares no coordinate system',
  unknownCoordinateSystem: 'its coordinate system is not one the platform knows',
  unsupportedCoordinateSystem: 'its coordinates are geographic or geocentric, which are not placed',
  outsideCoordinateSystem: 'its centre lies outside its coordinate system',
};

/** Where the layer sits: on the globe in its system, or in its own frame and why. */
export function describeFrame(frame: TwinLayer['frame']): string {
  if (frame.georeferenced) return `Georeferenced (${frame.crs ?? 'its coordinate system'})`;
  const why = (frame.reason && LOCAL_REASONS[frame.reason]) ?? frame.reason ?? 'the platform gave no reason';
  return `Not georeferenced: ${why}${frame.crs ? ` (${frame.crs})` : ''}`;
}

/** PUT /v1/twin/{siteId}/layers/{bundleId}: 201 linked now, 200 already a layer (nothing written). */
export function addLayer(session: ConsoleSession, siteId: string, bundleId: string): Promise<TwinLayer> {
  return ok(session.api.PUT('/v1/twin/{contextId}/layers/{bundleId}', { params: { path: { contextId: siteId, bundleId } } }));
}

export async function removeLayer(session: ConsoleSession, siteId: string, bundleId: string): Promise<void> {
  await ok(session.api.DELETE('/v1/twin/{contextId}/layers/{bundleId}', { params: { path: { contextId: siteId, bundleId } } }));
}

/** The nearest site above a node (its ancestors from the organization down), if any: the twin its bundles belong to. */
export function siteAbove(ancestors: NodeDetail[]): NodeDetail | undefined {
  return [...ancestors].reverse().find((ancestor) => ancestor.type === 'site');
}

/**
 * The site's data bundles that have a succeeded processing, found by browsing its tree (the
 * site and its folders; a nested site has a twin of its own, so its branch is left out), then
 * reading each bundle's processings. The platform refuses the rest (409), so they are not offered.
 */
export async function processedBundlesOf(session: ConsoleSession, siteId: string): Promise<ProcessedBundle[]> {
  const bundles: Node[] = [];
  let level = [siteId];
  for (let depth = 0; level.length > 0 && depth < MAX_DEPTH; depth++) {
    const children = await Promise.all(
      level.map((nodeId) =>
        ok(session.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId }, query: { limit: BROWSE_LIMIT } } })),
      ),
    );
    const nodes = children.flat() as Node[];
    bundles.push(...nodes.filter((node) => node.type === 'dataBundle'));
    level = nodes.filter((node) => node.type === 'folder').map((node) => node.id);
  }
  const read = await Promise.all(
    bundles.map((bundle) =>
      ok(
        session.api.GET('/v1/bundles/{bundleId}', {
          params: { path: { bundleId: bundle.id }, query: { expand: 'processings' } },
        }),
      ),
    ),
  );
  return read
    .filter((bundle) => bundle.processings?.some((processing) => processing.state === 'succeeded'))
    .map((bundle) => ({
      id: bundle.id,
      name: bundle.name,
      pointCloud: Boolean(
        bundle.processings?.some((processing) => processing.state === 'succeeded' && processing.tilesetUrl !== null),
      ),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
