import {
  type BuiltTile,
  type MaterialGroup,
  parentError,
  simplifiedGroups,
  type TilerOptions,
  tileMesh,
  tileNode,
} from './mesh-tiler.js';
import type { TexturedMesh } from './textured-mesh.js';

/** A part of the mesh as the partition cut it: its triangles, read into memory only when its turn comes. */
export interface MeshPart {
  triangles: number;
  read: () => Promise<TexturedMesh>;
}

/** A tile with its content as a mesh of its own: all that is kept of a part once it is tiled. */
export interface StandaloneTile extends BuiltTile {
  mesh: TexturedMesh;
}

/**
 * Tiles a mesh cut into parts by a k-d partition of `depth` halvings (mesh-partition.ts): each
 * part, one at a time, is tiled in memory under its address (tileMesh, its border locked like
 * any tile's); above them, each tile of the top levels is its (up to four) children's contents
 * welded into one mesh and simplified as any parent is. Only the parts' root contents are held
 * between parts. Returns the root with its content.
 */
export async function tileParts(parts: MeshPart[], depth: number, options: TilerOptions): Promise<StandaloneTile> {
  const firstPart = 2 ** depth - 1;
  const build = async (node: number, level: number, address: string): Promise<StandaloneTile | undefined> => {
    options.signal?.throwIfAborted();
    if (level === depth) {
      const part = parts[node - firstPart]!;
      if (part.triangles === 0) return undefined;
      const mesh = await part.read();
      return standalone(mesh, await tileMesh(mesh, { ...options, address }));
    }
    const children: StandaloneTile[] = [];
    let index = 0;
    for (const half of [2 * node + 1, 2 * node + 2]) {
      for (const quarter of [2 * half + 1, 2 * half + 2]) {
        const child = await build(quarter, level + 2, `${address}${index++}`);
        if (child) children.push(child);
      }
    }
    if (children.length <= 1) return children[0];
    const merged = welded(children);
    const scratch = new Int32Array(merged.mesh.positions.length / 3).fill(-1);
    const simplified = simplifiedGroups(merged.mesh, merged.tiles, scratch);
    const childError = Math.max(...children.map((child) => child.node.geometricError));
    const tile = tileNode(
      merged.mesh,
      address,
      simplified.groups,
      children.map((child) => child.node),
      childError,
    );
    tile.geometricError = parentError(tile, childError, simplified.error);
    await options.write(tile, simplified.groups, merged.mesh);
    return standalone(merged.mesh, { node: tile, groups: simplified.groups });
  };
  const root = await build(0, 0, options.address ?? 'r');
  if (!root) throw new Error('The mesh has no triangles in any part');
  return root;
}

const ATTRIBUTES = ['positions', 'normals', 'uvs', 'colors'] as const;
const WIDTH = { positions: 3, normals: 3, uvs: 2, colors: 4 } as const;

/** A tile's content as a mesh holding only the vertices it uses, its groups renumbered. */
export function standalone(mesh: TexturedMesh, tile: BuiltTile): StandaloneTile {
  const renumbered = new Int32Array(mesh.positions.length / 3).fill(-1);
  const kept: number[] = [];
  const groups: MaterialGroup[] = tile.groups.map((group) => ({
    material: group.material,
    indices: group.indices.map((v) => {
      if (renumbered[v] === -1) renumbered[v] = kept.push(v) - 1;
      return renumbered[v]!;
    }),
  }));
  const out: TexturedMesh = {
    positions: new Float32Array(0),
    indices: concatenated(groups.map((group) => group.indices)),
    materialOf: Uint16Array.from(groups.flatMap((group) => new Array<number>(group.indices.length / 3).fill(group.material))),
    materials: mesh.materials,
  };
  for (const name of ATTRIBUTES) {
    const source = mesh[name];
    if (!source) continue;
    const width = WIDTH[name];
    const values = new Float32Array(kept.length * width);
    for (let i = 0; i < kept.length; i += 1) values.set(source.subarray(kept[i]! * width, (kept[i]! + 1) * width), i * width);
    out[name] = values;
  }
  return { node: tile.node, groups, mesh: out };
}

/**
 * The children's contents as one mesh, a vertex they share (the same position and attributes,
 * as on the border of two parts) made one, so that the parent's simplifier sees across it;
 * each child's groups as corners of the welded mesh.
 */
function welded(children: StandaloneTile[]): { mesh: TexturedMesh; tiles: BuiltTile[] } {
  const first = children[0]!.mesh;
  const present = ATTRIBUTES.filter((name) => first[name] !== undefined);
  const total = children.reduce((sum, child) => sum + child.mesh.positions.length / 3, 0);
  const arrays = Object.fromEntries(present.map((name) => [name, new Float32Array(total * WIDTH[name])])) as Record<
    (typeof ATTRIBUTES)[number],
    Float32Array
  >;
  const vertexOf = new Map<string, number>();
  let count = 0;
  const tiles = children.map((child) => {
    const mesh = child.mesh;
    const vertices = mesh.positions.length / 3;
    const target = new Uint32Array(vertices);
    for (let v = 0; v < vertices; v += 1) {
      const key = present
        .map((name) => Array.from(mesh[name]!.subarray(v * WIDTH[name], (v + 1) * WIDTH[name])).join())
        .join(';');
      let at = vertexOf.get(key);
      if (at === undefined) {
        at = count++;
        vertexOf.set(key, at);
        for (const name of present)
          arrays[name].set(mesh[name]!.subarray(v * WIDTH[name], (v + 1) * WIDTH[name]), at * WIDTH[name]);
      }
      target[v] = at;
    }
    const groups = child.groups.map((group) => ({ material: group.material, indices: group.indices.map((v) => target[v]!) }));
    return { node: child.node, groups };
  });
  const indices = concatenated(tiles.flatMap((tile) => tile.groups.map((group) => group.indices)));
  const mesh: TexturedMesh = {
    positions: arrays.positions.slice(0, count * 3),
    indices,
    materialOf: Uint16Array.from(
      tiles.flatMap((tile) => tile.groups.flatMap((group) => new Array<number>(group.indices.length / 3).fill(group.material))),
    ),
    materials: first.materials,
  };
  for (const name of present) if (name !== 'positions') mesh[name] = arrays[name].slice(0, count * WIDTH[name]);
  return { mesh, tiles };
}

function concatenated(parts: Uint32Array[]): Uint32Array {
  const out = new Uint32Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
