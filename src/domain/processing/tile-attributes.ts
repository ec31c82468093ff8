/**
 * What a point cloud's tiles carry beside positions, as a twin layer names it
 * (docs/design/measurements.md, "Tile attributes"): rgb is COLOR_0, intensity `_INTENSITY`,
 * classification `_CLASSIFICATION`, distance `_DISTANCE` (a comparison's tiles, in metres:
 * docs/comparisons-viewer.md).
 */
export const TILE_ATTRIBUTES = ['rgb', 'intensity', 'classification', 'distance'] as const;
export type TileAttribute = (typeof TILE_ATTRIBUTES)[number];

/** What processings from before regional migration 0025 answer: their tiles never carried intensity or classification. */
export const EARLIER_TILE_ATTRIBUTES: TileAttribute[] = ['rgb'];

/** The tile attributes of a processed cloud's point attributes (position, color, intensity, classification, distance), in the listed order. */
export function tileAttributesOf(pointAttributes: readonly string[]): TileAttribute[] {
  const named = new Set(pointAttributes.map((attribute) => (attribute === 'color' ? 'rgb' : attribute)));
  return TILE_ATTRIBUTES.filter((attribute) => named.has(attribute));
}

/**
 * A processing row's stored attributes (JSON or null) as a layer answers them: null, from a
 * processing before migration 0025, is EARLIER_TILE_ATTRIBUTES; anything unknown is left out.
 */
export function storedTileAttributes(stored: string | null): TileAttribute[] {
  if (stored === null) return [...EARLIER_TILE_ATTRIBUTES];
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? tileAttributesOf(parsed.filter((value): value is string => typeof value === 'string')) : [];
}
