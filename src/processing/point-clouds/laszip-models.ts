/**
 * The adaptive probability models of LASzip's entropy coder (after Said's FastAC): a symbol
 * model whose distribution is rebuilt at growing intervals, and a binary model. Shared by the
 * chunk-table decoder and the test suite's LAZ writer, which must adapt in exactly the same way.
 */
export const AC_MIN_LENGTH = 0x01000000;
export const BM_LENGTH_SHIFT = 13;
const BM_MAX_COUNT = 1 << BM_LENGTH_SHIFT;
export const DM_LENGTH_SHIFT = 15;
const DM_MAX_COUNT = 1 << DM_LENGTH_SHIFT;

export class SymbolModel {
  readonly distribution: Uint32Array;
  readonly counts: Uint32Array;
  private total = 0;
  private updateCycle: number;
  untilUpdate = 0;

  constructor(readonly symbols: number) {
    this.distribution = new Uint32Array(symbols);
    this.counts = new Uint32Array(symbols).fill(1);
    this.updateCycle = symbols;
    this.update();
    this.updateCycle = (symbols + 6) >> 1;
    this.untilUpdate = this.updateCycle;
  }

  update(): void {
    this.total += this.updateCycle;
    if (this.total > DM_MAX_COUNT) {
      this.total = 0;
      for (let k = 0; k < this.symbols; k += 1) {
        this.counts[k] = (this.counts[k]! + 1) >> 1;
        this.total += this.counts[k]!;
      }
    }
    const scale = Math.floor(0x80000000 / this.total);
    let sum = 0;
    for (let k = 0; k < this.symbols; k += 1) {
      this.distribution[k] = Math.floor((scale * sum) / 2 ** (31 - DM_LENGTH_SHIFT));
      sum += this.counts[k]!;
    }
    this.updateCycle = Math.min((5 * this.updateCycle) >> 2, (this.symbols + 6) << 3);
    this.untilUpdate = this.updateCycle;
  }
}

export class BitModel {
  bit0Count = 1;
  bitCount = 2;
  bit0Prob = 1 << (BM_LENGTH_SHIFT - 1);
  updateCycle = 4;
  untilUpdate = 4;

  update(): void {
    this.bitCount += this.updateCycle;
    if (this.bitCount > BM_MAX_COUNT) {
      this.bitCount = (this.bitCount + 1) >> 1;
      this.bit0Count = (this.bit0Count + 1) >> 1;
      if (this.bit0Count === this.bitCount) this.bitCount += 1;
    }
    const scale = Math.floor(0x80000000 / this.bitCount);
    this.bit0Prob = Math.floor((this.bit0Count * scale) / 2 ** (31 - BM_LENGTH_SHIFT));
    this.updateCycle = Math.min((5 * this.updateCycle) >> 2, 64);
    this.untilUpdate = this.updateCycle;
  }
}
