import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { vertexNormals } from '../models/triangle-mesh.js';
import { FACE_WORDS, type ObjSpill } from './obj-spill.js';
import { type TexturedMesh, unitNormals } from './textured-mesh.js';
import { readWordFile, readWordRecords, WordFileWriter } from './word-files.js';

/** The most triangles read into memory at once: a larger mesh is cut into parts of about this many (docs/processing.md, "Meshes"). */
export const MESH_PART_TRIANGLES = 1 << 20;

/**
 * The top of the k-d tree, cut before the triangles are read back: `depth` halvings (always
 * even, two per level of tiles), each at the median of a sample of the vertices along the
 * longest axis of the sample's part. Node n's children are 2n + 1 (below the plane) and 2n + 2;
 * the parts are the 2^depth nodes of the last row.
 */
export class MeshPartition {
  readonly parts: number;
  private readonly axes: Uint8Array;
  private readonly planes: Float32Array;

  constructor(
    sample: Float32Array,
    readonly depth: number,
  ) {
    this.parts = 2 ** depth;
    this.axes = new Uint8Array(this.parts - 1);
    this.planes = new Float32Array(this.parts - 1);
    const order = new Uint32Array(sample.length / 3);
    for (let i = 0; i < order.length; i += 1) order[i] = i;
    this.cut(sample, order, 0, 0);
  }

  /** A partition deep enough that each part holds about `partTriangles` triangles or fewer. */
  static of(spill: Pick<ObjSpill, 'sample' | 'triangles'>, partTriangles = MESH_PART_TRIANGLES): MeshPartition {
    let depth = 0;
    while (spill.triangles / 2 ** depth > partTriangles && depth < 8) depth += 2;
    return new MeshPartition(spill.sample, depth);
  }

  /** The part holding a point. */
  partOf(x: number, y: number, z: number): number {
    let node = 0;
    for (let level = 0; level < this.depth; level += 1) {
      const axis = this.axes[node]!;
      const value = axis === 0 ? x : axis === 1 ? y : z;
      node = 2 * node + (value < this.planes[node]! ? 1 : 2);
    }
    return node - (this.parts - 1);
  }

  private cut(sample: Float32Array, order: Uint32Array, node: number, level: number): void {
    if (level === this.depth) return;
    const min = [Infinity, Infinity, Infinity];
    const max = [-Infinity, -Infinity, -Infinity];
    for (const i of order) {
      for (let axis = 0; axis < 3; axis += 1) {
        min[axis] = Math.min(min[axis]!, sample[i * 3 + axis]!);
        max[axis] = Math.max(max[axis]!, sample[i * 3 + axis]!);
      }
    }
    const spans = [0, 1, 2].map((axis) => max[axis]! - min[axis]!);
    const axis = spans.indexOf(Math.max(...spans));
    const sorted = Array.from(order).sort((a, b) => sample[a * 3 + axis]! - sample[b * 3 + axis]!);
    const middle = sorted.length >> 1;
    this.axes[node] = Math.max(0, axis);
    // An empty part (a sample too small to reach it) sends everything below its plane.
    this.planes[node] = sorted.length === 0 ? Infinity : sample[sorted[middle]! * 3 + axis]!;
    this.cut(sample, Uint32Array.from(sorted.slice(0, middle)), 2 * node + 1, level + 1);
    this.cut(sample, Uint32Array.from(sorted.slice(middle)), 2 * node + 2, level + 1);
  }
}

/**
 * The OBJ's triangles written out by part: each triangle goes, whole, to the part of its first
 * corner, found from a byte per vertex (the only memory that grows with the mesh: a tenth of
 * what its positions would take). Returns each part's face file and triangles.
 */
export async function splitFaces(
  spill: ObjSpill,
  partition: MeshPartition,
  dir: string,
): Promise<{ files: string[]; triangles: number[] }> {
  if (partition.parts === 1) return { files: [spill.faceFile], triangles: [spill.triangles] };
  const partOfVertex = new Uint8Array(spill.vertices);
  for await (const block of readWordFile(spill.vertexFile, 3)) {
    const { floats } = block;
    for (let i = 0; i < block.count; i += 1)
      partOfVertex[block.first + i] = partition.partOf(floats[i * 3]!, floats[i * 3 + 1]!, floats[i * 3 + 2]!);
  }
  const writers = Array.from(
    { length: partition.parts },
    (_, part) => new WordFileWriter(path.join(dir, `f-${part}.bin`), FACE_WORDS, 4096),
  );
  try {
    for await (const block of readWordFile(spill.faceFile, FACE_WORDS)) {
      for (let i = 0; i < block.count; i += 1) {
        const record = block.ints.subarray(i * FACE_WORDS, (i + 1) * FACE_WORDS);
        const writer = writers[partOfVertex[record[0]!]!]!;
        writer.ints.set(record, writer.next());
      }
    }
  } finally {
    for (const writer of writers) writer.close();
  }
  await rm(spill.faceFile, { force: true });
  return { files: writers.map((writer) => writer.path), triangles: writers.map((writer) => writer.count) };
}

