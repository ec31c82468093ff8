import { type MeshBounds, type TriangleMesh, withoutUnusedVertices } from './triangle-mesh.js';

/**
 * The most triangles a preview keeps. A GLB of a million indexed triangles is about 24 MB
 * (12 bytes of indices a triangle, 24 bytes of position and normal a vertex, about half a vertex
 * a triangle): it downloads in seconds and every browser viewer shows it smoothly, while a
 * model's shape at thumbnail or screen size needs far fewer. Beyond it the worker simplifies,
 * which also bounds what it holds whatever the original's size.
 */
export const PREVIEW_TRIANGLE_BUDGET = 1_000_000;

/** Calls `emit` for each triangle of the source (the streaming OBJ reader's second pass, or an index array). */
export type TriangleSource = (emit: (a: number, b: number, c: number) => void) => Promise<void> | void;

/**
 * Simplifies by vertex clustering: a grid over the bounds, every vertex moved to the mean of
 * its cell's vertices, triangles whose corners fall in fewer than three cells dropped and
 * repeated ones kept once. The cell is sized from the surface area so the kept triangles fit
 * the budget (a surface crossing a cell keeps about three triangles a cell); when they do not,
 * the grid is coarsened and the source read again. Memory: 4 bytes a source vertex plus tables
 * sized by the budget, never by the source's triangle count.
 */
export async function clusterToBudget(
  positions: Float32Array,
  bounds: MeshBounds,
  surfaceArea: number,
  source: TriangleSource,
  budget = PREVIEW_TRIANGLE_BUDGET,
): Promise<TriangleMesh> {
  const span = Math.max(bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1], bounds.max[2] - bounds.min[2]);
  let cell = Math.max(Math.sqrt((3 * surfaceArea) / (0.8 * budget)), span / 2 ** 16, Number.MIN_VALUE);
  for (;;) {
    const clustered = await clusterOnce(positions, bounds, cell, source, budget);
    if (clustered) return withoutUnusedVertices(clustered);
    cell *= Math.SQRT2;
  }
}

async function clusterOnce(
  positions: Float32Array,
  bounds: MeshBounds,
  cell: number,
  source: TriangleSource,
  budget: number,
): Promise<TriangleMesh | undefined> {
  const vertexCell = new Int32Array(positions.length / 3).fill(-1);
  const cells = new CellTable();
  const triangles = new TriangleSet(budget);
  let overflow = false;
  const cellOf = (v: number): number => {
    let id = vertexCell[v]!;
    if (id >= 0) return id;
    const x = positions[v * 3]!;
    const y = positions[v * 3 + 1]!;
    const z = positions[v * 3 + 2]!;
    id = cells.cellId(
      Math.floor((x - bounds.min[0]) / cell),
      Math.floor((y - bounds.min[1]) / cell),
      Math.floor((z - bounds.min[2]) / cell),
    );
    cells.addVertex(id, x, y, z);
    vertexCell[v] = id;
    return id;
  };
  await source((a, b, c) => {
    if (overflow) return;
    const ca = cellOf(a);
    const cb = cellOf(b);
    const cc = cellOf(c);
    if (ca === cb || cb === cc || ca === cc) return;
    if (!triangles.add(ca, cb, cc)) overflow = true;
  });
  if (overflow) return undefined;
  return { positions: cells.meanPositions(), indices: triangles.indices() };
}

/** Open addressing from a grid cell (ix, iy, iz) to a compact id, with each cell's vertex sum. */
class CellTable {
  private keys = new Int32Array(3 * 4096);
  private ids = new Int32Array(4096).fill(-1);
  private sums = new Float64Array(3 * 4096);
  private counts = new Uint32Array(4096);
  count = 0;

