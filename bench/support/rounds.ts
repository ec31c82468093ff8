/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export interface PairedRounds<T> {
  baseline: T[];
  target: T[];
}

/**
 * `rounds` rounds of the baseline and the target measured in turn, the order swapped every round
 * so that a drift of the machine's load favours neither. `report` sees each round as it ends.
 */
export async function pairedRounds<T>(
  rounds: number,
  baseline: () => Promise<T>,
  target: () => Promise<T>,
  report: (round: number, baseline: T, target: T) => void,
): Promise<PairedRounds<T>> {
  const measured: PairedRounds<T> = { baseline: [], target: [] };
  for (let round = 0; round < rounds; round += 1) {
    let base: T;
    let ours: T;
    if (round % 2 === 0) {
      base = await baseline();
      ours = await target();
    } else {
      ours = await target();
      base = await baseline();
    }
    measured.baseline.push(base);
    measured.target.push(ours);
    report(round + 1, base, ours);
  }
  return measured;
}

/** The median of the rounds' ratios target / baseline of `value`: each round's pair saw the same machine. */
export function medianRatio<T>(measured: PairedRounds<T>, value: (result: T) => number): number {
  return median(measured.target.map((result, i) => value(result) / value(measured.baseline[i] as T)));
}
