import { notCompatible } from '../../processing-error.js';
import type { XmlElement } from './xml-lite.js';

/**
 * One field of an E57 compressed vector and its bytestream in the bitpack codec: floats as
 * raw little-endian IEEE values, integers as (value - minimum) in the fewest bits that hold
 * the range, packed least significant bit first. A field's stream runs on across packets.
 */
export class FieldStream {
  readonly name: string;
  private readonly kind: 'float32' | 'float64' | 'integer';
  private readonly minimum: number;
  private readonly maximum: number;
  private readonly bits: number;
  private readonly scale: number;
  private readonly offset: number;
  private pending = Buffer.alloc(0);
  private bitPosition = 0;
  private values: number[] = [];

  constructor(element: XmlElement) {
    this.name = element.name;
    const type = element.attributes['type'];
    const number = (attribute: string, fallback: number) => {
      const text = element.attributes[attribute];
      const value = text === undefined ? fallback : Number(text);
      if (!Number.isFinite(value)) throw notCompatible(`E57 field ${this.name} has a bad ${attribute}`);
      return value;
    };
    this.scale = 1;
    this.offset = 0;
    this.minimum = 0;
    this.maximum = 0;
    this.bits = 0;
    if (type === 'Float') {
      this.kind = element.attributes['precision'] === 'single' ? 'float32' : 'float64';
    } else if (type === 'Integer' || type === 'ScaledInteger') {
      this.kind = 'integer';
      this.minimum = number('minimum', Number.MIN_SAFE_INTEGER);
      const maximum = number('maximum', Number.MAX_SAFE_INTEGER);
      this.maximum = maximum;
      if (maximum < this.minimum) throw notCompatible(`E57 field ${this.name} has its maximum below its minimum`);
      this.bits = Math.ceil(Math.log2(maximum - this.minimum + 1));
      if (this.bits > 52) throw notCompatible(`E57 field ${this.name} needs ${this.bits} bits; at most 52 are supported`);
      if (type === 'ScaledInteger') {
        this.scale = number('scale', 1);
        this.offset = number('offset', 0);
      }
    } else {
      throw notCompatible(`E57 field ${this.name} of type ${type} cannot be read`);
    }
  }

  /** The declared range of an integer field; floats (colors in 0..1) declare none. */
  range(): [number, number] | undefined {
    if (this.kind !== 'integer') return undefined;
    return [this.minimum * this.scale + this.offset, this.maximum * this.scale + this.offset];
  }

  /** A field of zero bits is a constant: it never needs bytes. */
  get constant(): boolean {
    return this.kind === 'integer' && this.bits === 0;
  }

  get available(): number {
    return this.constant ? Number.POSITIVE_INFINITY : this.values.length;
  }

  push(bytes: Buffer): void {
    this.pending = Buffer.concat([this.pending.subarray(this.bitPosition >> 3), bytes]);
    this.bitPosition &= 7;
    if (this.kind === 'float32' || this.kind === 'float64') {
      const size = this.kind === 'float32' ? 4 : 8;
      let at = 0;
      for (; at + size <= this.pending.length; at += size) {
        this.values.push(size === 4 ? this.pending.readFloatLE(at) : this.pending.readDoubleLE(at));
      }
      this.bitPosition = at * 8;
      return;
    }
    if (this.bits === 0) return;
    const totalBits = this.pending.length * 8;
    while (totalBits - this.bitPosition >= this.bits) this.values.push(this.decodeRaw(this.readBits()));
  }

  /** Removes and returns the next `count` values. */
  take(count: number): number[] {
    if (this.constant) return new Array<number>(count).fill(this.decodeRaw(0));
    const taken = this.values.slice(0, count);
    this.values = this.values.slice(count);
    return taken;
  }

  private readBits(): number {
    let value = 0;
    let got = 0;
    while (got < this.bits) {
      const byte = this.pending[this.bitPosition >> 3]!;
      const shift = this.bitPosition & 7;
      const take = Math.min(8 - shift, this.bits - got);
      value += ((byte >> shift) & ((1 << take) - 1)) * 2 ** got;
      got += take;
      this.bitPosition += take;
    }
    return value;
  }

  private decodeRaw(raw: number): number {
    return (raw + this.minimum) * this.scale + this.offset;
  }
}
