import { servesTileset, TILESET_FILE } from '../processing/tileset-files.js';

/**
 * The absolute addresses at which a regional API serves a node's content, built from its public
 * base address (config.regionUrls[region], the apiUrl of api-info). A client GETs them with its
 * bearer token as they are. Every view that names such an address (bundles, processings, twin
 * layers) builds it here.
 */
export function nodeThumbnailUrl(apiUrl: string, nodeId: string): string {
  return `${apiUrl}/v1/nodes/${encodeURIComponent(nodeId)}/thumbnail`;
}

/** Where a derivative's tiles are: the folder its tileset's relative content URIs resolve against. */
export function derivativeTilesUrl(apiUrl: string, derivativeId: string): string {
  return `${apiUrl}/v1/nodes/${encodeURIComponent(derivativeId)}/tiles/`;
}

/**
 * The tileset of a processed point cloud or mesh, or null for a node that has none (a video's
 * reconstruction; `format` is its stored object's) or is in the trash.
 */
export function derivativeTilesetUrl(
  apiUrl: string,
  derivative: { id: string; kind: string; format: string | null; trashed_at?: string | null } | undefined | null,
): string | null {
  if (!derivative || derivative.trashed_at || !servesTileset(derivative)) return null;
  return `${derivativeTilesUrl(apiUrl, derivative.id)}${TILESET_FILE}`;
}
