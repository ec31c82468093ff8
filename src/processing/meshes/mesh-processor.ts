import { mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderModelThumbnail } from '../models/rasterizer.js';
import { checkMesh } from '../models/triangle-mesh.js';
import { readTexturedGltf } from './gltf-mesh.js';
import { meshContentGlb } from './mesh-content.js';
import { MESH_LEAF_TRIANGLES, type MeshTileNode, tileMesh } from './mesh-tiler.js';
import { readTexturedObj } from './obj-mesh.js';
import { readPlyMesh } from './ply-mesh.js';
import { TextureLevels } from './texture-levels.js';
import type { TexturedMesh } from './textured-mesh.js';

export interface MeshInputFiles {
  /** The main mesh file (OBJ, glTF, GLB or PLY with faces), a path on disk. */
  main: string;
  /** Every file of the upload session by its name as uploaded (the main one included):
   *  the mesh's relative references (mtllib, map_Kd, glTF buffers/images uri) resolve by name among these. */
  byName: Map<string, string>;
}

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

/** processMesh with the leaf size chosen: the tests make several levels of small meshes. */
export async function tileMeshFiles(
  input: MeshInputFiles,
  outputDir: string,
  options: MeshProcessOptions & { leafTriangles: number },
): Promise<MeshProcessResult> {
  const mesh = await readMesh(input, options);
  options.signal?.throwIfAborted();
  checkMesh(mesh, 'mesh');
  const triangles = mesh.indices.length / 3;
  options.onProgress?.(0.3);
  await mkdir(path.join(outputDir, 'tiles'), { recursive: true });
  const files: string[] = [];
  const textures = new TextureLevels();
  const scratch = new Int32Array(mesh.positions.length / 3).fill(-1);
  let placed = 0;
  const root = await tileMesh(mesh, {
    leafTriangles: options.leafTriangles,
    signal: options.signal,
    write: async (node, groups) => {
      const file = `tiles/${node.address}.glb`;
      await writeFile(path.join(outputDir, file), await meshContentGlb(mesh, node, groups, textures, scratch));
      files.push(file);
    },
    onLeafTriangles: (count) => {
      placed += count;
      options.onProgress?.(0.3 + (0.65 * placed) / triangles);
    },
  });
  const rootTile = tileOf(root);
  rootTile.refine = 'REPLACE';
  const diagonal = Math.hypot(...[0, 1, 2].map((axis) => root.max[axis]! - root.min[axis]!));
  const tileset = {
    asset: { version: '1.1', generator: 'Reality Data Platform' },
    // Below this error nothing of the mesh is drawn: coarser than the root's own.
    geometricError: Math.max(2 * root.geometricError, diagonal / 2),
    root: rootTile,
  };
  await writeFile(path.join(outputDir, 'tileset.json'), JSON.stringify(tileset));
  await writeFile(path.join(outputDir, 'thumbnail.png'), renderModelThumbnail(mesh));
  options.onProgress?.(1);
  return {
    kind: 'mesh',
    tilesetPath: 'tileset.json',
    files: ['tileset.json', ...files, 'thumbnail.png'],
    thumbnailPath: 'thumbnail.png',
    triangles,
    bounds: { min: [root.min[0], -root.max[2], root.min[1]], max: [root.max[0], -root.min[2], root.max[1]] },
  };
}

interface TileJson {
  boundingVolume: { box: number[] };
  geometricError: number;
  refine?: 'REPLACE';
  content: { uri: string };
  children?: TileJson[];
}

/** glTF's (x, y, z) is the tileset's (x, -z, y): the box's centre and half axes turn so. */
function tileOf(node: MeshTileNode): TileJson {
  const c = [0, 1, 2].map((axis) => (node.min[axis]! + node.max[axis]!) / 2);
  // A hair of padding so float rounding of the content stays inside; a flat tile keeps a volume.
  const h = [0, 1, 2].map((axis) => Math.max(0.0005, ((node.max[axis]! - node.min[axis]!) / 2) * 1.000001));
  const tile: TileJson = {
    boundingVolume: { box: [c[0]!, -c[2]!, c[1]!, h[0]!, 0, 0, 0, h[2]!, 0, 0, 0, h[1]!] },
    geometricError: node.geometricError,
    content: { uri: `tiles/${node.address}.glb` },
  };
  if (node.children.length > 0) tile.children = node.children.map(tileOf);
  return tile;
}

type MeshFormat = 'obj' | 'gltf' | 'glb' | 'ply';

/** The input mesh, whatever its format (exported for the benchmark's baseline). */
export async function readMesh(input: MeshInputFiles, options: MeshProcessOptions = {}): Promise<TexturedMesh> {
  const format = await formatOf(input.main);
  const onProgress = (fraction: number) => options.onProgress?.(0.3 * fraction);
  switch (format) {
    case 'obj':
      return readTexturedObj(input.main, input.byName, { onProgress, signal: options.signal });
    case 'ply':
      return readPlyMesh(input.main);
    default:
      return readTexturedGltf(input.main, format, input.byName);
  }
}

/** The format by the file's first bytes (GLB and PLY have magic numbers, a .gltf is JSON), else its extension. */
async function formatOf(file: string): Promise<MeshFormat> {
  const handle = await open(file, 'r');
  const head = Buffer.alloc(16);
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  if (head.toString('latin1', 0, 4) === 'glTF') return 'glb';
  if (head.toString('latin1', 0, 4) === 'ply\n' || head.toString('latin1', 0, 5) === 'ply\r\n') return 'ply';
  const extension = path.extname(file).toLowerCase();
  if (extension === '.gltf' || head.toString('latin1').trimStart().startsWith('{')) return 'gltf';
  // Anything else is read as OBJ text, whose reader names what it cannot read.
  return 'obj';
}
