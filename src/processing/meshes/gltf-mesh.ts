import { readFile } from 'node:fs/promises';
import type { Material, mat4, Primitive } from '@gltf-transform/core';
import { readGltfDocument, sceneTriangles } from '../models/gltf-reader.js';
import { vertexNormals } from '../models/triangle-mesh.js';
import {
  DEFAULT_MATERIAL,
  type MeshMaterial,
  resolveReference,
  type TexturedMesh,
  textureOf,
  unitNormals,
} from './textured-mesh.js';

/**
 * A glTF or GLB with what the preview leaves out (gltf-reader.ts places the triangles): NORMAL
 * (turned by the node's matrix), TEXCOORD_0, COLOR_0 and each primitive's material with its
 * base colour and baseColorTexture. External buffers and images resolve among the upload's files.
 */
export async function readTexturedGltf(main: string, format: 'gltf' | 'glb', byName: Map<string, string>): Promise<TexturedMesh> {
  const what = format === 'glb' ? 'GLB file' : 'glTF file';
  const document = await readGltfDocument(
    main,
    format,
    async (uri) => new Uint8Array(await readFile(resolveReference(byName, uri, what))),
  );
  const normals: Float32Array[] = [];
  const uvs: Float32Array[] = [];
  const colors: Float32Array[] = [];
  const materialOf: number[] = [];
  const materials: MeshMaterial[] = [DEFAULT_MATERIAL];
  const materialIndex = new Map<Material, number>();
  let anyNormal = false;
  let anyUv = false;
  let anyColor = false;
  const visit = (primitive: Primitive, matrix: mat4, _mirrored: boolean, triangles: number) => {
    const count = primitive.getAttribute('POSITION')!.getCount();
    const normal = primitive.getAttribute('NORMAL');
    const uv = primitive.getAttribute('TEXCOORD_0');
    const color = primitive.getAttribute('COLOR_0');
    const n = new Float32Array(count * 3);
    const t = new Float32Array(count * 2);
    const c = new Float32Array(count * 4).fill(1);
    const element: number[] = [];
    for (let i = 0; i < count; i += 1) {
      if (normal) {
        normal.getElement(i, element);
        // The upper 3x3 turns a normal right for rotations and uniform scales; unitNormals rescales.
        n[i * 3] = matrix[0] * element[0]! + matrix[4] * element[1]! + matrix[8] * element[2]!;
        n[i * 3 + 1] = matrix[1] * element[0]! + matrix[5] * element[1]! + matrix[9] * element[2]!;
        n[i * 3 + 2] = matrix[2] * element[0]! + matrix[6] * element[1]! + matrix[10] * element[2]!;
      }
      if (uv) {
        uv.getElement(i, element);
        t[i * 2] = element[0]!;
        t[i * 2 + 1] = element[1]!;
      }
      if (color) {
        color.getElement(i, element);
        for (let k = 0; k < (color.getType() === 'VEC4' ? 4 : 3); k += 1) c[i * 4 + k] = element[k]!;
      }
    }
    anyNormal ||= normal !== null;
    anyUv ||= uv !== null;
    anyColor ||= color !== null;
    normals.push(n);
    uvs.push(t);
    colors.push(c);
    const material = materialFor(primitive.getMaterial(), materials, materialIndex, what);
    for (let k = 0; k < triangles; k += 1) materialOf.push(material);
  };
  const triangles = sceneTriangles(document, what, visit);
  const mesh: TexturedMesh = { ...triangles, materialOf: Uint16Array.from(materialOf), materials };
  if (anyUv) mesh.uvs = concatenated(uvs);
  if (anyColor) mesh.colors = concatenated(colors);
  mesh.normals = anyNormal ? unitNormals(concatenated(normals), () => vertexNormals(mesh)) : vertexNormals(mesh);
  return mesh;
}

function materialFor(material: Material | null, materials: MeshMaterial[], index: Map<Material, number>, what: string): number {
  if (!material) return 0;
  const known = index.get(material);
  if (known !== undefined) return known;
  const out: MeshMaterial = {
    name: material.getName() || `material ${materials.length}`,
    color: [...material.getBaseColorFactor()] as MeshMaterial['color'],
  };
  const texture = material.getBaseColorTexture();
  const image = texture?.getImage();
  if (texture && image) out.texture = textureOf(texture.getURI() || texture.getName() || out.name, image, what);
  index.set(material, materials.length);
  materials.push(out);
  return materials.length - 1;
}

function concatenated(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
