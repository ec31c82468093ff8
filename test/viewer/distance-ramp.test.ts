import { describe, expect, it } from 'vitest';
import { DISTANCE_NOT_COMPUTABLE } from '../../src/processing/tiles/point-content.js';
import { type Comparison, comparisonOf, formatMetres, pickedDistance, rampOf } from '../../viewer/src/distance-ramp.js';

const c2c: Comparison = { comparisonId: 'c', method: 'c2c', tolerance: 0.05, maxDistance: 1 };
const m3c2: Comparison = { ...c2c, method: 'm3c2' };

describe("a comparison layer's heat map (docs/comparisons-viewer.md)", () => {
  it('reads the comparison of a layer of kind comparison only, and refuses an unusable one', () => {
    const layer = (kind: string, comparison: unknown) => ({ kind, comparison }) as unknown as Parameters<typeof comparisonOf>[0];
    expect(comparisonOf(layer('comparison', { comparisonId: 'c', method: 'm3c2', tolerance: 0.05, maxDistance: 1 }))).toEqual(
      m3c2,
    );
    expect(comparisonOf(layer('pointCloud', { comparisonId: 'c', method: 'c2c', tolerance: 0.05, maxDistance: 1 }))).toBeNull();
    expect(comparisonOf(layer('comparison', null))).toBeNull();
    expect(comparisonOf(layer('comparison', { comparisonId: 'c', method: 'c2c', tolerance: 2, maxDistance: 1 }))).toBeNull();
  });

  it("reports a pick's distance, null where the point is grey (beyond maxDistance, not computable)", () => {
    expect(pickedDistance(0.25, c2c)).toBe(0.25);
    expect(pickedDistance(-1, c2c)).toBeNull();
    expect(pickedDistance(Math.fround(DISTANCE_NOT_COMPUTABLE), c2c)).toBeNull();
    expect(pickedDistance(-0.5, m3c2)).toBe(-0.5);
    expect(pickedDistance(-1.5, m3c2)).toBeNull();
    expect(pickedDistance(Math.fround(DISTANCE_NOT_COMPUTABLE), m3c2)).toBeNull();
  });

  it('places the ticks 0, tolerance and maxDistance (± for M3C2) on the bar', () => {
    expect(rampOf(c2c).ticks).toEqual([
      { value: 0, at: 0 },
      { value: 0.05, at: 0.05 },
      { value: 1, at: 1 },
    ]);
    expect(rampOf(m3c2).ticks.map((tick) => [tick.value, tick.at])).toEqual([
      [-1, 0],
      [-0.05, 0.475],
      [0, 0.5],
      [0.05, 0.525],
      [1, 1],
    ]);
    expect(formatMetres(0.05)).toBe('0.05');
    expect(formatMetres(1 / 3)).toBe('0.3333');
  });
});
