import { open } from 'node:fs/promises';
import {
  type ComparisonHistogram,
  type ComparisonStats,
  type DistanceSummary,
  figuresOf,
  HISTOGRAM_BINS,
  histogramBinOf,
  nearestRankOf,
  PERCENTILES,
} from '../../domain/comparisons/comparison-figures.js';

/** Bins of the fine histograms that narrow a rank down to a few distances. */
const FINE_BINS = 1 << 16;
/** Distances sorted in memory once a rank is narrowed down to this many. */
const COLLECT = 1 << 20;

/** One narrowing step: the distances d with fineBinOf(d, low, width) === bin. */
interface Level {
  low: number;
  width: number;
  bin: number;
}

function fineBinOf(d: number, low: number, width: number): number {
  return Math.max(0, Math.min(FINE_BINS - 1, Math.floor((d - low) / width)));
}

function inLevels(d: number, levels: readonly Level[]): boolean {
  for (const level of levels) if (fineBinOf(d, level.low, level.width) !== level.bin) return false;
  return true;
}

/**
 * The figures from the kept distances in `keptPath` (doubles, any order), exactly as
 * comparisonFigures would give them, holding neither them all nor a sorted copy: one pass for
 * the histogram and a fine histogram over 0..max, then for each percentile's rank, passes over
 * the distances of its fine bin (narrowed again while it holds more than COLLECT) until they
 * can be sorted in memory (docs/comparisons-c2c.md). `collect` is COLLECT but in tests.
 */
export async function distanceFigures(
  keptPath: string,
  summary: DistanceSummary,
  comparedPoints: number,
  collect = COLLECT,
): Promise<{ stats: ComparisonStats; histogram: ComparisonHistogram }> {
  const { count, max } = summary;
  if (count === 0) return figuresOf(summary, comparedPoints, [], []);
  const binCounts = new Array<number>(HISTOGRAM_BINS).fill(0);
  const first: Level = { low: 0, width: max / FINE_BINS, bin: 0 };
  const fine = new Float64Array(FINE_BINS);
  await forEachDistance(keptPath, (d) => {
    if (max > 0) {
      binCounts[histogramBinOf(d, max)]! += 1;
      fine[fineBinOf(d, 0, first.width)]! += 1;
    }
  });
  const percentiles: number[] = [];
  for (const p of PERCENTILES) {
    const rank = nearestRankOf(count, p);
    percentiles.push(max === 0 ? 0 : await distanceAtRank(keptPath, rank, fine, first, collect));
  }
  return figuresOf(summary, comparedPoints, percentiles, binCounts);
}

/** The distance of 1-based `rank` in sorted order, from the fine histogram over all of them. */
async function distanceAtRank(
  keptPath: string,
  rank: number,
  histogram: Float64Array,
  level: Level,
  collect: number,
): Promise<number> {
  const levels: Level[] = [];
  let counts = histogram;
  let current = level;
  let left = rank;
  for (;;) {
    let bin = 0;
    while (left > counts[bin]!) {
      left -= counts[bin]!;
      bin += 1;
    }
    levels.push({ ...current, bin });
    const held = counts[bin]!;
    if (held <= collect) {
      const values = new Float64Array(held);
      let at = 0;
      await forEachDistance(keptPath, (d) => {
        if (inLevels(d, levels)) values[at++] = d;
      });
      return values.sort()[left - 1]!;
    }
    // Too many in one bin: a fine histogram over that bin's own range.
    let low = Infinity;
    let high = -Infinity;
    await forEachDistance(keptPath, (d) => {
      if (!inLevels(d, levels)) return;
      if (d < low) low = d;
      if (d > high) high = d;
    });
    if (low === high) return low;
    current = { low, width: (high - low) / FINE_BINS, bin: 0 };
    const next = new Float64Array(FINE_BINS);
    const { low: nextLow, width } = current;
    await forEachDistance(keptPath, (d) => {
      if (inLevels(d, levels)) next[fineBinOf(d, nextLow, width)]! += 1;
    });
    counts = next;
  }
}

async function forEachDistance(keptPath: string, visit: (d: number) => void): Promise<void> {
  const file = await open(keptPath, 'r');
  const buffer = new Float64Array(1 << 17);
  const bytes = new Uint8Array(buffer.buffer);
  try {
    for (;;) {
      const { bytesRead } = await file.read(bytes, 0, bytes.length, null);
      if (bytesRead === 0) break;
      for (let i = 0; i < bytesRead / 8; i += 1) visit(buffer[i]!);
    }
  } finally {
    await file.close();
  }
}
