import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { notCompatible } from '../processing-error.js';
import { BATCH_POINTS, type PointAttribute, type PointBatch, type PointCloudReader } from './point-cloud.js';

type PlyEncoding = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

interface PlyProperty {
  name: string;
  type: string;
  size: number;
  offset: number;
}

interface PlyHeader {
  encoding: PlyEncoding;
  vertexCount: number;
  properties: PlyProperty[];
  stride: number;
  dataOffset: number;
}

const TYPE_SIZE: Record<string, number> = {
  char: 1,
  int8: 1,
  uchar: 1,
  uint8: 1,
  short: 2,
  int16: 2,
  ushort: 2,
  uint16: 2,
  int: 4,
  int32: 4,
  uint: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};
const HEADER_LIMIT = 64 * 1024;
const COLOR_NAMES = [
  ['red', 'r', 'diffuse_red'],
  ['green', 'g', 'diffuse_green'],
  ['blue', 'b', 'diffuse_blue'],
];
const INTENSITY_NAMES = ['intensity', 'scalar_intensity', 'scalar_Intensity'];
const CLASSIFICATION_NAMES = ['classification', 'scalar_classification', 'scalar_Classification'];
/** A comparison's distances PLY (docs/comparisons-viewer.md): metres, -1 beyond maxDistance, NaN where not computable. */
const DISTANCE_NAMES = ['distance'];

/**
 * The range an intensity property spans by its type: unsigned integers their whole range;
 * floats and signed integers have none fixed, so the points' own min and max are used.
 */
function intensityRangeOf(type: string): [number, number] | undefined {
  if (type === 'uchar' || type === 'uint8') return [0, 255];
  if (type === 'ushort' || type === 'uint16') return [0, 65535];
  return undefined;
}

async function readPlyHeader(path: string): Promise<PlyHeader> {
  const file = await open(path, 'r');
  const bytes = Buffer.alloc(HEADER_LIMIT);
  const { bytesRead } = await file.read(bytes, 0, bytes.length, 0);
  await file.close();
  const text = bytes.toString('latin1', 0, bytesRead);
  const end = text.search(/end_header\r?\n/);
  if (!text.startsWith('ply') || end < 0) throw notCompatible('The PLY header is missing or has no end_header line');
  const dataOffset = end + text.slice(end).indexOf('\n') + 1;
  let encoding: PlyEncoding | undefined;
  let element: string | undefined;
  let vertexCount = -1;
  let elementsBeforeVertex = 0;
  const properties: PlyProperty[] = [];
  let stride = 0;
  for (const line of text.slice(0, end).split(/\r?\n/)) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'format') {
      if (!['ascii', 'binary_little_endian', 'binary_big_endian'].includes(words[1]!)) {
        throw notCompatible(`PLY format ${words[1]} is not supported`);
      }
      encoding = words[1] as PlyEncoding;
    } else if (words[0] === 'element') {
      element = words[1];
      if (element === 'vertex') vertexCount = Number(words[2]);
      else if (vertexCount < 0 && Number(words[2]) > 0) elementsBeforeVertex += 1;
    } else if (words[0] === 'property' && element === 'vertex') {
      if (words[1] === 'list') throw notCompatible('PLY vertex list properties are not supported');
      const size = TYPE_SIZE[words[1]!];
      if (size === undefined) throw notCompatible(`PLY property type ${words[1]} is unknown`);
      properties.push({ name: words[2]!, type: words[1]!, size, offset: stride });
      stride += size;
    }
  }
  if (!encoding) throw notCompatible('The PLY header has no format line');
  if (!Number.isSafeInteger(vertexCount) || vertexCount < 0) throw notCompatible('The PLY file has no vertex element');
  if (elementsBeforeVertex > 0) throw notCompatible('PLY files whose vertices are not the first element are not supported');
  for (const axis of ['x', 'y', 'z']) {
    if (!properties.some((p) => p.name === axis)) throw notCompatible(`The PLY vertices have no ${axis} property`);
  }
  return { encoding, vertexCount, properties, stride, dataOffset };
}

function find(header: PlyHeader, names: string[]): PlyProperty | undefined {
  return header.properties.find((p) => names.includes(p.name));
}

/** Scales a color property to 0..255 by its type: 8-bit as is, 16-bit shifted, floats from 0..1. */
function colorScale(type: string): number {
  if (type === 'uchar' || type === 'uint8' || type === 'char' || type === 'int8') return 1;
  if (type === 'ushort' || type === 'uint16' || type === 'short' || type === 'int16') return 1 / 257;
  return 255;
}

export async function openPly(path: string): Promise<PointCloudReader> {
  const header = await readPlyHeader(path);
  const colors = COLOR_NAMES.map((names) => find(header, names));
  const hasColor = colors.every((c) => c !== undefined);
  const intensity = find(header, INTENSITY_NAMES);
  const classification = find(header, CLASSIFICATION_NAMES);
  const distance = find(header, DISTANCE_NAMES);
  const attributes: PointAttribute[] = ['position'];
  if (hasColor) attributes.push('color');
  if (intensity) attributes.push('intensity');
  if (distance) attributes.push('distance');
  const intensityRange = intensity && intensityRangeOf(intensity.type);
  const layout: PlyLayout = {
    header,
    xyz: ['x', 'y', 'z'].map((axis) => header.properties.find((p) => p.name === axis)!),
    colors: hasColor ? (colors as PlyProperty[]) : undefined,
    intensity,
    classification,
    distance,
  };
  if (header.encoding !== 'ascii') {
    const { size } = await stat(path);
    if (size < header.dataOffset + header.vertexCount * header.stride) throw notCompatible('The binary PLY file is truncated');
  }
  return {
    header: { format: 'ply', pointCount: header.vertexCount, attributes, ...(intensityRange ? { intensityRange } : {}) },
    batches: () => (header.encoding === 'ascii' ? asciiBatches(path, layout) : binaryBatches(path, layout)),
  };
}

