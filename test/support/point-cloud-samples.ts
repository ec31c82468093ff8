import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { crc32c } from '../../src/processing/point-clouds/e57/crc32c.js';
import { logicalToPhysical, PAGE_DATA, PAGE_SIZE } from '../../src/processing/point-clouds/e57/paged-file.js';

/**
 * Real sample point clouds written byte by byte from their specifications, so the readers are
 * tested against files they did not write themselves. A sample is a deterministic function
 * of its point count: points on a sloped, wavy surface inside a known box, colored by index.
 */
export interface SamplePoint {
  x: number;
  y: number;
  z: number;
  r: number;
  g: number;
  b: number;
  intensity: number;
  /** The LAS class code a writer that carries classification writes (formats 0–5 keep its low 5 bits). */
  classification?: number;
}

/** Class codes the samples cycle through: ground, vegetation, building, water, a code above 31. */
const SAMPLE_CLASSES = [2, 3, 5, 6, 9, 17, 40];

export const SAMPLE_ORIGIN = { x: 1000, y: 2000, z: 50 };

export function samplePoint(i: number, count: number): SamplePoint {
  const side = Math.ceil(Math.sqrt(count));
  const u = (i % side) / side;
  const v = Math.floor(i / side) / side;
  return {
    x: SAMPLE_ORIGIN.x + u * 100,
    y: SAMPLE_ORIGIN.y + v * 60,
    z: SAMPLE_ORIGIN.z + 10 * u + 3 * Math.sin(v * 12),
    r: i % 256,
    g: (i * 7) % 256,
    b: 255 - (i % 256),
    intensity: i % 4096,
    classification: SAMPLE_CLASSES[i % SAMPLE_CLASSES.length]!,
  };
}

const LAS_RECORD_LENGTH = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];
const LAS_COLOR_OFFSET: Record<number, number> = { 2: 20, 3: 28, 5: 28, 7: 30, 8: 30, 10: 30 };

/** Where a writer takes its points from: the sample surface by default, or another generator. */
export interface PointSource {
  pointAt: (i: number, count: number) => SamplePoint;
  /** The LAS offset: a point near the cloud, so millimetres fit in 32-bit integers. */
  origin: { x: number; y: number; z: number };
}

export const SAMPLE_SOURCE: PointSource = { pointAt: samplePoint, origin: SAMPLE_ORIGIN };

/** The sample surface moved so that its origin is `origin` (say, a place in a UTM zone). */
export function shiftedSource(origin: { x: number; y: number; z: number }): PointSource {
  return {
    origin,
    pointAt: (i, count) => {
      const p = samplePoint(i, count);
      return {
        ...p,
        x: p.x - SAMPLE_ORIGIN.x + origin.x,
        y: p.y - SAMPLE_ORIGIN.y + origin.y,
        z: p.z - SAMPLE_ORIGIN.z + origin.z,
      };
    },
  };
}

/** A LAS variable length record (54-byte header), or with `extended` a LAS 1.4 extended one (60 bytes). */
export function lasRecord(userId: string, recordId: number, payload: Buffer, extended = false): Buffer {
  const head = Buffer.alloc(extended ? 60 : 54);
  head.write(userId, 2, 16, 'latin1');
  head.writeUInt16LE(recordId, 18);
  if (extended) head.writeBigUInt64LE(BigInt(payload.length), 20);
  else head.writeUInt16LE(payload.length, 20);
  head.write('rdp test record', extended ? 28 : 22, 'latin1');
  return Buffer.concat([head, payload]);
}

/** The OGC WKT coordinate system record (LASF_Projection 2112), null-terminated as the specification asks. */
export function lasWktRecord(wkt: string, extended = false): Buffer {
  return lasRecord('LASF_Projection', 2112, Buffer.from(`${wkt}\0`, 'utf8'), extended);
}

/** The GeoTIFF GeoKeyDirectoryTag record (LASF_Projection 34735): each key's value in the entry itself. */
export function lasGeoKeysRecord(keys: [id: number, value: number][]): Buffer {
  const shorts = [1, 1, 0, keys.length, ...keys.flatMap(([id, value]) => [id, 0, 1, value])];
  const payload = Buffer.alloc(shorts.length * 2);
  shorts.forEach((value, i) => {
    payload.writeUInt16LE(value, i * 2);
  });
  return lasRecord('LASF_Projection', 34735, payload);
}

/** LAS global encoding bit 4: the coordinate system is the WKT record. */
export const LAS_WKT_BIT = 1 << 4;

