import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { scanObj } from '../models/obj-reader.js';
import { unreadableModel } from '../models/triangle-mesh.js';
import { DEFAULT_MATERIAL, type MeshMaterial, resolveReference, textureOf } from './textured-mesh.js';
import { WordFileWriter } from './word-files.js';

/** A face record: v, vt, vn of each of three corners (from 0, -1 where a corner has none), then the material. */
export const FACE_WORDS = 10;
/** Vertices kept to place the k-d planes of the mesh's parts (mesh-partition.ts). */
const SAMPLE_VERTICES = 65_536;

type Vec3 = [number, number, number];

/**
 * An OBJ parked on disk after one streaming read (docs/processing.md, "Meshes"): its v, vt and
 * vn as float records, its faces fanned into triangle records, and what the tiler needs before
 * the parts are read back: counts, bounds, a sample of the vertices, the materials.
 */
export interface ObjSpill {
  vertexFile: string;
  texcoordFile: string;
  normalFile: string;
  faceFile: string;
  vertices: number;
  triangles: number;
  anyTexcoord: boolean;
  anyNormal: boolean;
  /** The first vertex, in the file's own coordinates (doubles): the vertex records are relative to it, turned y-up. */
  origin: Vec3;
  /** The vertex records' box (relative to `origin`, y-up). */
  min: Vec3;
  max: Vec3;
  /** Every so many vertices' records (relative, y-up), x y z. */
  sample: Float32Array;
  materials: MeshMaterial[];
}

export interface SpillOptions {
  /** The file's z is up (an OBJ with a .prj: its axes are the system's east, north, up); else y is. */
  zUp: boolean;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/**
 * Reads the OBJ once through the preview's streaming parser (obj-reader.ts), writing what it
 * holds to files in `dir`: memory stays a few buffers whatever the file's size. Coordinates
 * are kept relative to the first vertex, so a mesh in projected coordinates (hundreds of
 * kilometres) keeps its millimetres as 32-bit floats. OBJ's texture v grows upward, glTF's
 * downward: v is flipped here. `usemtl` picks the material of the following faces from the
 * `mtllib` files (`Kd`, `d`, `map_Kd`); material 0 is for faces before any `usemtl`.
 */
export async function spillObj(main: string, byName: Map<string, string>, dir: string, options: SpillOptions): Promise<ObjSpill> {
  const vertices = new WordFileWriter(path.join(dir, 'v.bin'), 3);
  const texcoords = new WordFileWriter(path.join(dir, 'vt.bin'), 2);
  const normals = new WordFileWriter(path.join(dir, 'vn.bin'), 3);
  const faces = new WordFileWriter(path.join(dir, 'f.bin'), FACE_WORDS);
  const origin: Vec3 = [0, 0, 0];
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  const sample = new StrideSample(SAMPLE_VERTICES);
  const libraries: string[] = [];
  const materialNames: string[] = [];
  let material = -1;
  let anyTexcoord = false;
  let anyNormal = false;
  const turn = (x: number, y: number, z: number): Vec3 => (options.zUp ? [x, z, -y] : [x, y, z]);
  const size = (await stat(main)).size || 1;
  try {
    await scanObj(
      main,
      { signal: options.signal, onBytes: (bytes) => options.onProgress?.(bytes / size) },
      {
        vertex: (x, y, z) => {
          if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)))
            throw unreadableModel(
              `The OBJ file has a vertex whose coordinate is not a finite number (vertex ${vertices.count + 1})`,
            );
          if (vertices.count === 0) [origin[0], origin[1], origin[2]] = [x, y, z];
          const relative = turn(x - origin[0], y - origin[1], z - origin[2]);
          const slot = vertices.next();
          for (let axis = 0; axis < 3; axis += 1) {
            const value = relative[axis]!;
            vertices.floats[slot + axis] = value;
            if (value < min[axis]!) min[axis] = value;
            if (value > max[axis]!) max[axis] = value;
          }
          sample.add(vertices.floats, slot);
        },
        texcoord: (u, v) => {
          const slot = texcoords.next();
          texcoords.floats[slot] = u;
          texcoords.floats[slot + 1] = 1 - v;
        },
        normal: (x, y, z) => {
          const slot = normals.next();
          normals.floats.set(turn(x, y, z), slot);
        },
        library: (name) => libraries.push(name),
        material: (name) => {
          material = materialNames.indexOf(name);
          if (material < 0) material = materialNames.push(name) - 1;
        },
        triangle: () => {},
        face: (triples, count) => {
          for (let k = 0; k < count; k += 1) {
            if (triples[k * 3 + 1]! >= 0) anyTexcoord = true;
            if (triples[k * 3 + 2]! >= 0) anyNormal = true;
          }
          for (let k = 2; k < count; k += 1) {
            const slot = faces.next();
            faces.ints.set(triples.subarray(0, 3), slot);
            faces.ints.set(triples.subarray((k - 1) * 3, k * 3 + 3), slot + 3);
            faces.ints[slot + 9] = material + 1;
          }
        },
      },
    );
  } finally {
    for (const writer of [vertices, texcoords, normals, faces]) writer.close();
  }
  if (faces.count === 0) throw unreadableModel('The OBJ file has no faces (f statements)');
  const library = await readMaterialLibraries(libraries, byName);
  const materials: MeshMaterial[] = [
    DEFAULT_MATERIAL,
    ...materialNames.map((name) => library.get(name) ?? { ...DEFAULT_MATERIAL, name }),
  ];
  return {
    vertexFile: vertices.path,
    texcoordFile: texcoords.path,
    normalFile: normals.path,
    faceFile: faces.path,
    vertices: vertices.count,
    triangles: faces.count,
    anyTexcoord,
    anyNormal,
    origin,
    min,
    max,
    sample: sample.positions(),
    materials,
  };
}

