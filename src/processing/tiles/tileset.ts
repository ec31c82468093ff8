import { geometricErrorOf, tilesBox } from './octree-box.js';
import type { TileNode } from './octree-builder.js';

/** The tileset.json of OGC 3D Tiles 1.1 for an octree of point tiles. */
export interface Tile {
  boundingVolume: { box: number[] };
  geometricError: number;
  refine?: 'ADD' | 'REPLACE';
  content?: { uri: string };
  children?: Tile[];
}

export interface Tileset {
  asset: { version: '1.1'; generator?: string };
  geometricError: number;
  root: Tile;
}

function tileOf(node: TileNode): Tile {
  const tile: Tile = {
    boundingVolume: { box: tilesBox(node.box) },
    geometricError: node.geometricError,
    content: { uri: node.content },
  };
  if (node.children.length > 0) tile.children = node.children.map(tileOf);
  return tile;
}

export function tilesetOf(root: TileNode, tilePoints: number): Tileset {
  const tile = tileOf(root);
  // Every tile adds its points to its parent's; children inherit ADD from the root.
  tile.refine = 'ADD';
  // Below this error nothing of the cloud is drawn; one level coarser than the root's own.
  const geometricError = Math.max(2 * root.geometricError, geometricErrorOf(root.box, tilePoints) * 2);
  return { asset: { version: '1.1', generator: 'Reality Data Platform' }, geometricError, root: tile };
}
