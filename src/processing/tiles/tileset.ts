import { geometricErrorOf, tilesBox } from './octree-box.js';
import type { TileNode } from './octree-builder.js';

/** The tileset.json of OGC 3D Tiles 1.1 for an octree of point tiles. */
export interface Tile {
  boundingVolume: { box: number[] };
  geometricError: number;
  refine?: 'ADD' | 'REPLACE';
  content?: { uri: string };
  children?: Tile[];
  /** Column-major 4x4 from the tile's frame to its parent's (the root's: to ECEF). */
  transform?: number[];
}

export interface Tileset {
  asset: { version: '1.1'; generator?: string; extras?: Record<string, unknown> };
  geometricError: number;
  root: Tile;
}

/**
 * Where the tileset sits: `origin` (file coordinates) is subtracted from every box, as the
 * contents' node translations subtract it (point-content.ts); `transform` puts the root on the
 * globe; `extras` say which frame the tileset is in.
 */
export interface TilesetFrame {
  origin?: readonly [number, number, number];
  transform?: number[];
  extras?: Record<string, unknown>;
}

function tileOf(node: TileNode, origin: TilesetFrame['origin']): Tile {
  const box = tilesBox(node.box);
  if (origin) for (let axis = 0; axis < 3; axis += 1) box[axis]! -= origin[axis]!;
  const tile: Tile = {
    boundingVolume: { box },
    geometricError: node.geometricError,
    content: { uri: node.content },
  };
  if (node.children.length > 0) tile.children = node.children.map((child) => tileOf(child, origin));
  return tile;
}

export function tilesetOf(root: TileNode, tilePoints: number, frame: TilesetFrame = {}): Tileset {
  const tile = tileOf(root, frame.origin);
  // Every tile adds its points to its parent's; children inherit ADD from the root.
  tile.refine = 'ADD';
  if (frame.transform) tile.transform = frame.transform;
  // Below this error nothing of the cloud is drawn; one level coarser than the root's own.
  const geometricError = Math.max(2 * root.geometricError, geometricErrorOf(root.box, tilePoints) * 2);
  const asset: Tileset['asset'] = { version: '1.1', generator: 'Reality Data Platform' };
  if (frame.extras) asset.extras = frame.extras;
  return { asset, geometricError, root: tile };
}
