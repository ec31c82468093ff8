/**
 * LASzip's chunk table, read so LAZ can be decoded one chunk at a time. The table's byte
 * counts are themselves entropy coded (LASzip's adaptive arithmetic coder and its integer
 * corrector coder, 32 bits, two contexts), so this file holds a small decoder of that scheme.
 */
import { AC_MIN_LENGTH, BitModel, BM_LENGTH_SHIFT, DM_LENGTH_SHIFT, SymbolModel } from './laszip-models.js';

class ArithmeticDecoder {
  private at: number;
  private value: number;
  private length = 0xffffffff;

  constructor(private readonly bytes: Uint8Array) {
    this.value = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    this.at = 4;
  }

  decodeBit(model: BitModel): number {
    const x = model.bit0Prob * (this.length >>> BM_LENGTH_SHIFT);
    const bit = this.value >= x ? 1 : 0;
    if (bit === 0) {
      this.length = x;
      model.bit0Count += 1;
    } else {
      this.value -= x;
      this.length -= x;
    }
    if (this.length < AC_MIN_LENGTH) this.renormalize();
    model.untilUpdate -= 1;
    if (model.untilUpdate === 0) model.update();
    return bit;
  }

  decodeSymbol(model: SymbolModel): number {
    let upper = this.length;
    let lower = 0;
    let symbol = 0;
    let n = model.symbols;
    this.length = this.length >>> DM_LENGTH_SHIFT;
    // Bisection over the cumulative distribution.
    let k = n >> 1;
    do {
      const z = this.length * model.distribution[k]!;
      if (z > this.value) {
        n = k;
        upper = z;
      } else {
        symbol = k;
        lower = z;
      }
      k = (symbol + n) >> 1;
    } while (k !== symbol);
    this.value -= lower;
    this.length = upper - lower;
    if (this.length < AC_MIN_LENGTH) this.renormalize();
    model.counts[symbol]! += 1;
    model.untilUpdate -= 1;
    if (model.untilUpdate === 0) model.update();
    return symbol;
  }

  readBits(bits: number): number {
    if (bits > 19) {
      const low = this.readBits(16);
      return this.readBits(bits - 16) * 65536 + low;
    }
    this.length = this.length >>> bits;
    const symbol = Math.floor(this.value / this.length);
    this.value -= this.length * symbol;
    if (this.length < AC_MIN_LENGTH) this.renormalize();
    return symbol;
  }

  private renormalize(): void {
    do {
      this.value = ((this.value << 8) | (this.bytes[this.at++] ?? 0)) >>> 0;
      this.length = (this.length << 8) >>> 0;
    } while (this.length < AC_MIN_LENGTH);
  }
}

/** The integer corrector decoder with 32 bits (no wrap range), as the chunk table uses it. */
class IntegerDecoder {
  private readonly kModels: SymbolModel[];
  private readonly corrector0 = new BitModel();
  private readonly correctors: SymbolModel[] = [];
  private readonly bitsHigh = 8;

  constructor(
    private readonly decoder: ArithmeticDecoder,
    contexts: number,
  ) {
    this.kModels = Array.from({ length: contexts }, () => new SymbolModel(33));
    for (let i = 1; i <= 32; i += 1) this.correctors[i] = new SymbolModel(1 << Math.min(i, this.bitsHigh));
  }

  decompress(predicted: number, context: number): number {
    return (predicted + this.readCorrector(this.kModels[context]!)) | 0;
  }

  private readCorrector(model: SymbolModel): number {
    const k = this.decoder.decodeSymbol(model);
    if (k === 0) return this.decoder.decodeBit(this.corrector0);
    if (k >= 32) return -0x80000000;
    let c: number;
    if (k <= this.bitsHigh) {
      c = this.decoder.decodeSymbol(this.correctors[k]!);
    } else {
      const low = k - this.bitsHigh;
      c = this.decoder.decodeSymbol(this.correctors[k]!) * 2 ** low + this.decoder.readBits(low);
    }
    return c >= 2 ** (k - 1) ? c + 1 : c - (2 ** k - 1);
  }
}

export interface LazChunk {
  points: number;
  bytes: number;
}

/**
 * Decodes the table that follows its 8-byte head (version, chunk count). `fixedChunkPoints`
 * is the LASzip VLR's chunk size, or undefined when chunks are variable (0xFFFFFFFF).
 */
export function decodeChunkTable(table: Uint8Array, fixedChunkPoints: number | undefined): LazChunk[] {
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  if (view.getUint32(0, true) !== 0) throw new Error(`chunk table version ${view.getUint32(0, true)} is unknown`);
  const count = view.getUint32(4, true);
  const decoder = new ArithmeticDecoder(table.subarray(8));
  const integers = new IntegerDecoder(decoder, 2);
  const chunks: LazChunk[] = [];
  let points = 0;
  let bytes = 0;
  for (let i = 0; i < count; i += 1) {
    if (fixedChunkPoints === undefined) points = integers.decompress(points, 0);
    bytes = integers.decompress(bytes, 1);
    chunks.push({ points: fixedChunkPoints ?? points, bytes });
  }
  return chunks;
}
