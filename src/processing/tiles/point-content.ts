import { Document, NodeIO, Primitive } from '@gltf-transform/core';
import type { Box } from './octree-box.js';

/**
 * One tile's content: a binary glTF with a single POINTS primitive, POSITION as floats
 * relative to the tile's center (the center is the node's translation, kept in double
 * precision in the JSON), COLOR_0 as normalized RGBA bytes when the cloud has colors.
 * glTF is y-up and 3D Tiles z-up: (x, y, z) in the tileset is (x, z, -y) in the glTF.
 */
const io = new NodeIO();

export async function pointContentGlb(
  box: Box,
  positions: Float64Array,
  colors: Uint8Array | undefined,
  count: number,
): Promise<Uint8Array> {
  const [cx, cy, cz] = box.center;
  const local = new Float32Array(count * 3);
  for (let i = 0; i < count; i += 1) {
    local[i * 3] = positions[i * 3]! - cx;
    local[i * 3 + 1] = positions[i * 3 + 2]! - cz;
    local[i * 3 + 2] = -(positions[i * 3 + 1]! - cy);
  }
  const document = new Document();
  document.getRoot().getAsset().generator = 'Reality Data Platform point-cloud tiler';
  const buffer = document.createBuffer();
  const primitive = document
    .createPrimitive()
    .setMode(Primitive.Mode.POINTS!)
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(local).setBuffer(buffer));
  if (colors) {
    const rgba = new Uint8Array(count * 4);
    for (let i = 0; i < count; i += 1) {
      rgba[i * 4] = colors[i * 3]!;
      rgba[i * 4 + 1] = colors[i * 3 + 1]!;
      rgba[i * 4 + 2] = colors[i * 3 + 2]!;
      rgba[i * 4 + 3] = 255;
    }
    primitive.setAttribute(
      'COLOR_0',
      document.createAccessor().setType('VEC4').setArray(rgba).setNormalized(true).setBuffer(buffer),
    );
  }
  const mesh = document.createMesh().addPrimitive(primitive);
  const node = document.createNode().setMesh(mesh).setTranslation([cx, cz, -cy]);
  document.createScene().addChild(node);
  document.getRoot().setDefaultScene(document.getRoot().listScenes()[0]!);
  return io.writeBinary(document);
}