  cellId(ix: number, iy: number, iz: number): number {
    const mask = this.ids.length - 1;
    let slot = (Math.imul(ix, 73856093) ^ Math.imul(iy, 19349663) ^ Math.imul(iz, 83492791)) & mask;
    for (;;) {
      const id = this.ids[slot]!;
      if (id < 0) break;
      if (this.keys[slot * 3] === ix && this.keys[slot * 3 + 1] === iy && this.keys[slot * 3 + 2] === iz) return id;
      slot = (slot + 1) & mask;
    }
    const id = this.count++;
    this.ids[slot] = id;
    this.keys[slot * 3] = ix;
    this.keys[slot * 3 + 1] = iy;
    this.keys[slot * 3 + 2] = iz;
    if (this.count * 2 > this.ids.length) this.rehash();
    return id;
  }

  addVertex(id: number, x: number, y: number, z: number): void {
    if (id >= this.counts.length) {
      const counts = new Uint32Array(this.counts.length * 2);
      counts.set(this.counts);
      this.counts = counts;
      const sums = new Float64Array(this.sums.length * 2);
      sums.set(this.sums);
      this.sums = sums;
    }
    this.sums[id * 3] = this.sums[id * 3]! + x;
    this.sums[id * 3 + 1] = this.sums[id * 3 + 1]! + y;
    this.sums[id * 3 + 2] = this.sums[id * 3 + 2]! + z;
    this.counts[id] = this.counts[id]! + 1;
  }

  meanPositions(): Float32Array {
    const positions = new Float32Array(this.count * 3);
    for (let id = 0; id < this.count; id += 1) {
      const n = this.counts[id]!;
      positions[id * 3] = this.sums[id * 3]! / n;
      positions[id * 3 + 1] = this.sums[id * 3 + 1]! / n;
      positions[id * 3 + 2] = this.sums[id * 3 + 2]! / n;
    }
    return positions;
  }

  private rehash(): void {
    const { keys, ids } = this;
    this.keys = new Int32Array(keys.length * 2);
    this.ids = new Int32Array(ids.length * 2).fill(-1);
    const mask = this.ids.length - 1;
    for (let old = 0; old < ids.length; old += 1) {
      const id = ids[old]!;
      if (id < 0) continue;
      const [ix, iy, iz] = [keys[old * 3]!, keys[old * 3 + 1]!, keys[old * 3 + 2]!];
      let slot = (Math.imul(ix, 73856093) ^ Math.imul(iy, 19349663) ^ Math.imul(iz, 83492791)) & mask;
      while (this.ids[slot]! >= 0) slot = (slot + 1) & mask;
      this.ids[slot] = id;
      this.keys[slot * 3] = ix;
      this.keys[slot * 3 + 1] = iy;
      this.keys[slot * 3 + 2] = iz;
    }
  }
}

/** The kept triangles, each once (rotated so its smallest corner comes first, keeping its winding); refuses more than the budget. */
class TriangleSet {
  private readonly slots: Int32Array;
  private readonly kept: Uint32Array;
  private count = 0;

  constructor(private readonly budget: number) {
    let size = 1;
    while (size < budget * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.kept = new Uint32Array(budget * 3);
  }

  add(a: number, b: number, c: number): boolean {
    if (b < a && b < c) [a, b, c] = [b, c, a];
    else if (c < a && c < b) [a, b, c] = [c, a, b];
    const mask = this.slots.length - 1;
    let slot = (Math.imul(a, 73856093) ^ Math.imul(b, 19349663) ^ Math.imul(c, 83492791)) & mask;
    for (;;) {
      const t = this.slots[slot]!;
      if (t < 0) break;
      if (this.kept[t * 3] === a && this.kept[t * 3 + 1] === b && this.kept[t * 3 + 2] === c) return true;
      slot = (slot + 1) & mask;
    }
    if (this.count === this.budget) return false;
    this.slots[slot] = this.count;
    this.kept[this.count * 3] = a;
    this.kept[this.count * 3 + 1] = b;
    this.kept[this.count * 3 + 2] = c;
    this.count += 1;
    return true;
  }

  indices(): Uint32Array {
    return this.kept.slice(0, this.count * 3);
  }
}

/** An in-memory mesh as a triangle source. */
export function indexSource(indices: Uint32Array): TriangleSource {
  return (emit) => {
    for (let t = 0; t < indices.length; t += 3) emit(indices[t]!, indices[t + 1]!, indices[t + 2]!);
  };
}
