import { MeshoptSimplifier } from 'meshoptimizer';
import type { TexturedMesh } from './textured-mesh.js';

/** The most triangles a leaf holds: the k-d split stops below it (docs/processing.md, "Meshes"). */
export const MESH_LEAF_TRIANGLES = 32_768;
/** A parent keeps about this share of its children's triangles. */
const PARENT_SHARE = 0.25;

/** A tile's triangles of one material, as corners of the whole mesh's vertices. */
export interface MaterialGroup {
  material: number;
  indices: Uint32Array;
}

export interface MeshTileNode {
  address: string;
  /** In the mesh's (glTF) frame. */
  min: [number, number, number];
  max: [number, number, number];
  geometricError: number;
  triangles: number;
  /** 0 at the leaves, one more per level up: how much the textures are reduced. */
  height: number;
  children: MeshTileNode[];
}

export interface TilerOptions {
  leafTriangles?: number;
  /** The root's address: 'r', or a part's place under the top levels (mesh-top-levels.ts). */
  address?: string;
  /** Writes a tile's content (its groups are corners of `mesh`); called for every tile, children before their parent. */
  write: (node: MeshTileNode, groups: MaterialGroup[], mesh: TexturedMesh) => Promise<void>;
  onLeafTriangles?: (count: number) => void;
  signal?: AbortSignal;
}

/** A tile built: its node and its content, as corners of the mesh it was built from. */
export interface BuiltTile {
  node: MeshTileNode;
  groups: MaterialGroup[];
}

/**
 * Levels of detail by spatial subdivision and simplification: triangles are split by their
 * centroids (k-d, at the median of the longest axis, twice per level: four children), so each
 * is whole in exactly one leaf; a parent is its children's triangles simplified by
 * meshoptimizer to about a quarter, each material on its own with its border locked, so tiles
 * of one level meet without cracks. Depth first: only the path being built is held.
 */
export async function tileMesh(mesh: TexturedMesh, options: TilerOptions): Promise<BuiltTile> {
  await MeshoptSimplifier.ready;
  const leaf = options.leafTriangles ?? MESH_LEAF_TRIANGLES;
  const triangles = mesh.indices.length / 3;
  const scratch = new Int32Array(mesh.positions.length / 3).fill(-1);
  const all = new Uint32Array(triangles);
  for (let t = 0; t < triangles; t += 1) all[t] = t;

  const build = async (tris: Uint32Array, address: string): Promise<BuiltTile> => {
    options.signal?.throwIfAborted();
    if (tris.length <= leaf) {
      const groups = leafGroups(mesh, tris);
      const node = tileNode(mesh, address, groups, [], 0);
      await options.write(node, groups, mesh);
      options.onLeafTriangles?.(tris.length);
      return { node, groups };
    }
    const parts = splitInTwo(tris, mesh).flatMap((half) => (half.length > leaf ? splitInTwo(half, mesh) : [half]));
    const children: BuiltTile[] = [];
    for (const [i, part] of parts.entries()) children.push(await build(part, `${address}${i}`));
    const groups = simplifiedGroups(mesh, children, scratch);
    const childError = Math.max(...children.map((child) => child.node.geometricError));
    const node = tileNode(
      mesh,
      address,
      groups.groups,
      children.map((child) => child.node),
      childError,
    );
    node.geometricError = parentError(node, childError, groups.error);
    await options.write(node, groups.groups, mesh);
    return { node, groups: groups.groups };
  };
  return build(all, options.address ?? 'r');
}

/**
 * A parent's error in metres: its children's plus what the simplifier reports it moved the
 * surface, and never under half the typical edge of its triangles (a flat surface simplifies
 * with no error, but its texture is reduced too); always above its children's.
 */
