import { writeFile } from 'node:fs/promises';
import {
  AC_MIN_LENGTH,
  BitModel,
  BM_LENGTH_SHIFT,
  DM_LENGTH_SHIFT,
  SymbolModel,
} from '../../src/processing/point-clouds/laszip-models.js';
import { type PointSource, SAMPLE_SOURCE } from './point-cloud-samples.js';

/**
 * A LAZ writer for test samples only, so the LAZ reader meets real LASzip data: nothing we
 * may install compresses LAZ (laz-perf only decompresses; Debian bookworm has no pdal or
 * laszip). It implements the published LASzip scheme for point format 0 with the POINT10
 * version 2 item, pointwise-chunked: an adaptive binary arithmetic coder, the integer
 * corrector coder, median-of-five coordinate prediction and the chunk table. Every point is
 * a single return with constant flags, so only the coordinate and intensity paths run.
 */

class ArithmeticEncoder {
  readonly out: number[] = [];
  private base = 0;
  private length = 0xffffffff;

  encodeBit(model: BitModel, bit: number): void {
    const x = model.bit0Prob * (this.length >>> BM_LENGTH_SHIFT);
    if (bit === 0) {
      this.length = x;
      model.bit0Count += 1;
    } else {
      this.advance(x);
      this.length = (this.length - x) >>> 0;
    }
    if (this.length < AC_MIN_LENGTH) this.renormalize();
    model.untilUpdate -= 1;
    if (model.untilUpdate === 0) model.update();
  }

  encodeSymbol(model: SymbolModel, symbol: number): void {
    if (symbol === model.symbols - 1) {
      // The top of the range: no product for the upper end.
      const x = model.distribution[symbol]! * (this.length >>> DM_LENGTH_SHIFT);
      this.advance(x);
      this.length = (this.length - x) >>> 0;
    } else {
      this.length = this.length >>> DM_LENGTH_SHIFT;
      const x = model.distribution[symbol]! * this.length;
      this.advance(x);
      this.length = model.distribution[symbol + 1]! * this.length - x;
    }
    if (this.length < AC_MIN_LENGTH) this.renormalize();
    model.counts[symbol]! += 1;
    model.untilUpdate -= 1;
    if (model.untilUpdate === 0) model.update();
  }

  writeBits(bits: number, value: number): void {
    if (bits > 19) {
      this.writeBits(16, value & 0xffff);
      value = value >>> 16;
      bits -= 16;
    }
    this.length = this.length >>> bits;
    this.advance(value * this.length);
    if (this.length < AC_MIN_LENGTH) this.renormalize();
  }

  done(): void {
    let anotherByte = true;
    if (this.length > 2 * AC_MIN_LENGTH) {
      this.advance(AC_MIN_LENGTH);
      this.length = AC_MIN_LENGTH >>> 1;
    } else {
      this.advance(AC_MIN_LENGTH >>> 1);
      this.length = AC_MIN_LENGTH >>> 9;
      anotherByte = false;
    }
    this.renormalize();
    this.out.push(0, 0);
    if (anotherByte) this.out.push(0);
  }

  /** base += x, carrying into the bytes already written when it wraps. */
  private advance(x: number): void {
    const sum = this.base + x;
    this.base = sum >>> 0;
    if (sum > 0xffffffff) {
      let p = this.out.length - 1;
      while (this.out[p] === 0xff) {
        this.out[p] = 0;
        p -= 1;
      }
      this.out[p]! += 1;
    }
  }

  private renormalize(): void {
    do {
      this.out.push(this.base >>> 24);
      this.base = (this.base << 8) >>> 0;
      this.length = (this.length << 8) >>> 0;
    } while (this.length < AC_MIN_LENGTH);
  }
}

/** Codes an integer as a prediction's error: the error's bit length k, then the error within it. */
class IntegerCoder {
  private readonly corrBits: number;
  private readonly corrRange: number;
  private readonly corrMin: number;
  private readonly corrMax: number;
  private readonly kModels: SymbolModel[];
  private readonly corrector0 = new BitModel();
  private readonly correctors: SymbolModel[] = [];
  k = 0;

  constructor(
    private readonly encoder: ArithmeticEncoder,
    bits = 16,
    contexts = 1,
    private readonly bitsHigh = 8,
  ) {
    if (bits > 0 && bits < 32) {
      this.corrBits = bits;
      this.corrRange = 2 ** bits;
      this.corrMin = -(this.corrRange / 2);
      this.corrMax = this.corrMin + this.corrRange - 1;
    } else {
      this.corrBits = 32;
      this.corrRange = 0;
      this.corrMin = -0x80000000;
      this.corrMax = 0x7fffffff;
    }
    this.kModels = Array.from({ length: contexts }, () => new SymbolModel(this.corrBits + 1));
    for (let i = 1; i <= this.corrBits; i += 1) this.correctors[i] = new SymbolModel(i <= bitsHigh ? 1 << i : 1 << bitsHigh);
  }

