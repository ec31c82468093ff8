/**
 * A static k-d tree over points for exact nearest-neighbour queries (docs/comparisons.md, "C2C"):
 * the points reordered so that every node is a contiguous range split at its median along the
 * widest axis, down to buckets of at most BUCKET points; a query descends to its bucket first
 * and visits another range only when its box can still hold a nearer point.
 */
const BUCKET = 16;

export class PointKdTree {
  /** The points in tree order, x y z. */
  readonly positions: Float64Array;
  readonly count: number;
  /** Per internal node, numbered as a heap (the root 1, node n's halves 2n and 2n + 1): its split axis and value. */
  private readonly splitAxis: Uint8Array;
  private readonly splitValue: Float64Array;

  constructor(positions: Float64Array, count = positions.length / 3) {
    this.count = count;
    this.positions = positions.slice(0, count * 3);
    // Ranges halve at every level, so the deepest node is below 4 * count / BUCKET.
    const nodes = Math.max(2, Math.ceil((4 * count) / BUCKET) + 2);
    this.splitAxis = new Uint8Array(nodes);
    this.splitValue = new Float64Array(nodes);
    const build = (node: number, start: number, end: number): void => {
      if (end - start <= BUCKET) return;
      const axis = this.widestAxis(start, end);
      const middle = (start + end) >> 1;
      this.select(start, end - 1, middle, axis);
      this.splitAxis[node] = axis;
      this.splitValue[node] = this.positions[middle * 3 + axis]!;
      build(2 * node, start, middle);
      build(2 * node + 1, middle, end);
    };
    build(1, 0, count);
  }

  /**
   * The distance from (x, y, z) to its nearest point, or Infinity when none is within `limit`
   * (a point at exactly `limit` is found).
   */
  nearestDistance(x: number, y: number, z: number, limit = Number.POSITIVE_INFINITY): number {
    let best = limit * limit;
    let found = false;
    if (this.count === 0) return Number.POSITIVE_INFINITY;
    const p = this.positions;
    const { splitAxis, splitValue } = this;
    // Depth first without recursion or closures (this runs once per compared point): the far
    // halves wait on a stack with a lower bound of their squared distance (the sum over the axes
    // of the query's squared offset from the half's range, Arya and Mount's incremental
    // distance), visited only if that bound is still within the best.
    QUERY_NODES[0] = 1;
    QUERY_STARTS[0] = 0;
    QUERY_ENDS[0] = this.count;
    QUERY_BOUNDS[0] = 0;
    QUERY_OFFSETS[0] = 0;
    QUERY_OFFSETS[1] = 0;
    QUERY_OFFSETS[2] = 0;
    let top = 1;
    while (top > 0) {
      top -= 1;
      const bound = QUERY_BOUNDS[top]!;
      if (bound > best) continue;
      let node = QUERY_NODES[top]!;
      let start = QUERY_STARTS[top]!;
      let end = QUERY_ENDS[top]!;
      const ox = QUERY_OFFSETS[top * 3]!;
      const oy = QUERY_OFFSETS[top * 3 + 1]!;
      const oz = QUERY_OFFSETS[top * 3 + 2]!;
      while (end - start > BUCKET) {
        const axis = splitAxis[node]!;
        const gap = (axis === 0 ? x : axis === 1 ? y : z) - splitValue[node]!;
        const middle = (start + end) >> 1;
        const old = axis === 0 ? ox : axis === 1 ? oy : oz;
        QUERY_BOUNDS[top] = bound - old * old + gap * gap;
        QUERY_OFFSETS[top * 3] = axis === 0 ? gap : ox;
        QUERY_OFFSETS[top * 3 + 1] = axis === 1 ? gap : oy;
        QUERY_OFFSETS[top * 3 + 2] = axis === 2 ? gap : oz;
        if (gap < 0) {
          QUERY_NODES[top] = 2 * node + 1;
          QUERY_STARTS[top] = middle;
          QUERY_ENDS[top] = end;
          node = 2 * node;
          end = middle;
        } else {
          QUERY_NODES[top] = 2 * node;
          QUERY_STARTS[top] = start;
          QUERY_ENDS[top] = middle;
          node = 2 * node + 1;
          start = middle;
        }
        top += 1;
      }
      for (let i = start; i < end; i += 1) {
        const dx = p[i * 3]! - x;
        const dy = p[i * 3 + 1]! - y;
        const dz = p[i * 3 + 2]! - z;
        const d = dx * dx + dy * dy + dz * dz;
        if (d <= best) {
          best = d;
          found = true;
        }
      }
    }
    return found ? Math.sqrt(best) : Number.POSITIVE_INFINITY;
  }

  private widestAxis(start: number, end: number): number {
    const min = [Infinity, Infinity, Infinity];
    const max = [-Infinity, -Infinity, -Infinity];
    for (let i = start; i < end; i += 1) {
      for (let axis = 0; axis < 3; axis += 1) {
        const value = this.positions[i * 3 + axis]!;
        if (value < min[axis]!) min[axis] = value;
        if (value > max[axis]!) max[axis] = value;
      }
    }
    const spans = [0, 1, 2].map((axis) => max[axis]! - min[axis]!);
    return spans.indexOf(Math.max(...spans));
  }

  /** Reorders points low..high so that the one at k is where sorting by `axis` would put it (quickselect). */
  private select(low: number, high: number, k: number, axis: number): void {
    const p = this.positions;
    while (high > low) {
      const pivot = p[((low + high) >> 1) * 3 + axis]!;
      let i = low;
      let j = high;
      while (i <= j) {
        while (p[i * 3 + axis]! < pivot) i += 1;
        while (p[j * 3 + axis]! > pivot) j -= 1;
        if (i <= j) {
          for (let c = 0; c < 3; c += 1) {
            const t = p[i * 3 + c]!;
            p[i * 3 + c] = p[j * 3 + c]!;
            p[j * 3 + c] = t;
          }
          i += 1;
          j -= 1;
        }
      }
      if (k <= j) high = j;
      else if (k >= i) low = i;
      else return;
    }
  }
}

/**
 * The far halves a nearestDistance query has still to consider: one per level of the tree at
 * most (ranges halve, so 64 levels hold more points than memory can), shared by all trees, as
 * a query runs to its end before the next starts.
 */
const QUERY_DEPTH = 64;
const QUERY_NODES = new Float64Array(QUERY_DEPTH);
const QUERY_STARTS = new Int32Array(QUERY_DEPTH);
const QUERY_ENDS = new Int32Array(QUERY_DEPTH);
const QUERY_BOUNDS = new Float64Array(QUERY_DEPTH);
const QUERY_OFFSETS = new Float64Array(QUERY_DEPTH * 3);
