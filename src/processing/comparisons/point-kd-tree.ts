/**
 * A static k-d tree over points for exact nearest-neighbour queries (docs/comparisons.md, "C2C"):
 * the points reordered so that every node is a contiguous range split at its median along the
 * widest axis, down to buckets of at most BUCKET points; a query descends to its bucket first
 * and visits another range only when its box can still hold a nearer point. Range queries
 * (docs/comparisons-m3c2.md): a ball visits the ranges on the sides of the splits it reaches, a
 * cylinder those whose bounding box it can reach.
 */
const BUCKET = 16;
/** Ranges halve at every level: 64 levels hold far more points than memory does. */
const STACK_LEVELS = 64;

export class PointKdTree {
  /** The points in tree order, x y z. */
  readonly positions: Float64Array;
  readonly count: number;
  /** Per internal node, numbered as a heap (the root 1, node n's halves 2n and 2n + 1): its split axis and value. */
  private readonly splitAxis: Uint8Array;
  private readonly splitValue: Float64Array;
  /** The pending ranges of a range query (node, start, end) and, for a cylinder, its axis interval. */
  private readonly stack = new Int32Array(STACK_LEVELS * 3);
  private readonly stackInterval = new Float64Array(STACK_LEVELS * 2);
  private querying = false;
  private nodeBounds: Float64Array | null = null;

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

  /**
   * Calls `visit` with the tree-order index (into `positions`) of every point within `radius`
   * of (x, y, z), a point at exactly `radius` included, and its squared distance. `visit` must
   * not query this tree again (the pending ranges are kept in one buffer per tree).
   */
  forEachWithin(x: number, y: number, z: number, radius: number, visit: (index: number, squaredDistance: number) => void): void {
    if (this.count === 0 || !(radius >= 0)) return;
    const p = this.positions;
    const limit = radius * radius;
    const stack = this.stack;
    this.begin();
    try {
      let top = this.push(0, 1, 0, this.count);
      while (top > 0) {
        top -= 3;
        const node = stack[top]!;
        const start = stack[top + 1]!;
        const end = stack[top + 2]!;
        if (end - start <= BUCKET) {
          for (let i = start; i < end; i += 1) {
            const dx = p[i * 3]! - x;
            const dy = p[i * 3 + 1]! - y;
            const dz = p[i * 3 + 2]! - z;
            const d = dx * dx + dy * dy + dz * dz;
            if (d <= limit) visit(i, d);
          }
          continue;
        }
        const axis = this.splitAxis[node]!;
        const value = this.splitValue[node]!;
        const at = axis === 0 ? x : axis === 1 ? y : z;
        const middle = (start + end) >> 1;
        // The lower half holds coordinates up to the split value, the upper half from it.
        if (at - radius <= value) top = this.push(top, 2 * node, start, middle);
        if (at + radius >= value) top = this.push(top, 2 * node + 1, middle, end);
      }
    } finally {
      this.querying = false;
    }
  }

