import type { Box } from './octree-box.js';
import { COLOR_WORD, INTENSITY_WORD, type PointRecords, RECORD_DOUBLES, RECORD_WORDS } from './spill-file.js';

/**
 * One tile's content: a binary glTF with a single POINTS primitive, POSITION as floats
 * relative to the tile's center (the center is the node's translation, kept in double
 * precision in the JSON), COLOR_0 as normalized RGBA bytes when the cloud has colors,
 * `_INTENSITY` as a float 0..1 and `_CLASSIFICATION` as the LAS class byte when it has them
 * (docs/design/measurements.md, "Tile attributes"), all interleaved in one vertex buffer. glTF
 * requires each vertex attribute's elements on 4-byte boundaries, so the class byte takes a
 * 4-byte slot. glTF is y-up and 3D Tiles z-up: (x, y, z) in the tileset is (x, z, -y) in the
 * glTF. With an `origin` (a georeferenced cloud) the tileset's frame is relative to it: only the
 * node's translation moves, the floats are the same. Written directly rather than through a
 * glTF document library: a tile is one fixed shape, and building a document per tile cost a
 * third of the tiling.
 */
const GENERATOR = 'Reality Data Platform point-cloud tiler';
const FLOAT = 5126;
const UNSIGNED_BYTE = 5121;
const ARRAY_BUFFER = 34962;
const POINTS = 0;

/** What a tile carries beside positions: the cloud's attributes, the same in every tile. */
export interface PointContentAttributes {
  withColors: boolean;
  /** The file's intensity range, mapped to 0..1; undefined: no `_INTENSITY`. */
  intensityRange?: readonly [number, number];
  withClassification: boolean;
}

/** The content of records `first` to `first + count - 1`. */
export function pointContentGlb(
  box: Box,
  records: PointRecords,
  first: number,
  count: number,
  content: PointContentAttributes,
  origin?: readonly [number, number, number],
): Uint8Array {
  const { withColors, intensityRange, withClassification } = content;
  const [cx, cy, cz] = box.center;
  const colorAt = 12;
  const intensityAt = colorAt + (withColors ? 4 : 0);
  const classAt = intensityAt + (intensityRange ? 4 : 0);
  const stride = classAt + (withClassification ? 4 : 0);
  const bin = new ArrayBuffer(count * stride);
  const floats = new Float32Array(bin);
  const bytes = new Uint8Array(bin);
  const step = stride / 4;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const { doubles, words } = records;
  const [low, high] = intensityRange ?? [0, 1];
  const span = high - low || 1;
  for (let i = 0; i < count; i += 1) {
    const d = (first + i) * RECORD_DOUBLES;
    const f = i * step;
    floats[f] = doubles[d]! - cx;
    floats[f + 1] = doubles[d + 2]! - cz;
    floats[f + 2] = -(doubles[d + 1]! - cy);
    for (let axis = 0; axis < 3; axis += 1) {
      const value = floats[f + axis]!;
      if (value < min[axis]!) min[axis] = value;
      if (value > max[axis]!) max[axis] = value;
    }
    const color = words[(first + i) * RECORD_WORDS + COLOR_WORD]!;
    if (withColors) {
      const at = f * 4 + colorAt;
      bytes[at] = color & 0xff;
      bytes[at + 1] = (color >>> 8) & 0xff;
      bytes[at + 2] = (color >>> 16) & 0xff;
      bytes[at + 3] = 255;
    }
    if (intensityRange) {
      const value = (records.floats[(first + i) * RECORD_WORDS + INTENSITY_WORD]! - low) / span;
      // Clamped; a NaN (an E57 float field may hold one) is 0.
      floats[f + intensityAt / 4] = value >= 0 ? Math.min(1, value) : 0;
    }
    if (withClassification) bytes[f * 4 + classAt] = color >>> 24;
  }
  const accessors: object[] = [{ type: 'VEC3', componentType: FLOAT, count, max, min, bufferView: 0, byteOffset: 0 }];
  const attributes: Record<string, number> = { POSITION: 0 };
  if (withColors) {
    attributes.COLOR_0 = accessors.length;
    accessors.push({ type: 'VEC4', componentType: UNSIGNED_BYTE, count, normalized: true, bufferView: 0, byteOffset: colorAt });
  }
  if (intensityRange) {
    attributes._INTENSITY = accessors.length;
    accessors.push({ type: 'SCALAR', componentType: FLOAT, count, bufferView: 0, byteOffset: intensityAt });
  }
  if (withClassification) {
    attributes._CLASSIFICATION = accessors.length;
    accessors.push({ type: 'SCALAR', componentType: UNSIGNED_BYTE, count, bufferView: 0, byteOffset: classAt });
  }
  const json = {
    asset: { generator: GENERATOR, version: '2.0' },
    accessors,
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: bin.byteLength, byteStride: stride, target: ARRAY_BUFFER }],
    buffers: [{ byteLength: bin.byteLength }],
    meshes: [{ primitives: [{ attributes, mode: POINTS }] }],
    nodes: [{ translation: origin ? [cx - origin[0], cz - origin[2], -(cy - origin[1])] : [cx, cz, -cy], mesh: 0 }],
    scenes: [{ nodes: [0] }],
    scene: 0,
  };
  return glb(Buffer.from(JSON.stringify(json), 'utf8'), bytes);
}

/** GLB container: 12-byte header, a JSON chunk padded with spaces, a BIN chunk padded with zeros. */
function glb(json: Buffer, bin: Uint8Array): Uint8Array {
  const jsonLength = align4(json.length);
  const binLength = align4(bin.length);
  const total = 12 + 8 + jsonLength + 8 + binLength;
  const out = Buffer.alloc(total);
  out.writeUInt32LE(0x46546c67, 0); // 'glTF'
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(total, 8);
  out.writeUInt32LE(jsonLength, 12);
  out.writeUInt32LE(0x4e4f534a, 16); // 'JSON'
  json.copy(out, 20);
  out.fill(0x20, 20 + json.length, 20 + jsonLength);
  const binAt = 20 + jsonLength;
  out.writeUInt32LE(binLength, binAt);
  out.writeUInt32LE(0x004e4942, binAt + 4); // 'BIN\0'
  out.set(bin, binAt + 8);
  return out;
}

function align4(length: number): number {
  return (length + 3) & ~3;
}
