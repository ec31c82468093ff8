/**
 * The figures of a comparison (docs/comparisons.md, "Figures"): over the distances of the
 * compared points within `maxDistance`; the points beyond are counted apart. Percentiles are
 * nearest-rank; the histogram's bins share one width from 0 to the largest distance kept, each
 * holding its lower edge (the last its upper one too).
 */
export interface ComparisonStats {
  comparedPoints: number;
  beyondMaxDistance: number;
  /** Null when no point is within maxDistance. */
  mean: number | null;
  median: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  rms: number | null;
  /** The share (0 to 1) of the kept points whose distance is at most the tolerance. */
  withinTolerance: number | null;
}

export interface ComparisonHistogram {
  binWidth: number;
  bins: { from: number; to: number; count: number }[];
}

/** Bins of the histogram: enough to read a distribution, few enough for a chart. */
export const HISTOGRAM_BINS = 40;

/** The nearest-rank percentile `p` (0 < p <= 100) of sorted values. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/**
 * The figures from the kept distances (absolute values for signed methods are the caller's
 * choice), sorted here in place.
 */
export function comparisonFigures(
  kept: Float64Array | Float32Array,
  comparedPoints: number,
  tolerance: number,
): { stats: ComparisonStats; histogram: ComparisonHistogram } {
  const beyondMaxDistance = comparedPoints - kept.length;
  if (kept.length === 0) {
    return {
      stats: {
        comparedPoints,
        beyondMaxDistance,
        mean: null,
        median: null,
        p95: null,
        p99: null,
        max: null,
        rms: null,
        withinTolerance: null,
      },
      histogram: { binWidth: 0, bins: [] },
    };
  }
  kept.sort();
  let sum = 0;
  let squares = 0;
  let within = 0;
  for (let i = 0; i < kept.length; i += 1) {
    const d = kept[i]!;
    sum += d;
    squares += d * d;
    if (d <= tolerance) within += 1;
  }
  const max = kept[kept.length - 1]!;
  return {
    stats: {
      comparedPoints,
      beyondMaxDistance,
      mean: sum / kept.length,
      median: nearestRank(kept, 50),
      p95: nearestRank(kept, 95),
      p99: nearestRank(kept, 99),
      max,
      rms: Math.sqrt(squares / kept.length),
      withinTolerance: within / kept.length,
    },
    histogram: histogramOf(kept, max),
  };
}

/** Sorted distances into HISTOGRAM_BINS bins of one width from 0 to `max` (one bin of width 0 when all are 0). */
function histogramOf(sorted: Float64Array | Float32Array, max: number): ComparisonHistogram {
  if (max === 0) return { binWidth: 0, bins: [{ from: 0, to: 0, count: sorted.length }] };
  const binWidth = max / HISTOGRAM_BINS;
  const counts = new Array<number>(HISTOGRAM_BINS).fill(0);
  for (let i = 0; i < sorted.length; i += 1) {
    counts[Math.min(HISTOGRAM_BINS - 1, Math.floor(sorted[i]! / binWidth))]! += 1;
  }
  return {
    binWidth,
    bins: counts.map((count, bin) => ({ from: bin * binWidth, to: (bin + 1) * binWidth, count })),
  };
}