/** Every `stride`-th vertex, the stride doubling (and every other kept one dropped) when full: a fixed-size, even sample of a stream. */
class StrideSample {
  private readonly values: Float32Array;
  private size = 0;
  private stride = 1;
  private seen = 0;

  constructor(private readonly capacity: number) {
    this.values = new Float32Array(capacity * 3);
  }

  add(source: Float32Array, at: number): void {
    if (this.seen++ % this.stride !== 0) return;
    if (this.size === this.capacity) {
      for (let i = 0; i < this.capacity / 2; i += 1) this.values.copyWithin(i * 3, i * 6, i * 6 + 3);
      this.size = this.capacity / 2;
      this.stride *= 2;
      if ((this.seen - 1) % this.stride !== 0) return;
    }
    this.values.set(source.subarray(at, at + 3), this.size * 3);
    this.size += 1;
  }

  positions(): Float32Array {
    return this.values.slice(0, this.size * 3);
  }
}

async function readMaterialLibraries(names: string[], byName: Map<string, string>): Promise<Map<string, MeshMaterial>> {
  const materials = new Map<string, MeshMaterial>();
  for (const name of names) {
    const text = await readFile(resolveReference(byName, name, 'OBJ'), 'utf8');
    let current: MeshMaterial | undefined;
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      const [keyword, ...rest] = line.split(/\s+/);
      if (keyword === 'newmtl') {
        current = { name: rest.join(' '), color: [1, 1, 1, 1] };
        materials.set(current.name, current);
      } else if (!current) {
      } else if (keyword === 'Kd' && rest.length >= 3) {
        const [r, g, b] = rest.map(Number);
        if ([r, g, b].every((c) => Number.isFinite(c))) current.color = [clamp(r!), clamp(g!), clamp(b!), current.color[3]];
      } else if (keyword === 'd' && rest.length >= 1 && Number.isFinite(Number(rest[0]))) {
        current.color[3] = clamp(Number(rest[0]));
      } else if (keyword === 'map_Kd' && rest.length >= 1) {
        // Options (-s, -o, -bm ...) come first; the file name is last.
        const file = rest.at(-1)!;
        const bytes = new Uint8Array(await readFile(resolveReference(byName, file, `material library ${name}`)));
        current.texture = textureOf(path.posix.basename(file.replaceAll('\\', '/')), bytes, `material library ${name}`);
      }
    }
  }
  return materials;
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, value));
}
