import { describe, expect, it } from 'vitest';
import { isSampled, nextSampled } from '../../src/processing/tiles/octree-box.js';

/** The indices nextSampled walks, from the first kept one on. */
function walked(keep: number, total: number): number[] {
  const indices: number[] = [];
  for (let next = nextSampled(0, keep, total); next !== Number.POSITIVE_INFINITY; next = nextSampled(indices.length, keep, total))
    indices.push(next);
  return indices;
}

describe("a tile's even subsample, kept index by index", () => {
  it('walks exactly the indices isSampled keeps, for every small count and share', () => {
    for (let total = 1; total <= 300; total += 1) {
      for (const keep of [1, 2, 3, 7, 40, 299, 300, 301, 1000]) {
        const expected: number[] = [];
        for (let index = 0; index < total; index += 1) if (isSampled(index, keep, total)) expected.push(index);
        expect(walked(keep, total), `keep ${keep} of ${total}`).toEqual(expected);
      }
    }
  });

  it('keeps the same points of a billion-point box and beyond, where a rounding slip would show', () => {
    for (const total of [1_000_000_007, 4_294_967_295, 17_000_000_003]) {
      const keep = 50_000;
      const indices = walked(keep, total);
      expect(indices.length).toBe(keep);
      expect(indices.at(-1)).toBe(total - 1);
      let previous = -1;
      for (const index of indices) {
        expect(isSampled(index, keep, total)).toBe(true);
        if (index - 1 > previous) expect(isSampled(index - 1, keep, total)).toBe(false);
        if (index + 1 < total) expect(isSampled(index + 1, keep, total)).toBe(false);
        previous = index;
      }
    }
  });
});