/**
 * LAS written in slices: 1.2 with point format 2 (xyz, intensity, RGB) by default, 1.4 with
 * format 7, or any point format 0–10 (1.4 for 6–10), records padded by `extraBytes`; with
 * variable length records (`vlrs`, see lasRecord) and, in 1.4, extended ones after the points.
 */
export async function writeLas(
  path: string,
  count: number,
  version: '1.2' | '1.4' = '1.2',
  options: {
    pointFormat?: number;
    extraBytes?: number;
    source?: PointSource;
    vlrs?: Buffer[];
    evlrs?: Buffer[];
    globalEncoding?: number;
    /** Writes each point's class code (formats 0–5: its low 5 bits, with the synthetic flag above set). */
    classification?: boolean;
  } = {},
): Promise<void> {
  const { pointAt, origin } = options.source ?? SAMPLE_SOURCE;
  const v14 = version === '1.4';
  const headerSize = v14 ? 375 : 227;
  const format = options.pointFormat ?? (v14 ? 7 : 2);
  const recordLength = LAS_RECORD_LENGTH[format]! + (options.extraBytes ?? 0);
  const colorOffset = LAS_COLOR_OFFSET[format];
  const scale = 0.001;
  const vlrs = Buffer.concat(options.vlrs ?? []);
  const header = Buffer.alloc(headerSize);
  header.write('LASF', 0, 'latin1');
  header.writeUInt16LE(options.globalEncoding ?? 0, 6);
  header.writeUInt8(1, 24);
  header.writeUInt8(v14 ? 4 : 2, 25);
  header.write('rdp sample', 26, 'latin1');
  header.writeUInt16LE(headerSize, 94);
  header.writeUInt32LE(headerSize + vlrs.length, 96);
  header.writeUInt32LE(options.vlrs?.length ?? 0, 100);
  header.writeUInt8(format, 104);
  header.writeUInt16LE(recordLength, 105);
  header.writeUInt32LE(v14 ? 0 : count, 107);
  for (let axis = 0; axis < 3; axis += 1) header.writeDoubleLE(scale, 131 + axis * 8);
  header.writeDoubleLE(origin.x, 155);
  header.writeDoubleLE(origin.y, 163);
  header.writeDoubleLE(origin.z, 171);
  const bounds = options.source ? sourceBounds(options.source, count) : sampleBounds(count);
  header.writeDoubleLE(bounds.max[0], 179);
  header.writeDoubleLE(bounds.min[0], 187);
  header.writeDoubleLE(bounds.max[1], 195);
  header.writeDoubleLE(bounds.min[1], 203);
  header.writeDoubleLE(bounds.max[2], 211);
  header.writeDoubleLE(bounds.min[2], 219);
  if (v14) header.writeBigUInt64LE(BigInt(count), 247);
  if (v14 && options.evlrs?.length) {
    header.writeBigUInt64LE(BigInt(headerSize + vlrs.length + count * recordLength), 235);
    header.writeUInt32LE(options.evlrs.length, 243);
  }
  const out = createWriteStream(path);
  out.write(header);
  out.write(vlrs);
  const slice = 65_536;
  for (let start = 0; start < count; start += slice) {
    const n = Math.min(slice, count - start);
    const records = Buffer.alloc(n * recordLength);
    for (let k = 0; k < n; k += 1) {
      const p = pointAt(start + k, count);
      const at = k * recordLength;
      records.writeInt32LE(Math.round((p.x - origin.x) / scale), at);
      records.writeInt32LE(Math.round((p.y - origin.y) / scale), at + 4);
      records.writeInt32LE(Math.round((p.z - origin.z) / scale), at + 8);
      records.writeUInt16LE(p.intensity, at + 12);
      if (options.classification && format >= 6) records.writeUInt8(p.classification ?? 0, at + 16);
      else if (options.classification) records.writeUInt8(((p.classification ?? 0) & 0x1f) | 0x20, at + 15);
      if (colorOffset !== undefined) {
        records.writeUInt16LE(p.r * 257, at + colorOffset);
        records.writeUInt16LE(p.g * 257, at + colorOffset + 2);
        records.writeUInt16LE(p.b * 257, at + colorOffset + 4);
      }
    }
    if (!out.write(records)) await once(out, 'drain');
  }
  for (const evlr of options.evlrs ?? []) out.write(evlr);
  out.end();
  await once(out, 'finish');
}