  compress(predicted: number, real: number, context = 0): void {
    let corrector = (real - predicted) | 0;
    if (this.corrRange !== 0) {
      if (corrector < this.corrMin) corrector += this.corrRange;
      else if (corrector > this.corrMax) corrector -= this.corrRange;
    }
    this.writeCorrector(corrector, this.kModels[context]!);
  }

  private writeCorrector(c: number, model: SymbolModel): void {
    let c1 = c <= 0 ? -c : c - 1;
    this.k = 0;
    while (c1) {
      c1 = Math.floor(c1 / 2);
      this.k += 1;
    }
    const k = this.k;
    this.encoder.encodeSymbol(model, k);
    if (k === 0) {
      this.encoder.encodeBit(this.corrector0, c);
      return;
    }
    if (k >= 32) return;
    let value = c < 0 ? c + (2 ** k - 1) : c - 1;
    if (k <= this.bitsHigh) {
      this.encoder.encodeSymbol(this.correctors[k]!, value);
    } else {
      const low = k - this.bitsHigh;
      const lowBits = value & (2 ** low - 1);
      value = Math.floor(value / 2 ** low);
      this.encoder.encodeSymbol(this.correctors[k]!, value);
      this.encoder.writeBits(low, lowBits);
    }
  }
}

/** The median of the last five values, kept incrementally as LASzip does. */
class Median5 {
  private readonly values = [0, 0, 0, 0, 0];
  private high = true;

  get(): number {
    return this.values[2]!;
  }

  add(v: number): void {
    const s = this.values as [number, number, number, number, number];
    if (this.high) {
      if (v < s[2]) {
        s[4] = s[3];
        s[3] = s[2];
        if (v < s[0]) {
          s[2] = s[1];
          s[1] = s[0];
          s[0] = v;
        } else if (v < s[1]) {
          s[2] = s[1];
          s[1] = v;
        } else {
          s[2] = v;
        }
      } else {
        if (v < s[3]) {
          s[4] = s[3];
          s[3] = v;
        } else {
          s[4] = v;
        }
        this.high = false;
      }
    } else if (s[2] < v) {
      s[0] = s[1];
      s[1] = s[2];
      if (s[4] < v) {
        s[2] = s[3];
        s[3] = s[4];
        s[4] = v;
      } else if (s[3] < v) {
        s[2] = s[3];
        s[3] = v;
      } else {
        s[2] = v;
      }
    } else {
      if (s[1] < v) {
        s[0] = s[1];
        s[1] = v;
      } else {
        s[0] = v;
      }
      this.high = true;
    }
  }
}

interface Point10 {
  x: number;
  y: number;
  z: number;
  intensity: number;
}

/**
 * One chunk of POINT10 v2: the first point raw, the rest coded. With one return per pulse the
 * return map gives one slot for every point and the flag bytes never change.
 */
function compressChunk(points: Point10[], raw: (p: Point10) => Buffer): Buffer {
  const encoder = new ArithmeticEncoder();
  const changedValues = new SymbolModel(64);
  const intensityCoder = new IntegerCoder(encoder, 16, 4);
  const dx = new IntegerCoder(encoder, 32, 2);
  const dy = new IntegerCoder(encoder, 32, 22);
  const dz = new IntegerCoder(encoder, 32, 20);
  const medianX = new Median5();
  const medianY = new Median5();
  let lastIntensity = 0;
  let last = points[0]!;
  let lastHeight = 0;
  const singleReturn = 1;
  for (const point of points.slice(1)) {
    const changed = (lastIntensity !== point.intensity ? 1 : 0) << 4;
    encoder.encodeSymbol(changedValues, changed);
    if (changed & 16) {
      intensityCoder.compress(lastIntensity, point.intensity, 0);
      lastIntensity = point.intensity;
    }
    const diffX = point.x - last.x;
    dx.compress(medianX.get(), diffX, singleReturn);
    medianX.add(diffX);
    let kBits = dx.k;
    const diffY = point.y - last.y;
    dy.compress(medianY.get(), diffY, singleReturn + (kBits < 20 ? kBits & ~1 : 20));
    medianY.add(diffY);
    kBits = Math.floor((dx.k + dy.k) / 2);
    dz.compress(lastHeight, point.z, singleReturn + (kBits < 18 ? kBits & ~1 : 18));
    lastHeight = point.z;
    last = point;
  }
  encoder.done();
  return Buffer.concat([raw(points[0]!), Buffer.from(encoder.out)]);
}

const SCALE = 0.001;
const HEADER_SIZE = 227;
const VLR_HEADER = 54;
const LASZIP_PAYLOAD = 34 + 6;

