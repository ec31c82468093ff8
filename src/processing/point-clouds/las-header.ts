import { notCompatible, ProcessingError } from '../processing-error.js';
import type { Bounds, PointAttribute, PointBatch } from './point-cloud.js';

/** The public header block of LAS 1.0–1.4 (ASPRS), the fields a reader needs. */
export interface LasHeader {
  versionMajor: number;
  versionMinor: number;
  headerSize: number;
  /** Bit 4: the coordinate system is given as WKT (record 2112), not as GeoTIFF keys. */
  globalEncoding: number;
  pointDataOffset: number;
  /** Variable length records between the header and the points. */
  vlrCount: number;
  /** LAS 1.4: extended variable length records, after the points (none: count 0). */
  evlrOffset: number;
  evlrCount: number;
  /** 0–10, compression bits cleared. */
  pointFormat: number;
  compressed: boolean;
  recordLength: number;
  pointCount: number;
  scale: [number, number, number];
  offset: [number, number, number];
  bounds: Bounds;
}

export const LAS_HEADER_MIN_BYTES = 227;
export const LAS_14_HEADER_BYTES = 375;

/** Minimum record length of each point data record format, where RGB sits, where intensity sits. */
const FORMAT_LENGTH = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];
const COLOR_OFFSET: Record<number, number> = { 2: 20, 3: 28, 5: 28, 7: 30, 8: 30, 10: 30 };
const INTENSITY_OFFSET = 12;
/** The classification byte: formats 0–5 keep the class in its low 5 bits (flags above), 6–10 a whole byte. */
const CLASSIFICATION_OFFSET = 15;
const EXTENDED_CLASSIFICATION_OFFSET = 16;
/** LAS intensity is an unsigned 16-bit integer: 0..65535 maps to 0..1 in the tiles. */
export const LAS_INTENSITY_RANGE: [number, number] = [0, 65535];

export function parseLasHeader(bytes: Buffer): LasHeader {
  if (bytes.length < LAS_HEADER_MIN_BYTES || bytes.toString('latin1', 0, 4) !== 'LASF') {
    throw notCompatible('The file is not a LAS file: the LASF signature or its header is missing');
  }
  const versionMajor = bytes.readUInt8(24);
  const versionMinor = bytes.readUInt8(25);
  if (versionMajor !== 1 || versionMinor > 4) throw notCompatible(`LAS version ${versionMajor}.${versionMinor} is not supported`);
  const headerSize = bytes.readUInt16LE(94);
  const formatByte = bytes.readUInt8(104);
  const pointFormat = formatByte & 0x3f;
  const recordLength = bytes.readUInt16LE(105);
  if (pointFormat > 10) throw notCompatible(`LAS point data record format ${pointFormat} does not exist`);
  if (recordLength < FORMAT_LENGTH[pointFormat]!) {
    throw notCompatible(`LAS record length ${recordLength} is shorter than point format ${pointFormat} needs`);
  }
  let pointCount = bytes.readUInt32LE(107);
  let evlrOffset = 0;
  let evlrCount = 0;
  if (versionMinor >= 4 && bytes.length >= LAS_14_HEADER_BYTES && headerSize >= LAS_14_HEADER_BYTES) {
    const count64 = Number(bytes.readBigUInt64LE(247));
    if (count64 > 0) pointCount = count64;
    evlrOffset = Number(bytes.readBigUInt64LE(235));
    evlrCount = bytes.readUInt32LE(243);
  }
  const f64 = (at: number) => bytes.readDoubleLE(at);
  return {
    versionMajor,
    versionMinor,
    headerSize,
    globalEncoding: bytes.readUInt16LE(6),
    pointDataOffset: bytes.readUInt32LE(96),
    vlrCount: bytes.readUInt32LE(100),
    evlrOffset,
    evlrCount,
    pointFormat,
    compressed: (formatByte & 0xc0) !== 0,
    recordLength,
    pointCount,
    scale: [f64(131), f64(139), f64(147)],
    offset: [f64(155), f64(163), f64(171)],
    bounds: { min: [f64(187), f64(203), f64(219)], max: [f64(179), f64(195), f64(211)] },
  };
}

export function lasAttributes(header: LasHeader): PointAttribute[] {
  return COLOR_OFFSET[header.pointFormat] === undefined ? ['position', 'intensity'] : ['position', 'color', 'intensity'];
}

/**
 * LAS stores colors as 16-bit, but many writers put 8-bit values there; decided once per file
 * from the first batch so colors stay consistent across batches.
 */
export class LasRecordDecoder {
  private readonly colorOffset: number | undefined;
  private colorShift: number | undefined;

  constructor(private readonly header: LasHeader) {
    if (header.pointFormat > 10) throw new ProcessingError('unsupported-content', 'Unknown LAS point format');
    this.colorOffset = COLOR_OFFSET[header.pointFormat];
  }

  /** Decodes `count` records laid out every `stride` bytes from `start` in `bytes`. */
  decode(bytes: Buffer, start: number, count: number, stride: number): PointBatch {
    const { scale, offset } = this.header;
    const positions = new Float64Array(count * 3);
    const intensity = new Float32Array(count);
    const classification = new Uint8Array(count);
    const extended = this.header.pointFormat >= 6;
    const classAt = extended ? EXTENDED_CLASSIFICATION_OFFSET : CLASSIFICATION_OFFSET;
    const classMask = extended ? 0xff : 0x1f;
    const colorOffset = this.colorOffset;
    const colors = colorOffset === undefined ? undefined : new Uint8Array(count * 3);
    // A DataView reads unaligned fields without Buffer's per-call argument checks.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (colors && this.colorShift === undefined) {
      let max = 0;
      for (let i = 0; i < count; i += 1) {
        const at = start + i * stride + colorOffset!;
        max = Math.max(max, view.getUint16(at, true), view.getUint16(at + 2, true), view.getUint16(at + 4, true));
      }
      this.colorShift = max > 255 ? 8 : 0;
    }
    const [sx, sy, sz] = scale;
    const [ox, oy, oz] = offset;
    const shift = this.colorShift ?? 0;
    for (let i = 0; i < count; i += 1) {
      const at = start + i * stride;
      positions[i * 3] = view.getInt32(at, true) * sx + ox;
      positions[i * 3 + 1] = view.getInt32(at + 4, true) * sy + oy;
      positions[i * 3 + 2] = view.getInt32(at + 8, true) * sz + oz;
      intensity[i] = view.getUint16(at + INTENSITY_OFFSET, true);
      classification[i] = view.getUint8(at + classAt) & classMask;
      if (colors) {
        const c = at + colorOffset!;
        colors[i * 3] = view.getUint16(c, true) >> shift;
        colors[i * 3 + 1] = view.getUint16(c + 2, true) >> shift;
        colors[i * 3 + 2] = view.getUint16(c + 4, true) >> shift;
      }
    }
    return colors ? { count, positions, colors, intensity, classification } : { count, positions, intensity, classification };
  }
}
