import type { Layer } from './api-types.js';

/**
 * A comparison layer's heat map (docs/comparisons-viewer.md): its points coloured by the tiles'
 * `_DISTANCE` on a ramp centred on the comparison's tolerance. C2C distances (0 and up): green up
 * to the tolerance, through yellow to red at maxDistance. M3C2's signed distances: blue at
 * −maxDistance, white within ±tolerance, red at +maxDistance. Grey: beyond maxDistance (C2C's −1)
 * or not computable (the tiler's sentinel for NaN).
 */
export interface Comparison {
  comparisonId: string;
  method: 'c2c' | 'm3c2';
  /** Metres. */
  tolerance: number;
  /** Metres. */
  maxDistance: number;
}

/** The ramps' colours (sRGB), shared by the shader (point-style.ts) and the legend. */
export const HEAT_COLORS = {
  within: '#1a9850',
  middle: '#fee08b',
  far: '#d73027',
  below: '#4575b4',
  centre: '#f7f7f7',
  beyond: '#7a7a7a',
} as const;

/**
 * What the tiler writes for a distance not computable (a NaN in the distances PLY): every value
 * below this is one (docs/comparisons-viewer.md; the tiler's DISTANCE_NOT_COMPUTABLE is −1e30).
 */
export const NOT_COMPUTABLE_BELOW = -1e29;

/**
 * A layer's comparison, or null for a layer of another kind (or one whose comparison is not
 * usable: a tolerance above 0 and at most maxDistance, finite numbers). Read from the twin's answer
 * (`kind: 'comparison'` and `comparison: {comparisonId, method, tolerance, maxDistance}`).
 */
export function comparisonOf(layer: Layer): Comparison | null {
  const { kind, comparison } = layer as { kind: string; comparison?: unknown };
  if (kind !== 'comparison' || typeof comparison !== 'object' || comparison === null) return null;
  const { comparisonId, method, tolerance, maxDistance } = comparison as Record<string, unknown>;
  if (typeof tolerance !== 'number' || typeof maxDistance !== 'number') return null;
  if (!Number.isFinite(tolerance) || !Number.isFinite(maxDistance) || tolerance <= 0 || tolerance > maxDistance) return null;
  return {
    comparisonId: String(comparisonId),
    method: method === 'm3c2' ? 'm3c2' : 'c2c',
    tolerance,
    maxDistance,
  };
}

/**
 * The distance a pick reports for a `_DISTANCE` value: null where the point is grey (beyond
 * maxDistance or not computable), else the metres as the tile holds them (signed for M3C2).
 */
export function pickedDistance(value: number, comparison: Comparison): number | null {
  if (!Number.isFinite(value) || value < NOT_COMPUTABLE_BELOW) return null;
  if (comparison.method === 'm3c2') return Math.abs(value) > comparison.maxDistance ? null : value;
  return value < 0 || value > comparison.maxDistance ? null : value;
}

/** A tick's value in metres as the legend writes it: at most four significant digits, no trailing zeros. */
export function formatMetres(value: number): string {
  return String(Number(value.toPrecision(4)));
}

/**
 * The legend's bar, from its left end to its right: a CSS gradient matching the shader's ramp,
 * and the ticks (value, place from 0 to 1).
 */
export function rampOf(comparison: Comparison): { gradient: string; ticks: { value: number; at: number }[] } {
  const { tolerance, maxDistance } = comparison;
  const percent = (at: number) => `${(at * 100).toFixed(2)}%`;
  if (comparison.method === 'm3c2') {
    const place = (value: number) => (value + maxDistance) / (2 * maxDistance);
    const { below, centre, far } = HEAT_COLORS;
    return {
      gradient: `linear-gradient(to right, ${below} 0%, ${centre} ${percent(place(-tolerance))}, ${centre} ${percent(place(tolerance))}, ${far} 100%)`,
      ticks: [-maxDistance, -tolerance, 0, tolerance, maxDistance].map((value) => ({ value, at: place(value) })),
    };
  }
  const place = (value: number) => value / maxDistance;
  const { within, middle, far } = HEAT_COLORS;
  return {
    gradient: `linear-gradient(to right, ${within} 0%, ${within} ${percent(place(tolerance))}, ${middle} ${percent(place((tolerance + maxDistance) / 2))}, ${far} 100%)`,
    ticks: [0, tolerance, maxDistance].map((value) => ({ value, at: place(value) })),
  };
}