function sourceBounds(source: PointSource, count: number) {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i += 1) {
    const p = source.pointAt(i, count);
    [p.x, p.y, p.z].forEach((value, axis) => {
      min[axis] = Math.min(min[axis]!, value);
      max[axis] = Math.max(max[axis]!, value);
    });
  }
  return { min, max };
}

/** Bounds of the sample as LAS stores it (millimetre grid). */
export function sampleBounds(count: number): { min: [number, number, number]; max: [number, number, number] } {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i += 1) {
    const p = samplePoint(i, count);
    [p.x, p.y, p.z].forEach((value, axis) => {
      min[axis] = Math.min(min[axis]!, value);
      max[axis] = Math.max(max[axis]!, value);
    });
  }
  return { min, max };
}

export async function writePly(
  path: string,
  count: number,
  encoding: 'ascii' | 'binary_little_endian',
  options: { classification?: boolean } = {},
): Promise<void> {
  if (options.classification) return writeClassifiedPly(path, count, encoding);
  const header = [
    'ply',
    `format ${encoding} 1.0`,
    'comment rdp sample',
    `element vertex ${count}`,
    'property double x',
    'property double y',
    'property float z',
    'property uchar red',
    'property uchar green',
    'property uchar blue',
    'property ushort intensity',
    'element face 0',
    'property list uchar int vertex_indices',
    'end_header',
    '',
  ].join('\n');
  const points = Array.from({ length: count }, (_, i) => samplePoint(i, count));
  if (encoding === 'ascii') {
    const body = points.map((p) => `${p.x} ${p.y} ${Math.fround(p.z)} ${p.r} ${p.g} ${p.b} ${p.intensity}`).join('\n');
    await writeFile(path, `${header}${body}\n`);
    return;
  }
  const stride = 8 + 8 + 4 + 3 + 2;
  const body = Buffer.alloc(count * stride);
  points.forEach((p, i) => {
    const at = i * stride;
    body.writeDoubleLE(p.x, at);
    body.writeDoubleLE(p.y, at + 8);
    body.writeFloatLE(p.z, at + 16);
    body.writeUInt8(p.r, at + 20);
    body.writeUInt8(p.g, at + 21);
    body.writeUInt8(p.b, at + 22);
    body.writeUInt16LE(p.intensity, at + 23);
  });
  await writeFile(path, Buffer.concat([Buffer.from(header, 'latin1'), body]));
}

/** PLY with a float `scalar_intensity` (0..4095) and a uchar `classification`, as CloudCompare writes them. */
async function writeClassifiedPly(path: string, count: number, encoding: 'ascii' | 'binary_little_endian'): Promise<void> {
  const header = [
    'ply',
    `format ${encoding} 1.0`,
    `element vertex ${count}`,
    'property double x',
    'property double y',
    'property double z',
    'property float scalar_intensity',
    'property uchar classification',
    'end_header',
    '',
  ].join('\n');
  const points = Array.from({ length: count }, (_, i) => samplePoint(i, count));
  if (encoding === 'ascii') {
    const body = points.map((p) => `${p.x} ${p.y} ${p.z} ${p.intensity} ${p.classification ?? 0}`).join('\n');
    await writeFile(path, `${header}${body}\n`);
    return;
  }
  const stride = 8 * 3 + 4 + 1;
  const body = Buffer.alloc(count * stride);
  points.forEach((p, i) => {
    const at = i * stride;
    body.writeDoubleLE(p.x, at);
    body.writeDoubleLE(p.y, at + 8);
    body.writeDoubleLE(p.z, at + 16);
    body.writeFloatLE(p.intensity, at + 24);
    body.writeUInt8(p.classification ?? 0, at + 28);
  });
  await writeFile(path, Buffer.concat([Buffer.from(header, 'latin1'), body]));
}

export async function writeXyz(path: string, count: number, withColor = true): Promise<void> {
  const lines = Array.from({ length: count }, (_, i) => {
    const p = samplePoint(i, count);
    return withColor ? `${p.x} ${p.y} ${p.z} ${p.r} ${p.g} ${p.b}` : `${p.x},${p.y},${p.z}`;
  });
  await writeFile(path, `${lines.join('\n')}\n`);
}

export async function writePts(path: string, count: number): Promise<void> {
  const lines = Array.from({ length: count }, (_, i) => {
    const p = samplePoint(i, count);
    return `${p.x} ${p.y} ${p.z} ${p.intensity - 2048} ${p.r} ${p.g} ${p.b}`;
  });
  await writeFile(path, `${count}\n${lines.join('\n')}\n`);
}