/** The chunk table: chunk byte sizes coded against the previous one. */
function chunkTable(chunkBytes: number[]): Buffer {
  const encoder = new ArithmeticEncoder();
  const coder = new IntegerCoder(encoder, 32, 2);
  for (const [i, bytes] of chunkBytes.entries()) coder.compress(i ? chunkBytes[i - 1]! : 0, bytes, 1);
  encoder.done();
  const head = Buffer.alloc(8);
  head.writeUInt32LE(0, 0);
  head.writeUInt32LE(chunkBytes.length, 4);
  return Buffer.concat([head, Buffer.from(encoder.out)]);
}

/**
 * A LAZ 1.2 file of `count` points (point format 0) of the sample surface or of another
 * source, in chunks of `chunkSize` points, compressed one chunk at a time.
 */
export async function writeLaz(
  path: string,
  count: number,
  chunkSize = 50_000,
  source: PointSource = SAMPLE_SOURCE,
  /** More variable length records after LASzip's (lasRecord in point-cloud-samples.ts). */
  vlrs: Buffer[] = [],
): Promise<void> {
  const more = Buffer.concat(vlrs);
  const origin = source.origin;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const pointAt = (i: number): Point10 => {
    const p = source.pointAt(i, count);
    const point = {
      x: Math.round((p.x - origin.x) / SCALE),
      y: Math.round((p.y - origin.y) / SCALE),
      z: Math.round((p.z - origin.z) / SCALE),
      intensity: p.intensity,
    };
    [point.x, point.y, point.z].forEach((value, axis) => {
      min[axis] = Math.min(min[axis]!, value);
      max[axis] = Math.max(max[axis]!, value);
    });
    return point;
  };
  const raw = (p: Point10) => {
    const record = Buffer.alloc(20);
    record.writeInt32LE(p.x, 0);
    record.writeInt32LE(p.y, 4);
    record.writeInt32LE(p.z, 8);
    record.writeUInt16LE(p.intensity, 12);
    record.writeUInt8(0b001_001, 14); // return 1 of 1
    record.writeUInt8(1, 15);
    return record;
  };
  const chunks: Buffer[] = [];
  for (let start = 0; start < count; start += chunkSize) {
    const points = Array.from({ length: Math.min(chunkSize, count - start) }, (_, k) => pointAt(start + k));
    chunks.push(compressChunk(points, raw));
  }

  const pointDataOffset = HEADER_SIZE + VLR_HEADER + LASZIP_PAYLOAD + more.length;
  const header = Buffer.alloc(HEADER_SIZE);
  header.write('LASF', 0, 'latin1');
  header.writeUInt8(1, 24);
  header.writeUInt8(2, 25);
  header.write('rdp sample laz', 26, 'latin1');
  header.writeUInt16LE(HEADER_SIZE, 94);
  header.writeUInt32LE(pointDataOffset, 96);
  header.writeUInt32LE(1 + vlrs.length, 100);
  header.writeUInt8(0x80, 104);
  header.writeUInt16LE(20, 105);
  header.writeUInt32LE(count, 107);
  header.writeUInt32LE(count, 111);
  for (let axis = 0; axis < 3; axis += 1) header.writeDoubleLE(SCALE, 131 + axis * 8);
  header.writeDoubleLE(origin.x, 155);
  header.writeDoubleLE(origin.y, 163);
  header.writeDoubleLE(origin.z, 171);
  [origin.x, origin.y, origin.z].forEach((offset, axis) => {
    header.writeDoubleLE(max[axis]! * SCALE + offset, 179 + axis * 16);
    header.writeDoubleLE(min[axis]! * SCALE + offset, 187 + axis * 16);
  });

  const vlr = Buffer.alloc(VLR_HEADER + LASZIP_PAYLOAD);
  vlr.write('laszip encoded', 2, 'latin1');
  vlr.writeUInt16LE(22204, 18);
  vlr.writeUInt16LE(LASZIP_PAYLOAD, 20);
  vlr.write('by rdp test support', 22, 'latin1');
  const payload = vlr.subarray(VLR_HEADER);
  payload.writeUInt16LE(2, 0); // compressor: pointwise chunked
  payload.writeUInt16LE(0, 2); // coder: arithmetic
  payload.writeUInt8(2, 4); // LASzip 2.2
  payload.writeUInt8(2, 5);
  payload.writeUInt16LE(0, 6);
  payload.writeUInt32LE(0, 8);
  payload.writeUInt32LE(chunkSize, 12);
  payload.writeBigInt64LE(-1n, 16);
  payload.writeBigInt64LE(-1n, 24);
  payload.writeUInt16LE(1, 32);
  payload.writeUInt16LE(6, 34); // item POINT10
  payload.writeUInt16LE(20, 36);
  payload.writeUInt16LE(2, 38); // item version 2

  const tableOffset = pointDataOffset + 8 + chunks.reduce((n, c) => n + c.length, 0);
  const offset = Buffer.alloc(8);
  offset.writeBigInt64LE(BigInt(tableOffset), 0);
  await writeFile(path, Buffer.concat([header, vlr, more, offset, ...chunks, chunkTable(chunks.map((c) => c.length))]));
}
