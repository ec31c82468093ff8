import { Document, NodeIO } from '@gltf-transform/core';
import type { MaterialGroup, MeshTileNode } from './mesh-tiler.js';
import type { TextureLevels } from './texture-levels.js';
import type { TexturedMesh } from './textured-mesh.js';

const GENERATOR = 'Reality Data Platform mesh tiler';
const io = new NodeIO();

/**
 * One tile's GLB: a primitive per material, each with its own vertices (POSITION relative to
 * the tile's centre, which is the node's translation; NORMAL; TEXCOORD_0 and COLOR_0 where the
 * mesh has them), 16-bit indices where the vertices allow; the material's base colour and its
 * texture cut and reduced for the tile (texture-levels.ts). The mesh is in glTF's own y-up frame,
 * so nothing turns here; the tileset's boxes do (mesh-processor.ts).
 */
export async function meshContentGlb(
  mesh: TexturedMesh,
  node: MeshTileNode,
  groups: MaterialGroup[],
  textures: TextureLevels,
  /** -1 for every vertex of the mesh, and so left: where each is in the tile, while it is written. */
  scratch: Int32Array,
  /** Added to the tile's centre in the node's translation (doubles): where the mesh's coordinates are relative to. */
  offset: [number, number, number] = [0, 0, 0],
): Promise<Uint8Array> {
  const document = new Document();
  document.getRoot().getAsset().generator = GENERATOR;
  const buffer = document.createBuffer();
  const center = [0, 1, 2].map((axis) => (node.min[axis]! + node.max[axis]!) / 2);
  const gltfMesh = document.createMesh(node.address);
  for (const group of groups) {
    const globalOf: number[] = [];
    const indices = new Uint32Array(group.indices.length);
    for (let i = 0; i < indices.length; i += 1) {
      const v = group.indices[i]!;
      if (scratch[v] === -1) scratch[v] = globalOf.push(v) - 1;
      indices[i] = scratch[v]!;
    }
    for (const v of globalOf) scratch[v] = -1;
    const count = globalOf.length;
    const positions = new Float32Array(count * 3);
    const normals = mesh.normals ? new Float32Array(count * 3) : undefined;
    const uvs = mesh.uvs ? new Float32Array(count * 2) : undefined;
    const colors = mesh.colors ? new Uint8Array(count * 4) : undefined;
    for (let i = 0; i < count; i += 1) {
      const v = globalOf[i]!;
      for (let axis = 0; axis < 3; axis += 1) positions[i * 3 + axis] = mesh.positions[v * 3 + axis]! - center[axis]!;
      normals?.set(mesh.normals!.subarray(v * 3, v * 3 + 3), i * 3);
      uvs?.set(mesh.uvs!.subarray(v * 2, v * 2 + 2), i * 2);
      if (colors)
        for (let k = 0; k < 4; k += 1) colors[i * 4 + k] = Math.round(Math.min(1, Math.max(0, mesh.colors![v * 4 + k]!)) * 255);
    }
    const source = mesh.materials[group.material]!;
    const material = document
      .createMaterial(source.name)
      .setBaseColorFactor(source.color)
      .setMetallicFactor(0)
      .setRoughnessFactor(1);
    if (source.color[3] < 1) material.setAlphaMode('BLEND');
    if (source.texture && uvs) {
      const tile = textures.tileTexture(source.texture, uvs, node.height);
      for (let i = 0; i < uvs.length; i += 2) {
        uvs[i] = uvs[i]! * tile.scale[0] + tile.offset[0];
        uvs[i + 1] = uvs[i + 1]! * tile.scale[1] + tile.offset[1];
      }
      const texture = document.createTexture(source.texture.name).setImage(tile.bytes).setMimeType(tile.mimeType);
      material.setBaseColorTexture(texture);
    }
    const accessor = (array: Float32Array | Uint8Array | Uint16Array | Uint32Array, type: 'VEC2' | 'VEC3' | 'VEC4' | 'SCALAR') =>
      document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor(positions, 'VEC3'))
      .setIndices(accessor(count <= 0xffff ? Uint16Array.from(indices) : indices, 'SCALAR'))
      .setMaterial(material);
    if (normals) primitive.setAttribute('NORMAL', accessor(normals, 'VEC3'));
    if (uvs) primitive.setAttribute('TEXCOORD_0', accessor(uvs, 'VEC2'));
    if (colors) primitive.setAttribute('COLOR_0', accessor(colors, 'VEC4').setNormalized(true));
    gltfMesh.addPrimitive(primitive);
  }
  const gltfNode = document
    .createNode(node.address)
    .setMesh(gltfMesh)
    .setTranslation(center.map((value, axis) => value + offset[axis]!) as [number, number, number]);
  document.getRoot().setDefaultScene(document.createScene().addChild(gltfNode));
  return io.writeBinary(document);
}
