/**
 * The bytes the tiling's spill files hold on disk, and the most they held at once: what a
 * tiling needs beside its input and its tiles (docs/performance.md, "Scale"). Counted where the
 * bytes are written and where the files are removed, not by watching a folder, so the peak is
 * exact. The counters sit in shared memory: every tiling thread adds to the same two numbers,
 * and a meter posted to a thread within a task's settings is the same meter.
 */
export type SpillMeter = BigInt64Array;

const HELD = 0;
const PEAK = 1;

export function createSpillMeter(): SpillMeter {
  return new BigInt64Array(new SharedArrayBuffer(2 * BigInt64Array.BYTES_PER_ELEMENT));
}

export function spillWritten(meter: SpillMeter | undefined, bytes: number): void {
  if (!meter || bytes === 0) return;
  const held = Atomics.add(meter, HELD, BigInt(bytes)) + BigInt(bytes);
  for (let peak = Atomics.load(meter, PEAK); held > peak; ) {
    const seen = Atomics.compareExchange(meter, PEAK, peak, held);
    if (seen === peak) break;
    peak = seen;
  }
}

export function spillRemoved(meter: SpillMeter | undefined, bytes: number): void {
  if (meter && bytes !== 0) Atomics.sub(meter, HELD, BigInt(bytes));
}

export function spillHeld(meter: SpillMeter): number {
  return Number(Atomics.load(meter, HELD));
}

export function spillPeak(meter: SpillMeter): number {
  return Number(Atomics.load(meter, PEAK));
}
