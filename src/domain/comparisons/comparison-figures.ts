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

/** The percentiles the stats give, nearest-rank. */
export const PERCENTILES = [50, 95, 99] as const;

/** The 1-based rank of the nearest-rank percentile `p` among `count` sorted values. */
export function nearestRankOf(count: number, p: number): number {
  return Math.max(1, Math.ceil((p / 100) * count));
}

/**
 * The sums the stats need, added one distance at a time in any order, so that the distances
 * never have to be held together (docs/comparisons.md, "Figures").
 */
export class DistanceSummary {
  count = 0;
  sum = 0;
  squares = 0;
  within = 0;
  max = -Infinity;

  constructor(readonly tolerance: number) {}

  add(d: number): void {
    this.count += 1;
    this.sum += d;
    this.squares += d * d;
    if (d <= this.tolerance) this.within += 1;
    if (d > this.max) this.max = d;
  }
}

/** The histogram bin of a distance among HISTOGRAM_BINS bins from 0 to `max` (`max` > 0). */
export function histogramBinOf(d: number, max: number): number {
  return Math.min(HISTOGRAM_BINS - 1, Math.floor(d / (max / HISTOGRAM_BINS)));
}

/**
 * The figures from a summary, the nearest-rank values for PERCENTILES (in that order) and the
 * counts of the HISTOGRAM_BINS bins (binned by histogramBinOf).
 */
export function figuresOf(
  summary: DistanceSummary,
  comparedPoints: number,
  percentiles: readonly number[],
  binCounts: readonly number[],
): { stats: ComparisonStats; histogram: ComparisonHistogram } {
  const beyondMaxDistance = comparedPoints - summary.count;
  if (summary.count === 0) {
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
  const { max } = summary;
  const binWidth = max / HISTOGRAM_BINS;
  return {
    stats: {
      comparedPoints,
      beyondMaxDistance,
      mean: summary.sum / summary.count,
      median: percentiles[0]!,
      p95: percentiles[1]!,
      p99: percentiles[2]!,
      max,
      rms: Math.sqrt(summary.squares / summary.count),
      withinTolerance: summary.within / summary.count,
    },
    histogram:
      max === 0
        ? { binWidth: 0, bins: [{ from: 0, to: 0, count: summary.count }] }
        : { binWidth, bins: binCounts.map((count, bin) => ({ from: bin * binWidth, to: (bin + 1) * binWidth, count })) },
  };
}

/**
 * The figures from the kept distances held in memory (absolute values for signed methods are
 * the caller's choice), sorted here in place. The C2C engine streams them instead (figuresOf).
 */
export function comparisonFigures(
  kept: Float64Array | Float32Array,
  comparedPoints: number,
  tolerance: number,
): { stats: ComparisonStats; histogram: ComparisonHistogram } {
  const summary = new DistanceSummary(tolerance);
  kept.sort();
  for (let i = 0; i < kept.length; i += 1) summary.add(kept[i]!);
  const binCounts = new Array<number>(HISTOGRAM_BINS).fill(0);
  if (summary.max > 0) for (let i = 0; i < kept.length; i += 1) binCounts[histogramBinOf(kept[i]!, summary.max)]! += 1;
  const percentiles = kept.length === 0 ? [] : PERCENTILES.map((p) => nearestRank(kept, p));
  return figuresOf(summary, comparedPoints, percentiles, binCounts);
}
