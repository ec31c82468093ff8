import { TILESET_FILE } from '../processing/tileset-files.js';

/**
 * Where a comparison's files live and the addresses that serve them (docs/comparisons.md,
 * "Outputs"). No I/O.
 */

/** Every byte of a comparison: its tiles under `tiles/` and its CSV; removed as one prefix. */
export function comparisonBlobPrefix(orgId: string, comparisonId: string): string {
  return `orgs/${orgId}/comparisons/${comparisonId}/`;
}

/** The folder of the comparison's tileset (the tiler's tileset.json and tiles/*.glb below it). */
export function comparisonTilesPrefix(orgId: string, comparisonId: string): string {
  return `${comparisonBlobPrefix(orgId, comparisonId)}tiles/`;
}

export const DISTANCES_CSV = 'distances.csv';

export function comparisonCsvKey(orgId: string, comparisonId: string): string {
  return `${comparisonBlobPrefix(orgId, comparisonId)}${DISTANCES_CSV}`;
}

/** The tileset's address; its content URIs are relative, so its tiles resolve below it. */
export function comparisonTilesetUrl(apiUrl: string, siteId: string, comparisonId: string): string {
  return `${apiUrl}/v1/twin/${encodeURIComponent(siteId)}/comparisons/${encodeURIComponent(comparisonId)}/tiles/${TILESET_FILE}`;
}
