import type { Bounds } from '../point-clouds/point-cloud.js';

/** Bits per axis of the grid points are ordered on: 2^10 cells along each axis of the box. */
const BITS = 10;
const SIDE = 1 << BITS;

/**
 * The indices 0 to count - 1 of points (x y z at `stride` doubles apart in `p`) in Morton
 * order over a 1024^3 grid on `bounds`: points near each other in space come near each other
 * in the order, so that consecutive nearest-neighbour queries walk the same parts of a k-d tree
 * while they are still in cache (docs/comparisons-c2c.md). A radix sort of the 30-bit codes:
 * linear in the points.
 */
export function spatialOrder(p: Float64Array, stride: number, count: number, bounds: Bounds): Uint32Array {
  const scale = [0, 1, 2].map((axis) => {
    const span = bounds.max[axis]! - bounds.min[axis]!;
    return span > 0 ? (SIDE - 1) / span : 0;
  });
  const codes = new Uint32Array(count);
  for (let i = 0; i < count; i += 1) {
    const at = i * stride;
    const x = quantize(p[at]!, bounds.min[0]!, scale[0]!);
    const y = quantize(p[at + 1]!, bounds.min[1]!, scale[1]!);
    const z = quantize(p[at + 2]!, bounds.min[2]!, scale[2]!);
    codes[i] = (spread(x) | (spread(y) << 1) | (spread(z) << 2)) >>> 0;
  }
  // Two passes of 15 bits each, least significant first: stable, so the whole code orders.
  let order = new Uint32Array(count);
  let next = new Uint32Array(count);
  for (let i = 0; i < count; i += 1) order[i] = i;
  const buckets = new Uint32Array(1 << 15);
  for (const shift of [0, 15]) {
    buckets.fill(0);
    for (let i = 0; i < count; i += 1) buckets[(codes[i]! >>> shift) & 0x7fff]! += 1;
    let sum = 0;
    for (let b = 0; b < buckets.length; b += 1) {
      const size = buckets[b]!;
      buckets[b] = sum;
      sum += size;
    }
    for (let k = 0; k < count; k += 1) {
      const i = order[k]!;
      next[buckets[(codes[i]! >>> shift) & 0x7fff]!++] = i;
    }
    [order, next] = [next, order];
  }
  return order;
}

function quantize(value: number, min: number, scale: number): number {
  const cell = Math.floor((value - min) * scale);
  return cell < 0 ? 0 : cell >= SIDE ? SIDE - 1 : cell;
}

/** The 10 bits of v spread to every third bit (bit k to bit 3k). */
function spread(v: number): number {
  let x = v & 0x3ff;
  x = (x | (x << 16)) & 0x030000ff;
  x = (x | (x << 8)) & 0x0300f00f;
  x = (x | (x << 4)) & 0x030c30c3;
  x = (x | (x << 2)) & 0x09249249;
  return x;
}