export function parentError(node: MeshTileNode, childError: number, simplifierError: number): number {
  const diagonal = Math.hypot(node.max[0] - node.min[0], node.max[1] - node.min[1], node.max[2] - node.min[2]);
  const edge = diagonal / Math.sqrt(Math.max(1, node.triangles));
  const error = Math.max(childError + simplifierError, 0.5 * edge);
  return error > childError ? error : childError * 1.5 + diagonal * 1e-6 + Number.EPSILON;
}

export function tileNode(
  mesh: TexturedMesh,
  address: string,
  groups: MaterialGroup[],
  children: MeshTileNode[],
  childError: number,
): MeshTileNode {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (const group of groups) {
    for (const v of group.indices) {
      for (let axis = 0; axis < 3; axis += 1) {
        const value = mesh.positions[v * 3 + axis]!;
        if (value < min[axis]!) min[axis] = value;
        if (value > max[axis]!) max[axis] = value;
      }
    }
  }
  // A parent's box holds its children's, as 3D Tiles asks.
  for (const child of children) {
    for (let axis = 0; axis < 3; axis += 1) {
      min[axis] = Math.min(min[axis]!, child.min[axis]!);
      max[axis] = Math.max(max[axis]!, child.max[axis]!);
    }
  }
  const triangles = groups.reduce((sum, group) => sum + group.indices.length / 3, 0);
  const height = children.length === 0 ? 0 : Math.max(...children.map((child) => child.height)) + 1;
  return { address, min, max, geometricError: childError, triangles, height, children };
}

function leafGroups(mesh: TexturedMesh, tris: Uint32Array): MaterialGroup[] {
  const counts = new Map<number, number>();
  for (const t of tris) counts.set(mesh.materialOf[t]!, (counts.get(mesh.materialOf[t]!) ?? 0) + 1);
  const groups = new Map<number, { indices: Uint32Array; at: number }>();
  for (const [material, count] of counts) groups.set(material, { indices: new Uint32Array(count * 3), at: 0 });
  for (const t of tris) {
    const group = groups.get(mesh.materialOf[t]!)!;
    group.indices.set(mesh.indices.subarray(t * 3, t * 3 + 3), group.at);
    group.at += 3;
  }
  return [...groups].sort(([a], [b]) => a - b).map(([material, { indices }]) => ({ material, indices }));
}

/** The children's triangles of each material, simplified together; the largest error reported (metres). */
export function simplifiedGroups(
  mesh: TexturedMesh,
  children: BuiltTile[],
  scratch: Int32Array,
): { groups: MaterialGroup[]; error: number } {
  const byMaterial = new Map<number, Uint32Array[]>();
  for (const child of children) {
    for (const group of child.groups) byMaterial.set(group.material, [...(byMaterial.get(group.material) ?? []), group.indices]);
  }
  let error = 0;
  const groups: MaterialGroup[] = [];
  for (const [material, parts] of [...byMaterial].sort(([a], [b]) => a - b)) {
    const simplified = simplifyGroup(mesh, concatenated(parts), scratch);
    error = Math.max(error, simplified.error);
    if (simplified.indices.length > 0) groups.push({ material, indices: simplified.indices });
  }
  return { groups, error };
}

/** Normals count as much as this against a position error relative to the mesh's extent. */
const NORMAL_WEIGHT = 0.5;
const COLOR_WEIGHT = 1;

/**
 * One material's triangles simplified to about `share` of them: their vertices copied out
 * (meshoptimizer copies every vertex it is given), simplified with their normals and colours
 * weighed in and the border locked; a tile that topology holds back (a triangle soup) goes
 * through the sloppy simplifier instead. Returns corners of the whole mesh again.
 */
