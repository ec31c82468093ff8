import type { PointBatch } from './point-cloud.js';

/**
 * A fixed-size uniform sample of a stream (reservoir sampling), for the thumbnail. The random
 * numbers come from a seeded generator, so the same file always gives the same sample. Once
 * the reservoir is full it jumps to the next point to keep (Li's algorithm L) instead of
 * drawing a number for every point: a few hundred thousand draws for millions of points.
 */
export class ReservoirSample {
  readonly positions: Float64Array;
  readonly colors: Uint8Array;
  size = 0;
  hasColors = true;
  private seen = 0;
  private state: number;
  private weight = 1;
  /** Stream index of the next point that replaces one in the full reservoir. */
  private next = 0;

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
    const first = this.seen;
    let i = 0;
    for (; i < batch.count && this.size < this.capacity; i += 1) {
      this.put(batch, i, this.size);
      this.size += 1;
      if (this.size === this.capacity) {
        this.weight = Math.exp(Math.log(this.random()) / this.capacity);
        this.next = first + i + 1 + this.skip();
      }
    }
    while (this.size === this.capacity && this.next < first + batch.count) {
      this.put(batch, this.next - first, Math.floor(this.random() * this.capacity));
      this.weight *= Math.exp(Math.log(this.random()) / this.capacity);
      this.next += 1 + this.skip();
    }
    this.seen = first + batch.count;
  }

  private skip(): number {
    return Math.floor(Math.log(this.random()) / Math.log(1 - this.weight));
  }

  private put(batch: PointBatch, i: number, slot: number): void {
    const { positions, colors } = batch;
    this.positions[slot * 3] = positions[i * 3]!;
    this.positions[slot * 3 + 1] = positions[i * 3 + 1]!;
    this.positions[slot * 3 + 2] = positions[i * 3 + 2]!;
    if (colors) {
      this.colors[slot * 3] = colors[i * 3]!;
      this.colors[slot * 3 + 1] = colors[i * 3 + 1]!;
      this.colors[slot * 3 + 2] = colors[i * 3 + 2]!;
    }
  }

  /** mulberry32: small, fast, good enough to pick points; in (0, 1), never 0, as the logarithms need. */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  }
}
