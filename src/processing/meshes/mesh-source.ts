import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { crsOfWkt } from '../../domain/georeferencing/declared-crs.js';
import { type Georeference, georeferenceOf } from '../../domain/georeferencing/georeference.js';
import { checkMesh } from '../models/triangle-mesh.js';
import { readTexturedGltf } from './gltf-mesh.js';
import { MeshPartition, readPart, splitFaces } from './mesh-partition.js';
import type { MeshPart } from './mesh-top-levels.js';
import { spillObj } from './obj-spill.js';
import { readPlyMesh } from './ply-mesh.js';
import type { TexturedMesh } from './textured-mesh.js';

export interface MeshInputFiles {
  /** The main mesh file (OBJ, glTF, GLB or PLY with faces), a path on disk. */
  main: string;
  /** Every file of the upload session by its name as uploaded (the main one included):
   *  the mesh's relative references (mtllib, map_Kd, glTF buffers/images uri) resolve by name among these. */
  byName: Map<string, string>;
}

type Vec3 = [number, number, number];

/**
 * A mesh ready to tile: its parts (one for a mesh read whole), the depth of the partition that
 * cut them, and its frame: the parts' coordinates are glTF's (y up) relative to a point, and
 * `offset` (doubles, glTF axes) is what the tiles add back to their centres, in the tileset's
 * frame (docs/processing.md, "Meshes").
 */
export interface MeshSource {
  parts: MeshPart[];
  depth: number;
  triangles: number;
  offset: Vec3;
  georeference: Georeference;
}

export interface SourceOptions {
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  /** The most triangles a part holds (MESH_PART_TRIANGLES), smaller in tests. */
  partTriangles?: number;
}

const LOCAL: Georeference = { georeferenced: false, reason: 'noCoordinateSystem' };

/**
 * Opens the input: an OBJ is read once to files in `spillDir` and cut into parts read back one
 * at a time (bounded memory); glTF, GLB and PLY are read whole (their readers take the whole
 * file) and are one part. An OBJ with a `.prj` beside it is in that coordinate system, its
 * axes east, north, up.
 */
export async function openMesh(input: MeshInputFiles, spillDir: string, options: SourceOptions = {}): Promise<MeshSource> {
  const format = await formatOf(input.main);
  const onProgress = (fraction: number) => options.onProgress?.(0.3 * fraction);
  if (format !== 'obj') {
    const mesh = format === 'ply' ? await readPlyMesh(input.main) : await readTexturedGltf(input.main, format, input.byName);
    checkMesh(mesh, 'mesh');
    const triangles = mesh.indices.length / 3;
    return { parts: [{ triangles, read: async () => mesh }], depth: 0, triangles, offset: [0, 0, 0], georeference: LOCAL };
  }
  const prj = await projectionBeside(input);
  const declared = prj === undefined ? undefined : crsOfWkt(prj, 'prj');
  const spill = await spillObj(input.main, input.byName, spillDir, {
    zUp: declared !== undefined,
    onProgress,
    signal: options.signal,
  });
  const partition = MeshPartition.of(spill, options.partTriangles);
  const split = await splitFaces(spill, partition, spillDir);
  const parts = split.files.map((file, i) => ({ triangles: split.triangles[i]!, read: () => readPart(spill, file) }));
  // The parts are relative to the first vertex (y up); the tileset's frame is the file's own, or on the globe relative to the centre.
  const turn = declared ? ([x, y, z]: Vec3): Vec3 => [x, z, -y] : (v: Vec3) => v;
  const unturn = declared ? ([x, y, z]: Vec3): Vec3 => [x, -z, y] : (v: Vec3) => v;
  const centre = unturn([0, 1, 2].map((axis) => (spill.min[axis]! + spill.max[axis]!) / 2) as Vec3);
  const georeference = declared
    ? georeferenceOf(declared, [0, 1, 2].map((axis) => spill.origin[axis]! + centre[axis]!) as Vec3)
    : LOCAL;
  const base = georeference.georeferenced ? georeference.origin : [0, 0, 0];
  const offset = turn([0, 1, 2].map((axis) => spill.origin[axis]! - base[axis]!) as Vec3);
  return { parts, depth: partition.depth, triangles: spill.triangles, offset, georeference };
}

/** The whole input as one mesh, read by the same readers (the benchmark's baseline). */
export async function readWholeMesh(input: MeshInputFiles, spillDir: string): Promise<TexturedMesh> {
  const source = await openMesh(input, spillDir, { partTriangles: Number.POSITIVE_INFINITY });
  return source.parts[0]!.read();
}

/** The text of the `.prj` beside an OBJ: the one of its name, else the upload's only one. */
async function projectionBeside(input: MeshInputFiles): Promise<string | undefined> {
  const names = [...input.byName.keys()].filter((name) => name.toLowerCase().endsWith('.prj'));
  const mainName = [...input.byName].find(([, file]) => file === input.main)?.[0] ?? path.basename(input.main);
  const stem = mainName.replace(/\.[^.]*$/, '').toLowerCase();
  const chosen = names.find((name) => name.slice(0, -4).toLowerCase() === stem) ?? (names.length === 1 ? names[0] : undefined);
  return chosen === undefined ? undefined : readFile(input.byName.get(chosen)!, 'utf8');
}

type MeshFormat = 'obj' | 'gltf' | 'glb' | 'ply';

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
