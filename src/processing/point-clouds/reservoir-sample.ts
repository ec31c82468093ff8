import type { PointBatch } from './point-cloud.js';

/**
 * A fixed-size uniform sample of a stream (reservoir sampling), for the thumbnail. The random
 * numbers come from a seeded generator, so the same file always gives the same sample.
 */
export class ReservoirSample {
  readonly positions: Float64Array;
  readonly colors: Uint8Array;
  size = 0;
  hasColors = true;
  private seen = 0;
  private state: number;

  constructor(
    readonly capacity: number,
    seed = 0x9e3779b9,
  ) {
    this.positions = new Float64Array(capacity * 3);
    this.colors = new Uint8Array(capacity * 3);
    this.state = seed >>> 0;
  }

  add(batch: PointBatch): void {
    if (!batch.colors) this.hasColors = false;
    for (let i = 0; i < batch.count; i += 1, this.seen += 1) {
      let slot = this.seen;
      if (slot >= this.capacity) {
        slot = Math.floor(this.random() * (this.seen + 1));
        if (slot >= this.capacity) continue;
      } else {
        this.size += 1;
      }
      this.positions.set(batch.positions.subarray(i * 3, i * 3 + 3), slot * 3);
      if (batch.colors) this.colors.set(batch.colors.subarray(i * 3, i * 3 + 3), slot * 3);
    }
  }

  /** mulberry32: small, fast, good enough to pick points. */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}