export function simplifyGroup(
  mesh: TexturedMesh,
  indices: Uint32Array,
  scratch: Int32Array,
  share = PARENT_SHARE,
): { indices: Uint32Array; error: number } {
  const local = new Uint32Array(indices.length);
  const globalOf: number[] = [];
  for (let i = 0; i < indices.length; i += 1) {
    const v = indices[i]!;
    if (scratch[v] === -1) scratch[v] = globalOf.push(v) - 1;
    local[i] = scratch[v]!;
  }
  for (const v of globalOf) scratch[v] = -1;
  const count = globalOf.length;
  const positions = new Float32Array(count * 3);
  const stride = 3 + (mesh.colors ? 4 : 0);
  const attributes = new Float32Array(count * stride);
  for (let i = 0; i < count; i += 1) {
    const v = globalOf[i]!;
    positions.set(mesh.positions.subarray(v * 3, v * 3 + 3), i * 3);
    if (mesh.normals) attributes.set(mesh.normals.subarray(v * 3, v * 3 + 3), i * stride);
    if (mesh.colors) attributes.set(mesh.colors.subarray(v * 4, v * 4 + 4), i * stride + 3);
  }
  const weights = [
    NORMAL_WEIGHT,
    NORMAL_WEIGHT,
    NORMAL_WEIGHT,
    ...(mesh.colors ? [COLOR_WEIGHT, COLOR_WEIGHT, COLOR_WEIGHT, COLOR_WEIGHT] : []),
  ];
  const target = Math.max(3, Math.floor((indices.length / 3) * share) * 3);
  const scale = MeshoptSimplifier.getScale(positions, 3);
  let [result, error] = MeshoptSimplifier.simplifyWithAttributes(
    local,
    positions,
    3,
    attributes,
    stride,
    weights,
    null,
    target,
    1,
    ['LockBorder'],
  );
  if (result.length > indices.length * 2 * share)
    [result, error] = MeshoptSimplifier.simplifySloppy(local, positions, 3, null, target, 1);
  const out = new Uint32Array(result.length);
  for (let i = 0; i < result.length; i += 1) out[i] = globalOf[result[i]!]!;
  return { indices: out, error: error * scale };
}

/**
 * Splits triangles at the median centroid of the longest axis of their centroids' extent, in
 * place (the two halves are views of `tris`): the centroids are worked out as needed, not kept
 * for every triangle, to hold less memory.
 */
function splitInTwo(tris: Uint32Array, mesh: TexturedMesh): [Uint32Array, Uint32Array] {
  const centroid = (t: number, axis: number) =>
    mesh.positions[mesh.indices[t * 3]! * 3 + axis]! +
    mesh.positions[mesh.indices[t * 3 + 1]! * 3 + axis]! +
    mesh.positions[mesh.indices[t * 3 + 2]! * 3 + axis]!;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const t of tris) {
    for (let axis = 0; axis < 3; axis += 1) {
      const value = centroid(t, axis);
      if (value < min[axis]!) min[axis] = value;
      if (value > max[axis]!) max[axis] = value;
    }
  }
  const spans = [0, 1, 2].map((axis) => max[axis]! - min[axis]!);
  const axis = spans.indexOf(Math.max(...spans));
  const keys = new Float32Array(tris.length);
  for (let i = 0; i < tris.length; i += 1) keys[i] = centroid(tris[i]!, axis);
  const middle = tris.length >> 1;
  select(tris, keys, middle);
  return [tris.subarray(0, middle), tris.subarray(middle)];
}

/** Reorders `items` (and their `keys`) so that the one at `k` is where sorting by key would put it (quickselect). */
function select(items: Uint32Array, keys: Float32Array, k: number): void {
  let low = 0;
  let high = items.length - 1;
  while (high > low) {
    const pivot = keys[(low + high) >> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (keys[i]! < pivot) i += 1;
      while (keys[j]! > pivot) j -= 1;
      if (i <= j) {
        const item = items[i]!;
        items[i] = items[j]!;
        items[j] = item;
        const key = keys[i]!;
        keys[i] = keys[j]!;
        keys[j] = key;
        i += 1;
        j -= 1;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return;
  }
}

function concatenated(parts: Uint32Array[]): Uint32Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint32Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