/**
 * One part's triangles read back as a textured mesh: the vertices, texture coordinates and
 * normals its faces use, read from the spill's files, and each distinct v/vt/vn corner made a
 * vertex. Normals an OBJ does not give are computed from the part's own triangles.
 */
export async function readPart(spill: ObjSpill, faceFile: string): Promise<TexturedMesh> {
  const faces = new Int32Array(await readWholeWords(faceFile));
  const triangles = faces.length / FACE_WORDS;
  const used = (offset: number) => {
    const values = new Uint32Array(triangles * 3);
    let count = 0;
    for (let t = 0; t < triangles; t += 1) {
      for (let k = 0; k < 3; k += 1) {
        const value = faces[t * FACE_WORDS + k * 3 + offset]!;
        if (value >= 0) values[count++] = value;
      }
    }
    return distinctSorted(values.subarray(0, count));
  };
  const vs = used(0);
  const vts = spill.anyTexcoord ? used(1) : new Uint32Array(0);
  const vns = spill.anyNormal ? used(2) : new Uint32Array(0);
  const sourceV = await readWordRecords(spill.vertexFile, 3, vs);
  const sourceVt = await readWordRecords(spill.texcoordFile, 2, vts);
  const sourceVn = await readWordRecords(spill.normalFile, 3, vns);

  // First the corners (each distinct v/vt/vn a vertex, numbered as met), then their attributes in arrays of the exact size.
  const corners = new CornerTable(vs.length);
  const indices = new Uint32Array(triangles * 3);
  const materialOf = new Uint16Array(triangles);
  for (let t = 0; t < triangles; t += 1) {
    const face = t * FACE_WORDS;
    materialOf[t] = faces[face + 9]!;
    for (let k = 0; k < 3; k += 1)
      indices[t * 3 + k] = corners.vertexOf(
        indexIn(vs, faces[face + k * 3]!),
        faces[face + k * 3 + 1]!,
        faces[face + k * 3 + 2]!,
      );
  }
  const vertices = corners.count;
  const positions = new Float32Array(vertices * 3);
  const uvs = spill.anyTexcoord ? new Float32Array(vertices * 2) : undefined;
  const normals = spill.anyNormal ? new Float32Array(vertices * 3) : undefined;
  for (let out = 0; out < vertices; out += 1) {
    const [v, vt, vn] = corners.cornerOf(out);
    positions.set(sourceV.subarray(v * 3, v * 3 + 3), out * 3);
    if (uvs && vt >= 0) {
      const at = indexIn(vts, vt) * 2;
      uvs.set(sourceVt.subarray(at, at + 2), out * 2);
    }
    if (normals && vn >= 0) {
      const at = indexIn(vns, vn) * 3;
      normals.set(sourceVn.subarray(at, at + 3), out * 3);
    }
  }
  const mesh: TexturedMesh = {
    positions,
    indices,
    materialOf,
    materials: spill.materials,
  };
  if (uvs) mesh.uvs = uvs;
  mesh.normals = normals ? unitNormals(normals, () => vertexNormals(mesh)) : vertexNormals(mesh);
  return mesh;
}

async function readWholeWords(file: string): Promise<ArrayBuffer> {
  const bytes = await readFile(file);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

function distinctSorted(values: Uint32Array): Uint32Array {
  values.sort();
  let count = 0;
  for (let i = 0; i < values.length; i += 1) if (i === 0 || values[i] !== values[i - 1]) values[count++] = values[i]!;
  return values.slice(0, count);
}

/** Where `value` is in the sorted `values` (it is there). */
function indexIn(values: Uint32Array, value: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The vertex of each distinct v/vt/vn corner (v part-local), numbered in the order met: a
 * chained list per source vertex in typed arrays, an entry being next, v, vt, vn.
 */
class CornerTable {
  count = 0;
  private readonly head: Int32Array;
  private entries = new Int32Array(4096);

  constructor(vertices: number) {
    this.head = new Int32Array(vertices).fill(-1);
  }

  vertexOf(v: number, vt: number, vn: number): number {
    for (let e = this.head[v]!; e >= 0; e = this.entries[e * 4]!) {
      if (this.entries[e * 4 + 2] === vt && this.entries[e * 4 + 3] === vn) return e;
    }
    if ((this.count + 1) * 4 > this.entries.length) {
      const entries = new Int32Array(this.entries.length * 2);
      entries.set(this.entries);
      this.entries = entries;
    }
    const e = this.count++;
    this.entries[e * 4] = this.head[v]!;
    this.entries[e * 4 + 1] = v;
    this.entries[e * 4 + 2] = vt;
    this.entries[e * 4 + 3] = vn;
    this.head[v] = e;
    return e;
  }

  cornerOf(vertex: number): [number, number, number] {
    return [this.entries[vertex * 4 + 1]!, this.entries[vertex * 4 + 2]!, this.entries[vertex * 4 + 3]!];
  }
}
