import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { scanObj } from '../models/obj-reader.js';
import { GrowableFloat32, GrowableUint32, unreadableModel, vertexNormals } from '../models/triangle-mesh.js';
import {
  DEFAULT_MATERIAL,
  type MeshMaterial,
  resolveReference,
  type TexturedMesh,
  textureOf,
  unitNormals,
} from './textured-mesh.js';

/**
 * A textured OBJ through the preview's streaming parser (obj-reader.ts) with its extra
 * statements: each distinct v/vt/vn corner becomes a vertex; `usemtl` picks the material of the
 * following faces from the `mtllib` files (`Kd`, `d`, `map_Kd`). OBJ's texture v grows upward,
 * glTF's downward: v is flipped here.
 */
export async function readTexturedObj(
  main: string,
  byName: Map<string, string>,
  options: { onProgress?: (fraction: number) => void; signal?: AbortSignal } = {},
): Promise<TexturedMesh> {
  const sourceV = new GrowableFloat32();
  const sourceVt = new GrowableFloat32();
  const sourceVn = new GrowableFloat32();
  const positions = new GrowableFloat32();
  const uvs = new GrowableFloat32();
  const normals = new GrowableFloat32();
  const indices = new GrowableUint32();
  const materialOf = new GrowableUint32();
  const corners = new CornerTable();
  const libraries: string[] = [];
  const materialNames: string[] = [];
  let material = -1;
  let anyTexcoord = false;
  let anyNormal = false;
  const size = (await stat(main)).size || 1;
  const vertexOf = (v: number, vt: number, vn: number): number => {
    const found = corners.find(v, vt, vn);
    if (found >= 0) return found;
    const out = positions.length / 3;
    positions.push3(sourceV.array[v * 3]!, sourceV.array[v * 3 + 1]!, sourceV.array[v * 3 + 2]!);
    if (vt >= 0) {
      anyTexcoord = true;
      uvs.push3(sourceVt.array[vt * 3]!, 1 - sourceVt.array[vt * 3 + 1]!, 0);
    } else uvs.push3(0, 0, 0);
    if (vn >= 0) {
      anyNormal = true;
      normals.push3(sourceVn.array[vn * 3]!, sourceVn.array[vn * 3 + 1]!, sourceVn.array[vn * 3 + 2]!);
    } else normals.push3(0, 0, 0);
    corners.add(v, vt, vn, out);
    return out;
  };
  await scanObj(
    main,
    { signal: options.signal, onBytes: (bytes) => options.onProgress?.(bytes / size) },
    {
      vertex: (x, y, z) => sourceV.push3(x, y, z),
      texcoord: (u, v) => sourceVt.push3(u, v, 0),
      normal: (x, y, z) => sourceVn.push3(x, y, z),
      library: (name) => libraries.push(name),
      material: (name) => {
        material = materialNames.indexOf(name);
        if (material < 0) material = materialNames.push(name) - 1;
      },
      triangle: () => {},
      face: (triples, count) => {
        const first = vertexOf(triples[0]!, triples[1]!, triples[2]!);
        let previous = vertexOf(triples[3]!, triples[4]!, triples[5]!);
        for (let k = 2; k < count; k += 1) {
          const next = vertexOf(triples[k * 3]!, triples[k * 3 + 1]!, triples[k * 3 + 2]!);
          indices.push3(first, previous, next);
          materialOf.push(material + 1);
          previous = next;
        }
      },
    },
  );
  if (indices.length === 0) throw unreadableModel('The OBJ file has no faces (f statements)');
  const library = await readMaterialLibraries(libraries, byName);
  // Material 0 is for faces before any usemtl, or naming a material no library defines.
  const materials: MeshMaterial[] = [
    DEFAULT_MATERIAL,
    ...materialNames.map((name) => library.get(name) ?? { ...DEFAULT_MATERIAL, name }),
  ];
  const mesh: TexturedMesh = {
    positions: positions.trimmed(),
    indices: indices.trimmed(),
    materialOf: Uint16Array.from(materialOf.array.subarray(0, materialOf.length)),
    materials,
  };
  if (anyTexcoord) mesh.uvs = compact2(uvs.trimmed());
  mesh.normals = anyNormal ? unitNormals(normals.trimmed(), () => vertexNormals(mesh)) : vertexNormals(mesh);
  return mesh;
}

/** x, y, _ triples to x, y pairs. */
export function compact2(triples: Float32Array): Float32Array {
  const out = new Float32Array((triples.length / 3) * 2);
  for (let i = 0, j = 0; i < triples.length; i += 3, j += 2) {
    out[j] = triples[i]!;
    out[j + 1] = triples[i + 1]!;
  }
  return out;
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

/** The output vertex of each v/vt/vn corner seen: a chained list per source vertex, in typed arrays. */
class CornerTable {
  private head = new Int32Array(1024).fill(-1);
  private entries = new Int32Array(4096);
  private count = 0;

  find(v: number, vt: number, vn: number): number {
    for (let e = v < this.head.length ? this.head[v]! : -1; e >= 0; e = this.entries[e * 4]!) {
      if (this.entries[e * 4 + 1] === vt && this.entries[e * 4 + 2] === vn) return this.entries[e * 4 + 3]!;
    }
    return -1;
  }

  add(v: number, vt: number, vn: number, out: number): void {
    if (v >= this.head.length) {
      const head = new Int32Array(Math.max(v + 1, this.head.length * 2)).fill(-1);
      head.set(this.head);
      this.head = head;
    }
    if ((this.count + 1) * 4 > this.entries.length) {
      const entries = new Int32Array(this.entries.length * 2);
      entries.set(this.entries);
      this.entries = entries;
    }
    const e = this.count++;
    this.entries.set([this.head[v]!, vt, vn, out], e * 4);
    this.head[v] = e;
  }
}
