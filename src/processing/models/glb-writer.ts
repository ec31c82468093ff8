import { Document, NodeIO } from '@gltf-transform/core';
import type { TriangleMesh } from './triangle-mesh.js';

/**
 * The preview as GLB: one mesh with POSITION, NORMAL and indices (16-bit when the vertices
 * allow, halving their size), a plain grey material, one node in one scene.
 */
export async function writePreviewGlb(mesh: TriangleMesh, normals: Float32Array): Promise<Uint8Array> {
  const document = new Document();
  document.getRoot().getAsset().generator = 'Reality Data Platform preview';
  const buffer = document.createBuffer();
  const vertices = mesh.positions.length / 3;
  const position = document.createAccessor().setType('VEC3').setArray(mesh.positions).setBuffer(buffer);
  const normal = document.createAccessor().setType('VEC3').setArray(normals).setBuffer(buffer);
  const indices = document
    .createAccessor()
    .setType('SCALAR')
    .setArray(vertices <= 0xffff ? Uint16Array.from(mesh.indices) : mesh.indices)
    .setBuffer(buffer);
  const material = document
    .createMaterial('preview')
    .setBaseColorFactor([0.8, 0.8, 0.8, 1])
    .setMetallicFactor(0)
    .setRoughnessFactor(0.8);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', position)
    .setAttribute('NORMAL', normal)
    .setIndices(indices)
    .setMaterial(material);
  const node = document.createNode('model').setMesh(document.createMesh('model').addPrimitive(primitive));
  document.getRoot().setDefaultScene(document.createScene('model').addChild(node));
  return new NodeIO().writeBinary(document);
}
