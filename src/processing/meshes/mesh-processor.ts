import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Georeference } from '../../domain/georeferencing/georeference.js';
import { renderModelThumbnail } from '../models/rasterizer.js';
import { meshContentGlb } from './mesh-content.js';
import { type MeshInputFiles, openMesh } from './mesh-source.js';
import { MESH_LEAF_TRIANGLES, type MeshTileNode } from './mesh-tiler.js';
import { tileParts } from './mesh-top-levels.js';
import { TextureLevels } from './texture-levels.js';
import type { TexturedMesh } from './textured-mesh.js';

export type { MeshInputFiles } from './mesh-source.js';

export interface MeshProcessResult {
  kind: 'mesh';
  /** Relative to outputDir: 'tileset.json' (same as point clouds: src/domain/processing/tileset-files.ts). */
  tilesetPath: string;
  /** Every file written, relative to outputDir: tileset.json, tiles/*.glb, thumbnail.png. */
  files: string[];
  thumbnailPath: string;
  /** Input triangles, and the tiles' box in the tileset frame. */
  triangles: number;
  bounds: { min: [number, number, number]; max: [number, number, number] };
  /** The tileset's frame: the coordinate system of a .prj beside an OBJ, else the mesh's own frame. */
  georeference: Georeference;
  /** The parts the mesh was cut into and read one at a time (1: read whole). */
  parts: number;
}

export interface MeshProcessOptions {
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/** A mesh as 3D Tiles 1.1 of GLB tiles and a thumbnail (docs/design/meshes.md, docs/processing.md "Meshes"). */
export function processMesh(
  input: MeshInputFiles,
  outputDir: string,
  options: MeshProcessOptions = {},
): Promise<MeshProcessResult> {
  return tileMeshFiles(input, outputDir, { ...options, leafTriangles: MESH_LEAF_TRIANGLES });
}

type Vec3 = [number, number, number];

/** processMesh with the leaf and part sizes chosen: the tests make several levels and parts of small meshes. */
export async function tileMeshFiles(
  input: MeshInputFiles,
  outputDir: string,
  options: MeshProcessOptions & { leafTriangles: number; partTriangles?: number },
): Promise<MeshProcessResult> {
  await mkdir(path.join(outputDir, 'tiles'), { recursive: true });
  const spillDir = path.join(outputDir, '.spill');
  await mkdir(spillDir, { recursive: true });
  try {
    const source = await openMesh(input, spillDir, options);
    options.signal?.throwIfAborted();
    const { triangles, offset } = source;
    options.onProgress?.(0.3);
    const files: string[] = [];
    const textures = new TextureLevels();
    const scratches = new WeakMap<TexturedMesh, Int32Array>();
    let placed = 0;
    const root = await tileParts(source.parts, source.depth, {
      leafTriangles: options.leafTriangles,
      signal: options.signal,
      write: async (node, groups, mesh) => {
        const scratch = scratches.get(mesh) ?? new Int32Array(mesh.positions.length / 3).fill(-1);
        scratches.set(mesh, scratch);
        const file = `tiles/${node.address}.glb`;
        await writeFile(path.join(outputDir, file), await meshContentGlb(mesh, node, groups, textures, scratch, offset));
        files.push(file);
      },
      onLeafTriangles: (count) => {
        placed += count;
        options.onProgress?.(0.3 + (0.65 * placed) / triangles);
      },
    });
    const rootTile = tileOf(root.node, offset);
    rootTile.refine = 'REPLACE';
    if (source.georeference.georeferenced) rootTile.transform = source.georeference.transform;
    const { node } = root;
    const diagonal = Math.hypot(...[0, 1, 2].map((axis) => node.max[axis]! - node.min[axis]!));
    const tileset = {
      asset: { version: '1.1', generator: 'Reality Data Platform', extras: { georeference: frameRecord(source.georeference) } },
      // Below this error nothing of the mesh is drawn: coarser than the root's own.
      geometricError: Math.max(2 * node.geometricError, diagonal / 2),
      root: rootTile,
    };
    await writeFile(path.join(outputDir, 'tileset.json'), JSON.stringify(tileset));
    await writeFile(path.join(outputDir, 'thumbnail.png'), renderModelThumbnail(root.mesh));
    options.onProgress?.(1);
    const min = [0, 1, 2].map((axis) => node.min[axis]! + offset[axis]!) as Vec3;
    const max = [0, 1, 2].map((axis) => node.max[axis]! + offset[axis]!) as Vec3;
    return {
      kind: 'mesh',
      tilesetPath: 'tileset.json',
      files: ['tileset.json', ...files, 'thumbnail.png'],
      thumbnailPath: 'thumbnail.png',
      triangles,
      bounds: { min: [min[0], -max[2], min[1]], max: [max[0], -min[2], max[1]] },
      georeference: source.georeference,
      parts: source.parts.length,
    };
  } finally {
    await rm(spillDir, { recursive: true, force: true });
  }
}

/** What tileset.json says of its frame: the georeference without the matrix, which is the root's transform. */
function frameRecord(georeference: Georeference): Record<string, unknown> {
  if (!georeference.georeferenced) return { ...georeference };
  const { transform: _transform, ...rest } = georeference;
  return rest;
}

interface TileJson {
  boundingVolume: { box: number[] };
  geometricError: number;
  refine?: 'REPLACE';
  transform?: number[];
  content: { uri: string };
  children?: TileJson[];
}

/** glTF's (x, y, z) is the tileset's (x, -z, y): the box's centre and half axes turn so. */
function tileOf(node: MeshTileNode, offset: Vec3): TileJson {
  const c = [0, 1, 2].map((axis) => (node.min[axis]! + node.max[axis]!) / 2 + offset[axis]!);
  // A hair of padding so float rounding of the content stays inside; a flat tile keeps a volume.
  const h = [0, 1, 2].map((axis) => Math.max(0.0005, ((node.max[axis]! - node.min[axis]!) / 2) * 1.000001));
  const tile: TileJson = {
    boundingVolume: { box: [c[0]!, -c[2]!, c[1]!, h[0]!, 0, 0, 0, h[2]!, 0, 0, 0, h[1]!] },
    geometricError: node.geometricError,
    content: { uri: `tiles/${node.address}.glb` },
  };
  if (node.children.length > 0) tile.children = node.children.map((child) => tileOf(child, offset));
  return tile;
}
