import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { assertLayerable, comparisonCost, comparisonSettings, isFinished } from './comparison-lifecycle.js';

const bundles = { referenceBundleId: 'a', comparedBundleId: 'b' };

describe('comparison settings', () => {
  it('fills in the defaults: c2c, 1 m, 5 cm', () => {
    expect(comparisonSettings(bundles)).toEqual({ method: 'c2c', maxDistance: 1, tolerance: 0.05 });
    expect(comparisonSettings({ ...bundles, method: 'm3c2', maxDistance: 0.02 })).toEqual({
      method: 'm3c2',
      maxDistance: 0.02,
      tolerance: 0.02,
    });
  });

  it('refuses the same bundle twice and settings out of bounds, naming the field', () => {
    const refused = (request: Parameters<typeof comparisonSettings>[0]) => {
      try {
        comparisonSettings(request);
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        return [(error as ApiError).status, (error as ApiError).message.split(':')[0]];
      }
      return undefined;
    };
    expect(refused({ referenceBundleId: 'a', comparedBundleId: 'a' })).toEqual([400, 'body.comparedBundleId']);
    expect(refused({ ...bundles, maxDistance: 0.0009 })).toEqual([400, 'body.maxDistance']);
    expect(refused({ ...bundles, maxDistance: 1000.5 })).toEqual([400, 'body.maxDistance']);
    expect(refused({ ...bundles, tolerance: 0 })).toEqual([400, 'body.tolerance']);
    expect(refused({ ...bundles, maxDistance: 0.5, tolerance: 0.51 })).toEqual([400, 'body.tolerance']);
    expect(refused({ ...bundles, maxDistance: 1000, tolerance: 1000 })).toBeUndefined();
    expect(refused({ ...bundles, maxDistance: 0.001, tolerance: 0.001 })).toBeUndefined();
  });
});

describe('comparison cost', () => {
  it('is 2 credits and 1 per started million points of both scans', () => {
    const scan = (points: number) => ({ points, inputBytes: 0 });
    expect(comparisonCost(scan(1000), scan(1000))).toBe(3);
    expect(comparisonCost(scan(600_000), scan(400_000))).toBe(3);
    expect(comparisonCost(scan(600_000), scan(400_001))).toBe(4);
    expect(comparisonCost(scan(0), scan(0))).toBe(2);
  });

  it('estimates the points of a processing that kept no count from its input bytes (20 a point)', () => {
    expect(comparisonCost({ points: null, inputBytes: 20_000_000 }, { points: 1, inputBytes: 0 })).toBe(4);
  });
});

describe('comparison states', () => {
  it('is over once ready or failed, and only a ready one is a layer', () => {
    expect(['queued', 'running', 'ready', 'failed'].map((state) => isFinished(state as 'ready'))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(() => assertLayerable('ready')).not.toThrow();
    expect(() => assertLayerable('running')).toThrow(ApiError);
  });
});