  /**
   * Calls `visit` with the tree-order index of every point in the cylinder of axis through
   * (cx, cy, cz) along (nx, ny, nz) (normalized here), of `radius` and reaching `halfLength`
   * either way along the axis (boundaries included), and the point's signed coordinate along the
   * axis. A range is visited only if the part of the axis segment that can reach its bounding box
   * (the box widened on each axis by how far the cylinder reaches across it) is not empty; the
   * boxes are computed at the first such query. `visit` must not query this tree again.
   */
  forEachInCylinder(
    cx: number,
    cy: number,
    cz: number,
    nx: number,
    ny: number,
    nz: number,
    radius: number,
    halfLength: number,
    visit: (index: number, along: number) => void,
  ): void {
    const norm = Math.hypot(nx, ny, nz);
    if (this.count === 0 || !(radius >= 0) || !(halfLength >= 0) || !(norm > 0)) return;
    const n = [nx / norm, ny / norm, nz / norm];
    const c = [cx, cy, cz];
    // How far the cylinder reaches across each axis beyond its axis segment.
    const reach = n.map((component) => radius * Math.sqrt(Math.max(0, 1 - component * component)));
    const inverse = n.map((component) => 1 / component);
    const p = this.positions;
    const bounds = this.bounds();
    const radius2 = radius * radius;
    const stack = this.stack;
    const interval = this.stackInterval;
    this.begin();
    try {
      let top = this.push(0, 1, 0, this.count);
      interval[0] = -halfLength;
      interval[1] = halfLength;
      while (top > 0) {
        top -= 3;
        const node = stack[top]!;
        const start = stack[top + 1]!;
        const end = stack[top + 2]!;
        let from = interval[(top / 3) * 2]!;
        let to = interval[(top / 3) * 2 + 1]!;
        // Clip the axis segment to the widened box, one slab per axis.
        for (let axis = 0; axis < 3 && from <= to; axis += 1) {
          const low = bounds[node * 6 + axis]! - reach[axis]! - c[axis]!;
          const high = bounds[node * 6 + 3 + axis]! + reach[axis]! - c[axis]!;
          const slope = n[axis]!;
          const scale = inverse[axis]!;
          if (slope === 0) {
            if (low > 0 || high < 0) to = -Infinity;
          } else if (slope > 0) {
            from = Math.max(from, low * scale);
            to = Math.min(to, high * scale);
          } else {
            from = Math.max(from, high * scale);
            to = Math.min(to, low * scale);
          }
        }
        if (from > to) continue;
        if (end - start <= BUCKET) {
          for (let i = start; i < end; i += 1) {
            const dx = p[i * 3]! - cx;
            const dy = p[i * 3 + 1]! - cy;
            const dz = p[i * 3 + 2]! - cz;
            const along = dx * n[0]! + dy * n[1]! + dz * n[2]!;
            if (along < -halfLength || along > halfLength) continue;
            if (dx * dx + dy * dy + dz * dz - along * along <= radius2) visit(i, along);
          }
          continue;
        }
        const middle = (start + end) >> 1;
        interval[(top / 3) * 2] = from;
        interval[(top / 3) * 2 + 1] = to;
        top = this.push(top, 2 * node, start, middle);
        interval[(top / 3) * 2] = from;
        interval[(top / 3) * 2 + 1] = to;
        top = this.push(top, 2 * node + 1, middle, end);
      }
    } finally {
      this.querying = false;
    }
  }

  /** Per node (heap-numbered), the bounding box of its points: min x y z, max x y z. */
  private bounds(): Float64Array {
    if (this.nodeBounds) return this.nodeBounds;
    const bounds = new Float64Array(this.splitAxis.length * 6);
    const p = this.positions;
    const fill = (node: number, start: number, end: number): void => {
      const at = node * 6;
      if (end - start <= BUCKET) {
        bounds.fill(Infinity, at, at + 3);
        bounds.fill(-Infinity, at + 3, at + 6);
        for (let i = start; i < end; i += 1) {
          for (let axis = 0; axis < 3; axis += 1) {
            const value = p[i * 3 + axis]!;
            if (value < bounds[at + axis]!) bounds[at + axis] = value;
            if (value > bounds[at + 3 + axis]!) bounds[at + 3 + axis] = value;
          }
        }
        return;
      }
      const middle = (start + end) >> 1;
      fill(2 * node, start, middle);
      fill(2 * node + 1, middle, end);
      for (let axis = 0; axis < 3; axis += 1) {
        bounds[at + axis] = Math.min(bounds[2 * node * 6 + axis]!, bounds[(2 * node + 1) * 6 + axis]!);
        bounds[at + 3 + axis] = Math.max(bounds[2 * node * 6 + 3 + axis]!, bounds[(2 * node + 1) * 6 + 3 + axis]!);
      }
    };
    fill(1, 0, this.count);
    this.nodeBounds = bounds;
    return bounds;
  }

  private begin(): void {
    if (this.querying) throw new Error('A PointKdTree range query cannot start inside another on the same tree');
    this.querying = true;
  }

  private push(top: number, node: number, start: number, end: number): number {
    this.stack[top] = node;
    this.stack[top + 1] = start;
    this.stack[top + 2] = end;
    return top + 3;
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