/**
 * A minimal valid E57: file header, one scan whose points are a compressed vector in the
 * bitpack codec (x,y,z as doubles, colors 8-bit, intensity 12-bit packed LSB first), the
 * XML section, all cut into 1024-byte pages with a big-endian CRC-32C trailer.
 */
export async function writeE57(
  path: string,
  count: number,
  options: {
    pose?: boolean;
    coordinates?: 'double' | 'single' | 'scaled';
    coordinateMetadata?: string;
    /** A `classification` field of 8-bit class codes, as some writers add beyond the standard. */
    classification?: boolean;
    /** The scan's intensityLimits, declared in the XML (the field stays 0..4095 as stored). */
    intensityLimits?: [number, number];
  } = {},
): Promise<void> {
  const points = Array.from({ length: count }, (_, i) => samplePoint(i, count));
  const coordinates = options.coordinates ?? 'double';
  const axes = ['x', 'y', 'z'] as const;
  // Each field is one continuous bytestream, cut into packets at byte (not value) boundaries,
  // as the bitpack codec allows: a reader must carry partial values from packet to packet.
  const streams = [
    ...axes.map((axis) => {
      const values = points.map((p) => p[axis]);
      if (coordinates === 'single') return floats(values);
      if (coordinates === 'double') return doubles(values);
      return bitpack(
        values.map((v) => Math.round((v - SAMPLE_ORIGIN[axis] + SCALED_MARGIN) / 0.001)),
        SCALED_BITS,
      );
    }),
    Buffer.from(points.map((p) => p.r)),
    Buffer.from(points.map((p) => p.g)),
    Buffer.from(points.map((p) => p.b)),
    bitpack(
      points.map((p) => p.intensity),
      12,
    ),
    ...(options.classification ? [Buffer.from(points.map((p) => p.classification ?? 0))] : []),
  ];
  const packets: Buffer[] = [];
  const packetCount = Math.max(1, Math.ceil(count / 1000));
  for (let k = 0; k < packetCount; k += 1) {
    const pieces = streams.map((stream) =>
      stream.subarray(Math.floor((k * stream.length) / packetCount), Math.floor(((k + 1) * stream.length) / packetCount)),
    );
    const headerLength = 6 + 2 * pieces.length;
    const length = Math.ceil((headerLength + pieces.reduce((n, piece) => n + piece.length, 0)) / 4) * 4;
    const packet = Buffer.alloc(length);
    packet.writeUInt8(1, 0);
    packet.writeUInt16LE(length - 1, 2);
    packet.writeUInt16LE(pieces.length, 4);
    let at = headerLength;
    for (const [i, piece] of pieces.entries()) {
      packet.writeUInt16LE(piece.length, 6 + 2 * i);
      piece.copy(packet, at);
      at += piece.length;
    }
    packets.push(packet);
  }
  const sectionStart = 48;
  const dataStart = sectionStart + 32;
  const sectionLength = 32 + packets.reduce((n, p) => n + p.length, 0);
  const section = Buffer.alloc(32);
  section.writeUInt8(1, 0);
  section.writeBigUInt64LE(BigInt(sectionLength), 8);
  section.writeBigUInt64LE(BigInt(logicalToPhysical(dataStart)), 16);
  const xmlStart = sectionStart + sectionLength;
  const pose = options.pose
    ? `<pose type="Structure"><rotation type="Structure"><w type="Float">0.7071067811865476</w><x type="Float">0</x><y type="Float">0</y><z type="Float">0.7071067811865476</z></rotation><translation type="Structure"><x type="Float">10</x><y type="Float">20</y><z type="Float">30</z></translation></pose>`
    : '';
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<e57Root type="Structure" xmlns="http://www.astm.org/COMMIT/E57/2010-e57-v1.0">
  <formatName type="String"><![CDATA[ASTM E57 3D Imaging Data File]]></formatName>
  <guid type="String"><![CDATA[{rdp-sample-file}]]></guid>
  <versionMajor type="Integer">1</versionMajor>
  <versionMinor type="Integer">0</versionMinor>
  <coordinateMetadata type="String"><![CDATA[${options.coordinateMetadata ?? ''}]]></coordinateMetadata>
  <data3D type="Vector" allowHeterogeneousChildren="1">
    <vectorChild type="Structure">
      <guid type="String"><![CDATA[{rdp-sample-scan}]]></guid>
      <name type="String"><![CDATA[sample &amp; scan]]></name>
      ${pose}${
        options.intensityLimits
          ? `<intensityLimits type="Structure"><intensityMinimum type="Float">${options.intensityLimits[0]}</intensityMinimum><intensityMaximum type="Float">${options.intensityLimits[1]}</intensityMaximum></intensityLimits>`
          : ''
      }
      <points type="CompressedVector" fileOffset="${logicalToPhysical(sectionStart)}" recordCount="${count}">
        <prototype type="Structure">
          ${axes.map((axis) => coordinateField(axis, coordinates)).join('\n          ')}
          <colorRed type="Integer" minimum="0" maximum="255"/>
          <colorGreen type="Integer" minimum="0" maximum="255"/>
          <colorBlue type="Integer" minimum="0" maximum="255"/>
          <intensity type="Integer" minimum="0" maximum="4095"/>${options.classification ? '\n          <classification type="Integer" minimum="0" maximum="255"/>' : ''}
        </prototype>
        <codecs type="Vector" allowHeterogeneousChildren="1"/>
      </points>
    </vectorChild>
  </data3D>
  <images2D type="Vector" allowHeterogeneousChildren="1"/>
</e57Root>
`;
  const xmlBytes = Buffer.from(xml, 'utf8');
  const logical = Buffer.concat([Buffer.alloc(48), section, ...packets, xmlBytes]);
  logical.write('ASTM-E57', 0, 'latin1');
  logical.writeUInt32LE(1, 8);
  logical.writeUInt32LE(0, 12);
  const pages = Math.ceil(logical.length / PAGE_DATA);
  logical.writeBigUInt64LE(BigInt(pages * PAGE_SIZE), 16);
  logical.writeBigUInt64LE(BigInt(logicalToPhysical(xmlStart)), 24);
  logical.writeBigUInt64LE(BigInt(xmlBytes.length), 32);
  logical.writeBigUInt64LE(BigInt(PAGE_SIZE), 40);
  await writeFile(path, paginate(logical));
}

/** Cuts logical bytes into 1024-byte pages of 1020 data bytes and a big-endian CRC-32C. */
export function paginate(logical: Buffer): Buffer {
  const pages = Math.ceil(logical.length / PAGE_DATA);
  const file = Buffer.alloc(pages * PAGE_SIZE);
  for (let p = 0; p < pages; p += 1) {
    const data = file.subarray(p * PAGE_SIZE, p * PAGE_SIZE + PAGE_DATA);
    logical.copy(data, 0, p * PAGE_DATA, Math.min(logical.length, (p + 1) * PAGE_DATA));
    file.writeUInt32BE(crc32c(data), p * PAGE_SIZE + PAGE_DATA);
  }
  return file;
}

const SCALED_BITS = 17;
/** Scaled coordinates start this far below the sample's origin, so every stored integer is positive. */
const SCALED_MARGIN = 10;

function coordinateField(axis: 'x' | 'y' | 'z', coordinates: 'double' | 'single' | 'scaled'): string {
  const name = `cartesian${axis.toUpperCase()}`;
  if (coordinates === 'single') return `<${name} type="Float" precision="single"/>`;
  if (coordinates === 'double') return axis === 'x' ? `<${name} type="Float"/>` : `<${name} type="Float" precision="double"/>`;
  return `<${name} type="ScaledInteger" minimum="0" maximum="${2 ** SCALED_BITS - 1}" scale="0.001" offset="${SAMPLE_ORIGIN[axis] - SCALED_MARGIN}"/>`;
}

function floats(values: number[]): Buffer {
  const bytes = Buffer.alloc(values.length * 4);
  for (const [i, value] of values.entries()) bytes.writeFloatLE(value, i * 4);
  return bytes;
}

function doubles(values: number[]): Buffer {
  const bytes = Buffer.alloc(values.length * 8);
  for (const [i, value] of values.entries()) bytes.writeDoubleLE(value, i * 8);
  return bytes;
}

/** Values of `bits` bits each, least significant bit first, as E57's bitpack codec stores integers. */
export function bitpack(values: number[], bits: number): Buffer {
  const bytes = Buffer.alloc(Math.ceil((values.length * bits) / 8));
  let position = 0;
  for (const value of values) {
    for (let bit = 0; bit < bits; bit += 1, position += 1) {
      if ((value >> bit) & 1) bytes[position >> 3]! |= 1 << (position & 7);
    }
  }
  return bytes;
}