interface PlyLayout {
  header: PlyHeader;
  xyz: PlyProperty[];
  colors: PlyProperty[] | undefined;
  intensity: PlyProperty | undefined;
  classification: PlyProperty | undefined;
  distance: PlyProperty | undefined;
}

function newBatch(layout: PlyLayout, count: number): PointBatch {
  return {
    count,
    positions: new Float64Array(count * 3),
    ...(layout.colors ? { colors: new Uint8Array(count * 3) } : {}),
    ...(layout.intensity ? { intensity: new Float32Array(count) } : {}),
    ...(layout.classification ? { classification: new Uint8Array(count) } : {}),
    ...(layout.distance ? { distance: new Float32Array(count) } : {}),
  };
}

function store(layout: PlyLayout, batch: PointBatch, i: number, value: (p: PlyProperty) => number): void {
  for (let axis = 0; axis < 3; axis += 1) batch.positions[i * 3 + axis] = value(layout.xyz[axis]!);
  if (layout.colors && batch.colors) {
    for (let c = 0; c < 3; c += 1) {
      const property = layout.colors[c]!;
      batch.colors[i * 3 + c] = Math.max(0, Math.min(255, Math.round(value(property) * colorScale(property.type))));
    }
  }
  if (layout.intensity && batch.intensity) batch.intensity[i] = value(layout.intensity);
  // A class code is a byte (LAS); a value outside 0..255 is clamped rather than wrapped.
  if (layout.classification && batch.classification) {
    batch.classification[i] = Math.max(0, Math.min(255, Math.round(value(layout.classification))));
  }
  if (layout.distance && batch.distance) batch.distance[i] = value(layout.distance);
}

function binaryValue(bytes: Buffer, at: number, type: string, little: boolean): number {
  switch (type) {
    case 'char':
    case 'int8':
      return bytes.readInt8(at);
    case 'uchar':
    case 'uint8':
      return bytes.readUInt8(at);
    case 'short':
    case 'int16':
      return little ? bytes.readInt16LE(at) : bytes.readInt16BE(at);
    case 'ushort':
    case 'uint16':
      return little ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at);
    case 'int':
    case 'int32':
      return little ? bytes.readInt32LE(at) : bytes.readInt32BE(at);
    case 'uint':
    case 'uint32':
      return little ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at);
    case 'float':
    case 'float32':
      return little ? bytes.readFloatLE(at) : bytes.readFloatBE(at);
    default:
      return little ? bytes.readDoubleLE(at) : bytes.readDoubleBE(at);
  }
}

async function* binaryBatches(path: string, layout: PlyLayout): AsyncGenerator<PointBatch> {
  const { header } = layout;
  const little = header.encoding === 'binary_little_endian';
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(BATCH_POINTS * header.stride);
    for (let done = 0; done < header.vertexCount; ) {
      const count = Math.min(BATCH_POINTS, header.vertexCount - done);
      const { bytesRead } = await file.read(buffer, 0, count * header.stride, header.dataOffset + done * header.stride);
      if (bytesRead < count * header.stride) throw notCompatible('The binary PLY file ended before its vertex count');
      const batch = newBatch(layout, count);
      for (let i = 0; i < count; i += 1) {
        const base = i * header.stride;
        store(layout, batch, i, (p) => binaryValue(buffer, base + p.offset, p.type, little));
      }
      yield batch;
      done += count;
    }
  } finally {
    await file.close();
  }
}

async function* asciiBatches(path: string, layout: PlyLayout): AsyncGenerator<PointBatch> {
  const { header } = layout;
  const index = new Map(header.properties.map((p, i) => [p, i]));
  const lines = createInterface({ input: createReadStream(path, { start: header.dataOffset }), crlfDelay: Infinity });
  let batch = newBatch(layout, Math.min(BATCH_POINTS, header.vertexCount));
  let filled = 0;
  let done = 0;
  try {
    for await (const line of lines) {
      if (done >= header.vertexCount) break;
      const words = line.trim().split(/\s+/);
      if (words.length < header.properties.length) throw notCompatible(`PLY vertex ${done + 1} has too few values`);
      store(layout, batch, filled, (p) => {
        const word = words[index.get(p)!]!;
        // A distance not computable (M3C2) is NaN, as a binary file holds it.
        if (p === layout.distance && /^[-+]?nan$/i.test(word)) return Number.NaN;
        const value = Number(word);
        if (!Number.isFinite(value)) throw notCompatible(`PLY vertex ${done + 1} has a value that is not a number`);
        return value;
      });
      filled += 1;
      done += 1;
      if (filled === batch.count) {
        yield batch;
        batch = newBatch(layout, Math.min(BATCH_POINTS, header.vertexCount - done));
        filled = 0;
      }
    }
  } finally {
    lines.close();
  }
  if (done < header.vertexCount)
    throw notCompatible(`The PLY file has ${done} vertices, its header declares ${header.vertexCount}`);
}
