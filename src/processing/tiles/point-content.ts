import type { Box } from './octree-box.js';
import { COLOR_WORD, INTENSITY_WORD, type PointRecords, RECORD_DOUBLES, RECORD_WORDS } from './spill-file.js';

/**
 * One tile's content: a binary glTF with a single POINTS primitive, POSITION as floats
 * relative to the tile's center (the center is the node's translation, kept in double
 * precision in the JSON), COLOR_0 as normalized RGBA bytes when the cloud has colors,
 * `_INTENSITY` as an unsigned short normalized to 0..1 and `_CLASSIFICATION` as the LAS class
 * byte when it has them (docs/design/measurements.md, "Tile attributes"); a comparison's tiles
 * carry `_DISTANCE`, a float in metres, in place of `_INTENSITY` (docs/comparisons-viewer.md). Each attribute has its
 * own buffer view rather than one interleaved vertex: glTF wants every element on a 4-byte
 * boundary, so the small attributes carry padding, and kept apart their bytes (and the padding)
 * compress well, which the stored tiles are (docs/processing.md, "Tiles on the wire"). glTF is
 * y-up and 3D Tiles z-up: (x, y, z) in the tileset is (x, z, -y) in the glTF. With an `origin`
 * (a georeferenced cloud) the tileset's frame is relative to it: only the node's translation
 * moves, the floats are the same. Written directly rather than through a glTF document library:
 * a tile is one fixed shape, and building a document per tile cost a third of the tiling.
 */
const GENERATOR = 'Reality Data Platform point-cloud tiler';
const FLOAT = 5126;
const UNSIGNED_BYTE = 5121;
const UNSIGNED_SHORT = 5123;
const ARRAY_BUFFER = 34962;
const POINTS = 0;

/** What a tile carries beside positions: the cloud's attributes, the same in every tile. */
export interface PointContentAttributes {
  withColors: boolean;
  /** The file's intensity range, mapped to 0..1; undefined: no `_INTENSITY`. */
  intensityRange?: readonly [number, number];
  withClassification: boolean;
  /** The records' float is a comparison's distance: `_DISTANCE` as a float, in place of `_INTENSITY`. */
  withDistance?: boolean;
}

/**
 * What `_DISTANCE` holds where the distances PLY has NaN (M3C2: not computable) or an infinity:
 * glTF readers and the Khronos validator refuse non-finite floats in an accessor
 * (ACCESSOR_INVALID_FLOAT), so a sentinel far below any distance stands for it
 * (docs/comparisons-viewer.md); anything below -1e29 reads as not computable.
 */
export const DISTANCE_NOT_COMPUTABLE = -1e30;

interface AttributeView {
  name: string;
  /** Where the view starts in the BIN chunk. */
  byteOffset: number;
  /** Bytes from one element to the next: 12 for a position, 4 (glTF's alignment) for the others. */
  stride: number;
  accessor: object;
}

/** The buffer views of a tile of `count` points, one after the other in the BIN chunk. */
function attributeViews(count: number, content: PointContentAttributes): AttributeView[] {
  const views: AttributeView[] = [];
  const add = (name: string, stride: number, accessor: object) => {
    const last = views.at(-1);
    views.push({ name, byteOffset: last ? last.byteOffset + count * last.stride : 0, stride, accessor });
  };
  add('POSITION', 12, { type: 'VEC3', componentType: FLOAT });
  if (content.withColors) add('COLOR_0', 4, { type: 'VEC4', componentType: UNSIGNED_BYTE, normalized: true });
  if (content.withDistance) add('_DISTANCE', 4, { type: 'SCALAR', componentType: FLOAT });
  else if (content.intensityRange) add('_INTENSITY', 4, { type: 'SCALAR', componentType: UNSIGNED_SHORT, normalized: true });
  if (content.withClassification) add('_CLASSIFICATION', 4, { type: 'SCALAR', componentType: UNSIGNED_BYTE });
  return views;
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
  const { withColors, withClassification, withDistance } = content;
  const intensityRange = withDistance ? undefined : content.intensityRange;
  const [cx, cy, cz] = box.center;
  const views = attributeViews(count, content);
  const bin = new ArrayBuffer(views.reduce((length, view) => length + count * view.stride, 0));
  const positions = new Float32Array(bin, 0, count * 3);
  const bytes = new Uint8Array(bin);
  const shorts = new Uint16Array(bin);
  const floats = new Float32Array(bin);
  const at = (name: string) => views.find((view) => view.name === name)?.byteOffset ?? 0;
  const colorAt = at('COLOR_0');
  const intensityAt = at('_INTENSITY') / 2;
  const classAt = at('_CLASSIFICATION');
  const distanceAt = at('_DISTANCE') / 4;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const { doubles, words } = records;
  const [low, high] = intensityRange ?? [0, 1];
  const span = high - low || 1;
  for (let i = 0; i < count; i += 1) {
    const d = (first + i) * RECORD_DOUBLES;
    const f = i * 3;
    positions[f] = doubles[d]! - cx;
    positions[f + 1] = doubles[d + 2]! - cz;
    positions[f + 2] = -(doubles[d + 1]! - cy);
    for (let axis = 0; axis < 3; axis += 1) {
      const value = positions[f + axis]!;
      if (value < min[axis]!) min[axis] = value;
      if (value > max[axis]!) max[axis] = value;
    }
    const color = words[(first + i) * RECORD_WORDS + COLOR_WORD]!;
    if (withColors) {
      const c = colorAt + i * 4;
      bytes[c] = color & 0xff;
      bytes[c + 1] = (color >>> 8) & 0xff;
      bytes[c + 2] = (color >>> 16) & 0xff;
      bytes[c + 3] = 255;
    }
    if (intensityRange) {
      const value = (records.floats[(first + i) * RECORD_WORDS + INTENSITY_WORD]! - low) / span;
      // Clamped; a NaN (an E57 float field may hold one) is 0.
      shorts[intensityAt + i * 2] = Math.round((value >= 0 ? Math.min(1, value) : 0) * 0xffff);
    }
    if (withClassification) bytes[classAt + i * 4] = color >>> 24;
    if (withDistance) {
      const distance = records.floats[(first + i) * RECORD_WORDS + INTENSITY_WORD]!;
      floats[distanceAt + i] = Number.isFinite(distance) ? distance : DISTANCE_NOT_COMPUTABLE;
    }
  }
  const attributes: Record<string, number> = {};
  const accessors = views.map((view, index) => {
    attributes[view.name] = index;
    const bounds = view.name === 'POSITION' ? { max, min } : {};
    return { ...view.accessor, count, ...bounds, bufferView: index, byteOffset: 0 };
  });
  const json = {
    asset: { generator: GENERATOR, version: '2.0' },
    accessors,
    bufferViews: views.map(({ byteOffset, stride }) => ({
      buffer: 0,
      byteOffset,
      byteLength: count * stride,
      byteStride: stride,
      target: ARRAY_BUFFER,
    })),
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
