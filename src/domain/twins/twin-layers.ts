import type { ComparisonMethod } from '../comparisons/comparison-lifecycle.js';
import { comparisonTilesetUrl } from '../comparisons/comparison-outputs.js';
import { derivativeTilesetUrl } from '../nodes/content-urls.js';
import { storedTileAttributes, type TileAttribute } from '../processing/tile-attributes.js';
import { servesTileset } from '../processing/tileset-files.js';
import type { ComparisonRow } from '../records/regional.js';

/**
 * A twin's layers (docs/twins.md, "Layers"): a bundle linked to a site's twin shows the newest
 * tileset its processings made. Plain functions over rows already read.
 */

export interface Vector3 {
  x: number;
  y: number;
  z: number;
}

/** A succeeded processing of a linked bundle with its derivative node (not in the trash). */
export interface LayerCandidate {
  bundleId: string;
  derivativeId: string;
  derivativeKind: string;
  /** The derivative's stored format: a mesh node serves a tileset only when it is '3d-tiles' (not a video's reconstruction). */
  derivativeFormat: string | null;
  /** processings.georeference and processings.bounds, JSON or null. */
  georeference: string | null;
  bounds: string | null;
  /** processings.attributes: JSON of the tiles' attributes, or null (before regional migration 0025). */
  attributes: string | null;
}

export interface LayerFrame {
  georeferenced: boolean;
  crs: string | null;
  /** Why a layer stays in its local frame (docs/processing.md, "Georeferencing"); null when placed. */
  reason: string | null;
  /** The twin point of the tileset's (0, 0, 0): a tileset point t is the twin point origin + t. */
  origin: Vector3;
}

/** What a layer's points carry beside positions: the tile attributes, and a comparison's distance (`_DISTANCE`). */
export type LayerAttribute = TileAttribute | 'distance';

/** What a comparison layer shows (docs/comparisons.md, "Outputs"). */
export interface LayerComparison {
  comparisonId: string;
  method: ComparisonMethod;
  tolerance: number;
  maxDistance: number;
}

export interface LayerView {
  /** The linked bundle; for a comparison, its compared bundle. */
  bundleId: string;
  /** The derivative node serving the tileset; for a comparison, the comparison's id. */
  nodeId: string;
  kind: 'pointCloud' | 'mesh' | 'comparison';
  tilesetUrl: string;
  boundingBox: { min: Vector3; max: Vector3 } | null;
  frame: LayerFrame;
  /** What the tiles carry beside positions (docs/design/measurements.md, "Tile attributes"). */
  attributes: LayerAttribute[];
  /** Null but for a comparison's layer. */
  comparison: LayerComparison | null;
}

const ZERO: Vector3 = { x: 0, y: 0, z: 0 };

function vector(values: unknown): Vector3 | undefined {
  if (!Array.isArray(values) || values.length !== 3 || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    return undefined;
  }
  const [x, y, z] = values as number[];
  return { x: x as number, y: y as number, z: z as number };
}

/**
 * Where a layer sits in the twin. Twin coordinates are the scan file's own coordinates (for a
 * georeferenced cloud its CRS's grid, e.g. UTM easting, northing and height), so layers of one
 * site in one CRS, or registered in one scanner frame, share the twin's frame whatever their
 * tileset origins. A georeferenced tileset is relative to its cloud's centre (`origin`); a
 * local one is in the file's coordinates as they are.
 */
export function layerFrame(georeference: string | null): LayerFrame {
  const parsed = georeference === null ? undefined : (JSON.parse(georeference) as Record<string, unknown>);
  if (!parsed) return { georeferenced: false, crs: null, reason: null, origin: ZERO };
  const crs = typeof parsed.crs === 'string' ? parsed.crs : null;
  if (parsed.georeferenced === true) return { georeferenced: true, crs, reason: null, origin: vector(parsed.origin) ?? ZERO };
  return { georeferenced: false, crs, reason: typeof parsed.reason === 'string' ? parsed.reason : null, origin: ZERO };
}

/** The points' extent in twin coordinates (the file's), or null for a processing that did not record it. */
export function layerBoundingBox(bounds: string | null): LayerView['boundingBox'] {
  if (bounds === null) return null;
  const parsed = JSON.parse(bounds) as { min?: unknown; max?: unknown };
  const min = vector(parsed.min);
  const max = vector(parsed.max);
  return min && max ? { min, max } : null;
}

/**
 * The layer each bundle shows: of its candidates (newest first), the first whose derivative
 * serves a tileset. A bundle whose derivatives serve none shows nothing, so a layer never
 * points to a tileset that is not there.
 */
export function layersOf(bundleIds: string[], newestFirst: LayerCandidate[], apiUrl: string): LayerView[] {
  const chosen = new Map<string, LayerCandidate>();
  for (const candidate of newestFirst) {
    const serves = servesTileset({ kind: candidate.derivativeKind, format: candidate.derivativeFormat });
    if (!chosen.has(candidate.bundleId) && serves) chosen.set(candidate.bundleId, candidate);
  }
  return bundleIds.flatMap((bundleId) => {
    const candidate = chosen.get(bundleId);
    if (!candidate) return [];
    const tilesetUrl = derivativeTilesetUrl(apiUrl, {
      id: candidate.derivativeId,
      kind: candidate.derivativeKind,
      format: candidate.derivativeFormat,
    });
    if (tilesetUrl === null) return [];
    return [
      {
        bundleId,
        nodeId: candidate.derivativeId,
        kind: candidate.derivativeKind === 'mesh' ? ('mesh' as const) : ('pointCloud' as const),
        tilesetUrl,
        boundingBox: layerBoundingBox(candidate.bounds),
        frame: layerFrame(candidate.georeference),
        // A mesh's tiles are textured: the point attributes do not apply.
        attributes: candidate.derivativeKind === 'mesh' ? [] : storedTileAttributes(candidate.attributes),
        comparison: null,
      },
    ];
  });
}

/**
 * A ready comparison as a twin layer: the compared scan's tiles, whose points carry their
 * distance (docs/comparisons.md, "Outputs"), served under the comparison's address.
 */
export function comparisonLayerOf(row: ComparisonRow, apiUrl: string): LayerView {
  const stored: unknown = row.attributes === null ? [] : JSON.parse(row.attributes);
  const named = Array.isArray(stored) ? stored.filter((value): value is string => typeof value === 'string') : [];
  // A set: the tiler may name the distance among the tile attributes itself.
  const attributes = [...new Set<LayerAttribute>([...storedTileAttributes(JSON.stringify(named)), 'distance'])];
  return {
    bundleId: row.compared_bundle_id,
    nodeId: row.id,
    kind: 'comparison',
    tilesetUrl: comparisonTilesetUrl(apiUrl, row.site_id, row.id),
    boundingBox: layerBoundingBox(row.bounds),
    frame: layerFrame(row.georeference),
    attributes,
    comparison: { comparisonId: row.id, method: row.method, tolerance: row.tolerance, maxDistance: row.max_distance },
  };
}
